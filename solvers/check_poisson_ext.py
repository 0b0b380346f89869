#!/usr/bin/env python3
"""Checks solvers/poisson_ext: the compact 9-point (2D) and 27-point (3D)
stencils with the Mehrstellen right side are fourth order (the max error
falls ~16x per halving of h), with the plain right side second order (~4x),
Dirichlet and pure Neumann (error after removing the mean); and diag agrees
with aij (the same iteration count, errors within 1e-8 relative)."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from solvercheck import Check  # noqa: E402

FOURTH = (12.8, 20.0)  # 16 -20%/+25%
SECOND = (3.2, 4.8)  # 4 +-20%

chk = Check(__doc__)
chk.execute([
    chk.study("2D 9-point Dirichlet, Mehrstellen", ["-stencil", "9"], 2, [9, 17, 33], FOURTH, 17),
    chk.study("2D 9-point Dirichlet, plain f", ["-stencil", "9", "-rhs", "plain"], 2, [17, 33], SECOND, 17),
    chk.study("2D 9-point Neumann, Mehrstellen", ["-stencil", "9", "-bc", "neumann"], 2, [9, 17, 33], FOURTH, 17),
    chk.study("2D 5-point Neumann", ["-stencil", "5", "-bc", "neumann"], 2, [17, 33], SECOND, 17),
    chk.study("3D 27-point Dirichlet, Mehrstellen", ["-stencil", "27"], 3, [9, 17, 33], FOURTH, 17),
    chk.study("3D 27-point Neumann, Mehrstellen", ["-stencil", "27", "-bc", "neumann"], 3, [9, 17], FOURTH, 9),
])
