#!/usr/bin/env python3
"""Checks solvers/heat on a fixed grid (33^2, 17^3), against the exact
solution of the semi-discrete system u' = L u (the 'time error'): backward
Euler is first order (the error falls ~2x when dt halves), Crank-Nicolson
second order (~4x); the three ways of building the Jacobian shift I - L
(MatCopy+MatScale+MatShift, MatZeroEntries+MatShift+MatAXPY, in-place
re-assembly) give identical runs on diag; diag agrees with aij (errors to
1e-8 relative).

The iteration count compared is the total over all time steps (one CG solve
per step): a solve can stop one iteration earlier or later when its residual
lands within round-off of the tolerance, and over tens of solves that happens
now and then (aij on 1 and on 2 processes differ the same way), so totals
must agree to 1%; the errors must agree to 1e-8."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from solvercheck import Check, grid  # noqa: E402

FIRST = (1.7, 2.3)
SECOND = (3.4, 4.6)
chk = Check(__doc__)


def steps(label, dim, n, ts, dts, band, aij_dt):
    base = ["-ts_type", ts, "-ts_max_time", "0.1"] + grid(dim, n)
    runs = [base + ["-ts_dt", str(dt), "-dm_mat_type", "diag"] for dt in dts]
    runs.append(base + ["-ts_dt", str(aij_dt), "-dm_mat_type", "aij"])

    def judge(res):
        chk.order(label, res[: len(dts)], band[0], band[1], key="terr")
        chk.agree(f"{label} dt={aij_dt}", res[dts.index(aij_dt)], res[-1], ("terr", "err"), its_tol=0.01)

    return runs, judge


def jacobians(label, dim, n):
    base = ["-ts_type", "cn", "-ts_dt", "0.01", "-ts_max_time", "0.1", "-dm_mat_type", "diag"] + grid(dim, n)
    runs = [base + ["-jacobian", j] for j in ("copy", "axpy", "assemble")]

    def judge(res):
        for name, r in zip(("axpy", "assemble"), res[1:]):
            same = all(r.get(k) == res[0].get(k) for k in ("its", "err", "terr", "steps"))
            msg = f"{label}: -jacobian {name} vs copy: iterations {r.get('its')} vs {res[0].get('its')}, time error {r.get('terr')} vs {res[0].get('terr')}"
            chk.ok(msg + " (identical)") if same else chk.fail(msg + " (not identical)")

    return runs, judge


chk.execute([
    steps("2D backward Euler", 2, 33, "beuler", [0.01, 0.005, 0.0025], FIRST, 0.01),
    steps("2D Crank-Nicolson", 2, 33, "cn", [0.01, 0.005, 0.0025], SECOND, 0.01),
    steps("3D Crank-Nicolson", 3, 17, "cn", [0.01, 0.005], SECOND, 0.01),
    jacobians("2D Crank-Nicolson", 2, 33),
])
