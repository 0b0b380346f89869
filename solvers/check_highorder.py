#!/usr/bin/env python3
"""Checks solvers/highorder: the wide fourth-order stencil (9 points in 2D,
13 in 3D) is fourth order with both boundary closures. With exact values
outside the domain the max error falls ~16x per halving of h. With the
second-order closure the order is 4 as well but approached from above (the
h^5 term is large: ratios ~24, 22, 20, 18.5, 17 from 9 to 257 points per
direction, as a 1D computation of the same scheme shows), so its band is
[12.8, 28]. diag and aij give the same iteration count and error (1e-8
relative) on the middle grid."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from solvercheck import Check  # noqa: E402

EXACT = (12.8, 20.0)
SECOND_CLOSURE = (12.8, 28.0)

chk = Check(__doc__)
chk.execute([
    chk.study("2D, exact-value closure (CG)", ["-closure", "exact"], 2, [9, 17, 33], EXACT, 17),
    chk.study("2D, second-order closure (GMRES)", ["-closure", "second"], 2, [9, 17, 33], SECOND_CLOSURE, 17),
    chk.study("3D, exact-value closure (CG)", ["-closure", "exact"], 3, [9, 17, 33], EXACT, 17),
    chk.study("3D, second-order closure (GMRES)", ["-closure", "second"], 3, [9, 17], SECOND_CLOSURE, 9),
])
