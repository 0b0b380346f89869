#!/usr/bin/env python3
"""Checks solvers/diffusion: with the smooth coefficient (contrast 100) the
flux form with harmonic face averages is second order (the max error falls
~4x per halving of h) in 2D and 3D; for the layered, checkerboard and random
coefficients (no exact solution) diag and aij give the same iteration count
and solution (max norm within 1e-8 relative), as they do for the smooth one."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from solvercheck import Check  # noqa: E402

SECOND = (3.2, 4.8)

chk = Check(__doc__)
plans = [
    chk.study("2D smooth k", ["-coef", "smooth"], 2, [17, 33, 65], SECOND, 33),
    chk.study("3D smooth k", ["-coef", "smooth"], 3, [9, 17, 33], SECOND, 17),
]
for coef, dim, n in (("layered", 2, 33), ("checkerboard", 2, 33), ("random", 2, 33), ("checkerboard", 3, 17), ("random", 3, 17)):
    plans.append(chk.study(f"{dim}D {coef} k, contrast 1000", ["-coef", coef, "-contrast", "1000"], dim, [n], None, n, agree_keys=("umax",)))
chk.execute(plans)
