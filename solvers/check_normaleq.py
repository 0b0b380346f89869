#!/usr/bin/env python3
"""Checks solvers/normaleq (N = A^T A by MatTransposeMatMult, CG on
N x = A^T b, A upwind convection-diffusion, b = A x_exact): in 2D (17, 33)
and 3D (9, 17), with diag and aij, the relative max error of CG on the
normal equations and of GMRES on A is below 1e-8 (the grid solution is
x_exact, so this is the solvers' error alone); diag and aij take the same
CG iterations (within 1%: CG on kappa(A)^2 feels round-off) and the same
GMRES iterations; on every run the product agrees with A^T applied after A
(||N y - A^T (A y)|| / ||N y|| < 1e-12)."""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from solvercheck import NUM, Check, grid  # noqa: E402

chk = Check(__doc__)


def values(r):
    log = r["log"]
    out = {"its": r.get("its"), "err": r.get("err")}
    m = re.search(r"product check: [^=\n]*= " + NUM, log)
    out["pcheck"] = float(m.group(1)) if m else float("nan")
    m = re.search(r"direct on A: iterations (\d+) \(\w+\), residual norm \S+, error \(relative\) max " + NUM, log)
    out["gits"], out["gerr"] = (int(m.group(1)), float(m.group(2))) if m else (None, float("nan"))
    return out


def plan(label, dim, n, extra=()):
    runs = [list(extra) + grid(dim, n) + ["-dm_mat_type", t] for t in ("diag", "aij")]

    def judge(res):
        d, a = values(res[0]), values(res[1])
        for t, v in (("diag", d), ("aij", a)):
            msg = f"{label} n={n} {t}: CG its {v['its']}, error {v['err']}; GMRES its {v['gits']}, error {v['gerr']}; product check {v['pcheck']}"
            if v["err"] is not None and v["err"] < 1e-8 and v["gerr"] < 1e-8 and v["pcheck"] < 1e-12:
                chk.ok(msg)
            else:
                chk.fail(msg)
        same = (d["its"] is not None and a["its"] is not None and abs(d["its"] - a["its"]) <= 0.01 * a["its"]
                and d["gits"] == a["gits"])
        msg = f"{label} n={n}: diag vs aij, CG iterations {d['its']} vs {a['its']}, GMRES iterations {d['gits']} vs {a['gits']}"
        chk.ok(msg) if same else chk.fail(msg)

    return runs, judge


chk.execute([
    plan("2D", 2, 17),
    plan("2D", 2, 33),
    plan("2D eps 0.01", 2, 33, ["-eps", "0.01"]),
    plan("3D", 3, 9),
    plan("3D", 3, 17),
])
