#!/usr/bin/env python3
"""Where a solve's time goes: the runs of bench/pcs.py (same programs, same
options) with PETSc's nested log (-log_view :file:ascii_flamegraph, PETSc
>= 3.20) and -pc_mg_log, then the solve (the top-level KSPSolve, not the
Chebyshev estimates inside PCSetUp) summed by event and, for multigrid, by
level. A diagnostic, not a benchmark: every kernel launch is made
synchronous (CUDA_LAUNCH_BLOCKING=1, BREAKDOWN_BLOCKING=0 to leave it off)
so that each event's host time holds its GPU work; the totals are longer
than pcs.py's.

Which events are whose: with -dm_mat_type diag the level operators' MatMult,
MatResidual, MatSolve (coarse LU) and MatSOR are diag's (GAMG: on the finest
level only; its coarser levels are aijcusparse); the grid transfers
(MatMultAdd, MatMultTranspose of the interpolation) are aijcusparse's in
the aijcusparse runs and, since 2026-11-27, diag's formula for a DMDA's
interpolation in the diag runs (-pc_mg_diag_structured_transfer 0: aijcusparse's
there too); Vec* events are PETSc's CUDA vectors in both.

Environment: as bench/pcs.py (PCS_N, PCS_CASES, PCS_PCS, PCS_TYPES,
PCS_TIMEOUT, PCS_BUDGET, PCS_EXTRA, BIN, LIB, OUT). Writes
OUT/fg.<case>.<pc>.<type>.txt (the nested log) and prints the summaries.
Summarize existing files only: breakdown.py FILE...
"""
import collections
import os
import shlex
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcs  # noqa: E402

DIAG_OWNED = ("MatMult", "MatResidual", "MatSolve", "MatSOR")


def program_stack(stack):
    """A line's events below the stage ("Main Stage") and PETSc's "User
    time" (present in some programs' logs, not in others')."""
    parts = stack.split(";")[1:]
    return parts[1:] if parts and parts[0] == "User time" else parts


def solve_stacks(path):
    """(stack, self seconds) of every line under the top-level KSPSolve
    (the program's solve, not one inside PCSetUp)."""
    out = []
    with open(path) as f:
        for line in f:
            stack, _, us = line.rstrip("\n").rpartition(" ")
            parts = program_stack(stack)
            if parts and parts[0] == "KSPSolve":
                out.append((parts, float(us) * 1e-6))
    return out


def total_seconds(path):
    with open(path) as f:
        return sum(float(line.rpartition(" ")[2]) * 1e-6 for line in f if line.strip())


def top_level(path):
    """Inclusive seconds of each top-level event ("User time": outside any event)."""
    c = collections.Counter()
    with open(path) as f:
        for line in f:
            stack, _, us = line.rstrip("\n").rpartition(" ")
            parts = program_stack(stack)
            c[parts[0] if parts else "outside any event"] += float(us) * 1e-6
    return c


def summarize(path):
    st = solve_stacks(path)
    solve = sum(s for _, s in st)
    by_event = collections.Counter()
    by_level = collections.Counter()
    ops_by_level = collections.Counter()  # level operators' events per level ("outer": the Krylov method's own)
    for parts, s in st:
        by_event[parts[-1]] += s
        level = next((p for p in reversed(parts) if p.startswith("MG") and "Level" in p), None)
        if level:
            by_level[level.split("Level")[-1].strip()] += s
        if parts[-1] in DIAG_OWNED:
            ops_by_level[level.split("Level")[-1].strip() if level else "outer"] += s
    print(f"== {os.path.basename(path)}: whole log {total_seconds(path):.3f} s, solve {solve * 1e3:.1f} ms")
    print("   the program: " + ", ".join(f"{e} {v:.3f} s" for e, v in top_level(path).most_common(10)))
    owned = sum(s for e, s in by_event.items() if e in DIAG_OWNED)
    vec = sum(s for e, s in by_event.items() if e.startswith("Vec"))
    transfer = sum(s for e, s in by_event.items() if e in ("MatMultAdd", "MatMultTranspose"))
    print(f"   level operators (MatMult, MatResidual, MatSolve, MatSOR) {owned * 1e3:8.2f} ms, "
          f"vectors (Vec*) {vec * 1e3:8.2f} ms, transfers (MatMultAdd/Transpose) {transfer * 1e3:8.2f} ms, "
          f"rest {(solve - owned - vec - transfer) * 1e3:8.2f} ms")
    for e, s in by_event.most_common(14):
        print(f"   {e:24} {s * 1e3:9.2f} ms")
    if by_level:
        print("   by level (self times under MG* Level k): " + ", ".join(f"{k}: {v * 1e3:.2f} ms" for k, v in sorted(by_level.items())))
        print("   level operators by level: " + ", ".join(f"{k}: {v * 1e3:.2f} ms" for k, v in sorted(ops_by_level.items())))


def main():
    if len(sys.argv) > 1:
        for p in sys.argv[1:]:
            summarize(p)
        return
    binroot = pcs.env("BIN", os.path.join(pcs.HERE, "bin"))
    args = {
        "n": int(pcs.env("PCS_N", "257")), "vec": pcs.env("PCS_VEC", "cuda"), "np": 1, "bin": binroot,
        "diffusion": pcs.env("DIFFUSION", os.path.join(binroot, "diffusion")),
        "lib": os.path.abspath(pcs.env("LIB", os.path.join(binroot, "..", "lib", "libpetscdiag.so"))),
        "extra": pcs.env("PCS_EXTRA", ""),
    }
    out = pcs.env("OUT", "/tmp/out")
    os.makedirs(out, exist_ok=True)
    if pcs.env("BREAKDOWN_BLOCKING", "1") == "1":
        os.environ["CUDA_LAUNCH_BLOCKING"] = "1"
    types = pcs.env("PCS_TYPES", "diag aijcusparse").split()
    cases = pcs.env("PCS_CASES", "ex45").split()
    wanted = pcs.env("PCS_PCS", "mg_galerkin_jacobi").split()
    timeout, budget, start = float(pcs.env("PCS_TIMEOUT", "120")), float(pcs.env("PCS_BUDGET", "540")), time.monotonic()
    for case in cases:
        for name, applies, opts in pcs.CONFIGS:
            if name not in wanted or case not in applies:
                continue
            for mat in types:
                left = budget - (time.monotonic() - start)
                if left < min(timeout, 10.0):
                    print(f"{case} {name} {mat}: skipped (budget)")
                    continue
                fg = os.path.join(out, f"fg.{case}.{name}.{mat}.txt")
                cmd = pcs.command(case, opts.format(L=pcs.env("PCS_LEVELS", "5")), mat, args)
                cmd = [c for c in cmd if c != "-log_view_gpu_time"]
                cmd[cmd.index("-log_view")] = f"-log_view :{fg}:ascii_flamegraph"
                cmd = shlex.split(" ".join(cmd)) + ["-pc_mg_log"]
                status, wall, _ = pcs.run(cmd, min(timeout, left), os.path.join(out, f"fg.{case}.{name}.{mat}.log"))
                print(f"{case} {name} {mat}: {status}, wall {wall:.1f} s")
                if status == "ok" and os.path.exists(fg):
                    summarize(fg)


if __name__ == "__main__":
    main()
