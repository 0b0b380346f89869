#!/usr/bin/env python3
"""Checks solvers/biharmonic (B = L L by MatMatMult, CG): the max error falls
~4x per halving of h (second order) in 2D (17, 33, 65) and 3D (9, 17, 33),
with CG + Jacobi and with CG unpreconditioned; diag and aij give the same
iteration count and errors (1e-8 relative); on every run the product agrees
with applying L twice (||B y - L (L y)|| / ||B y|| < 1e-12)."""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from solvercheck import NUM, Check  # noqa: E402

SECOND = (3.2, 4.8)

chk = Check(__doc__)


def with_product_check(plan):
    runs, judge = plan

    def both(res):
        judge(res)
        for opts, r in zip(runs, res):
            m = re.search(r"product check: [^=\n]*= " + NUM, r["log"])
            val = float(m.group(1)) if m else float("nan")
            label = "product L L, " + " ".join(opts)
            msg = f"{label}: ||B y - L (L y)|| / ||B y|| = {val}"
            chk.ok(msg) if val < 1e-12 else chk.fail(msg)

    return runs, both


chk.execute([
    with_product_check(chk.study("2D, CG + Jacobi", [], 2, [17, 33, 65], SECOND, 33, agree_keys=("err", "err_l2"))),
    with_product_check(chk.study("2D, CG", ["-pc_type", "none"], 2, [17, 33], SECOND, 17, agree_keys=("err", "err_l2"))),
    with_product_check(chk.study("3D, CG + Jacobi", [], 3, [9, 17, 33], SECOND, 17, agree_keys=("err", "err_l2"))),
])
