"""What the check_*.py scripts of solvers/ share: run a solver under mpiexec
(a few runs at a time: a run spends most of its half second starting MPI,
not computing), read what it prints, and judge the order of convergence and
the agreement of diag with aij."""
import argparse
import concurrent.futures
import math
import os
import re
import subprocess
import sys

NUM = r"([-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf))"


def parse(text):
    """The numbers a solver prints, by name (absent ones left out)."""
    found = {}
    pats = {
        "its": r"KSP iterations (\d+)",
        "err": r"^error[^:\n]*: max " + NUM,
        "err_l2": r"^error[^:\n]*: max \S+, L2 " + NUM,
        "terr": r"^time error: max " + NUM,
        "umax": r"solution max " + NUM,
        "residual": r"residual norm " + NUM,
        "steps": r"time steps (\d+)",
    }
    for key, pat in pats.items():
        m = re.search(pat, text, re.MULTILINE)
        if m:
            found[key] = int(m.group(1)) if key in ("its", "steps") else float(m.group(1))
    return found


class Check:
    def __init__(self, doc):
        ap = argparse.ArgumentParser(description=doc)
        ap.add_argument("--mpiexec", default="mpiexec")
        ap.add_argument("--np", type=int, default=1)
        ap.add_argument("--exe", required=True)
        ap.add_argument("--jobs", type=int, default=4, help="runs at a time")
        self.args = ap.parse_args()
        self.passed = 0
        self.failed = 0

    def _one(self, opts):
        cmd = [self.args.mpiexec, "--oversubscribe", "-n", str(self.args.np), self.args.exe] + opts
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        try:
            out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=120)
            text, rc = out.stdout, out.returncode
        except subprocess.TimeoutExpired as e:
            text = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            rc = "timeout"
        res = parse(text)
        res["ok"] = rc == 0
        res["log"] = "$ " + " ".join(cmd) + "\n" + text + ("" if rc == 0 else f"[exit {rc}]\n")
        return res

    def run(self, runs):
        """Runs every option list in runs; returns their parsed outputs, in order."""
        with concurrent.futures.ThreadPoolExecutor(self.args.jobs) as ex:
            results = list(ex.map(self._one, runs))
        for r in results:
            print(r["log"], end="")
            if not r["ok"]:
                self.fail("the run above failed")
        return results

    def study(self, label, opts, dim, sizes, band, aij_at, key="err", agree_keys=("err",), its_tol=0):
        """Plans a refinement study: opts on the grids of sizes (diag), each ratio of key
        in band, and the run at size aij_at repeated with aij, compared. Returns the
        runs and their judge, for execute()."""
        runs = [opts + grid(dim, n) + ["-dm_mat_type", "diag"] for n in sizes]
        runs.append(opts + grid(dim, aij_at) + ["-dm_mat_type", "aij"])

        def judge(res):
            if band:
                self.order(label, res[: len(sizes)], band[0], band[1], key)
            self.agree(f"{label} n={aij_at}", res[sizes.index(aij_at)], res[-1], agree_keys, its_tol=its_tol)

        return runs, judge

    def execute(self, plans):
        """plans: (runs, judge) pairs; all runs go in one pool, then every judge sees its results."""
        flat = [r for runs, _ in plans for r in runs]
        res = self.run(flat)
        at = 0
        for runs, judge in plans:
            judge(res[at : at + len(runs)])
            at += len(runs)
        self.finish()

    def fail(self, msg):
        print("FAILED: " + msg)
        self.failed += 1

    def ok(self, msg):
        print("ok: " + msg)
        self.passed += 1

    def order(self, label, values, lo, hi, key="err"):
        """values: results on successive halvings of h (or dt); every ratio in [lo, hi]."""
        vals = [v.get(key, math.nan) for v in values]
        for coarse, fine in zip(vals, vals[1:]):
            ratio = coarse / fine if fine else math.inf
            msg = f"{label}: {key} {coarse:.4e} -> {fine:.4e}, ratio {ratio:.2f} (order {math.log2(ratio) if ratio > 0 else math.nan:.2f}), expected in [{lo}, {hi}]"
            if lo <= ratio <= hi:
                self.ok(msg)
            else:
                self.fail(msg)

    def agree(self, label, d, a, keys=("err",), rtol=1e-8, its_tol=0):
        """diag (d) and aij (a): the same KSP iteration count (within its_tol, relative),
        and the given numbers equal to rtol, relative."""
        bad = []
        di, ai = d.get("its"), a.get("its")
        if di is None or ai is None or abs(di - ai) > its_tol * ai:
            bad.append(f"iterations {di} vs {ai}")
        for k in keys:
            x, y = d.get(k, math.nan), a.get(k, math.nan)
            if not abs(x - y) <= rtol * abs(y):
                bad.append(f"{k} {x!r} vs {y!r}")
        msg = f"{label}: diag vs aij, iterations {di} vs {ai}, " + ", ".join(f"{k} {d.get(k)} vs {a.get(k)}" for k in keys)
        if bad:
            self.fail(msg + " (" + "; ".join(bad) + ")")
        else:
            self.ok(msg)

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


def grid(dim, n):
    return ["-dim", str(dim), "-da_grid_x", str(n), "-da_grid_y", str(n)] + (["-da_grid_z", str(n)] if dim == 3 else [])
