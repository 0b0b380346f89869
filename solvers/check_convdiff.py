#!/usr/bin/env python3
"""Checks solvers/convdiff (eps 0.1, b = (1, -0.5[, 0.25])): upwind
convection is first order (the max error falls ~2x per halving of h),
central second order (~4x), with GMRES and BiCGStab, in 2D and 3D; diag and
aij give the same iteration count and error (1e-8 relative).

BiCGStab's iteration count is sensitive to round-off: on the larger grids
(2D 33^2 and up, 3D 33^3) two runs that differ only in the order of the
additions in MatMult (aij on 1 vs 2 processes) take a few iterations more or
less. Its diag-aij comparison is made on the grid where both agree exactly
(17^2, 9^3); GMRES is compared on the middle grid. GMRES with Kaczmarz's
preconditioner takes thousands of iterations on 33^2, whose count any other
order of the additions in MatMult changes by hundreds: diag's host MatMult
sums each row as aij does, so the counts are equal."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from solvercheck import Check  # noqa: E402

FIRST = (1.6, 2.4)
SECOND = (3.2, 4.8)

chk = Check(__doc__)
chk.execute([
    chk.study("2D upwind, GMRES", ["-scheme", "upwind", "-ksp_type", "gmres"], 2, [17, 33, 65], FIRST, 33),
    chk.study("2D central, GMRES", ["-scheme", "central", "-ksp_type", "gmres"], 2, [17, 33, 65], SECOND, 33),
    chk.study("2D central, BiCGStab", ["-scheme", "central", "-ksp_type", "bcgs"], 2, [17, 33], SECOND, 17),
    chk.study("3D upwind, BiCGStab", ["-scheme", "upwind", "-ksp_type", "bcgs"], 3, [9, 17], FIRST, 9),
    chk.study("3D central, GMRES", ["-scheme", "central", "-ksp_type", "gmres"], 3, [9, 17], SECOND, 17),
    chk.study("2D upwind, GMRES + Kaczmarz", ["-scheme", "upwind", "-ksp_type", "gmres", "-pc_type", "kaczmarz"], 2, [33], None, 33),
])
