#!/usr/bin/env python3
"""Convergence plot of a solver of solvers/: runs it on successively refined
grids (or time steps), reads the discretization error it prints, prints the
measured orders and draws error against h (or dt) on log-log axes, with a
reference line of the promised slope, into a PNG.

Each --series LABEL OPTIONS LEVELS ORDER is one line of the plot:

  LABEL    the legend text
  OPTIONS  the solver's options for this series, one string ("-dim 2 -da_grid_x 17 -da_grid_y 17")
  LEVELS   comma-separated: -da_refine levels (--x h; each level halves h of
           the grid OPTIONS give), or -ts_dt values (--x dt, for heat)
  ORDER    the promised order p: a dashed reference line C h^p is drawn

The matrix type is -dm_mat_type diag unless --mat-type says otherwise; the
program's own "matrix ..." line is checked, so a figure cannot silently come
from another type. The x value is read back from what the program prints
(the grid "n^d" gives h = 1/(n-1); "of dt X" gives dt), not assumed.

Example (from the repository root, a build in build-helper-solvers):

  /usr/bin/python3 solvers/plot_convergence.py --exe build-helper-solvers/solvers/poisson \\
      --out docs/img/conv_poisson.png --title "poisson" \\
      --series "2D 5-point" "-dim 2 -da_grid_x 17 -da_grid_y 17" 0,1,2,3 2

Needs matplotlib (Debian's python3-matplotlib, in /usr/bin/python3's path)."""
import argparse
import concurrent.futures
import math
import os
import re
import shlex
import subprocess
import sys

NUM = r"([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?)"


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exe", required=True, help="the solver binary")
    ap.add_argument("--out", required=True, help="the PNG to write")
    ap.add_argument("--title", default="")
    ap.add_argument("--series", nargs=4, action="append", required=True, metavar=("LABEL", "OPTIONS", "LEVELS", "ORDER"))
    ap.add_argument("--x", choices=("h", "dt"), default="h", help="refine the grid (-da_refine) or the time step (-ts_dt)")
    ap.add_argument("--norm", choices=("max", "L2"), default="max", help="which printed error norm to plot")
    ap.add_argument("--mat-type", default="diag", help="-dm_mat_type of every run (default diag)")
    ap.add_argument("--np", type=int, default=1, help="processes; 1 runs the program without mpiexec")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time")
    return ap.parse_args()


def run(args, opts):
    """Runs the solver once; returns (x, error, iterations, matrix type, output)."""
    cmd = [args.exe] + opts + ["-dm_mat_type", args.mat_type]
    if args.np > 1:
        cmd = [args.mpiexec, "--oversubscribe", "-n", str(args.np)] + cmd
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=600)
    text = out.stdout
    where = "$ " + " ".join(shlex.quote(c) for c in cmd) + "\n" + text

    def find(pat):
        m = re.search(pat, text, re.MULTILINE)
        if not m:
            sys.exit(f"plot_convergence.py: no match for {pat!r} in the output of\n{where}")
        return m.group(1)

    if out.returncode:
        sys.exit(f"plot_convergence.py: exit code {out.returncode}:\n{where}")
    # heat prints "error" (space and time) and "time error" (the integrator
    # alone, against the ODE system's exact solution): a dt study wants the latter.
    label = "time error" if args.x == "dt" else "error[^:\n]*"
    err = re.search(rf"^{label}: max {NUM}, L2 {NUM}", text, re.MULTILINE)
    if not err:
        sys.exit(f"plot_convergence.py: no error line (a manufactured solution) in the output of\n{where}")
    err = float(err.group(1 if args.norm == "max" else 2))
    x = float(find(r"of dt " + NUM)) if args.x == "dt" else 1.0 / (int(find(r"grid (\d+)\^")) - 1)
    return x, err, int(find(r"KSP iterations (\d+)")), find(r"^matrix (\S+?),?(?:\s|$)"), where


def slope(xs, ys):
    """Least-squares slope of log y against log x: the order over the whole study."""
    lx, ly = [math.log(v) for v in xs], [math.log(v) for v in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main():
    args = parse_args()
    plans = []  # (label, promised order, option lists)
    for label, opts, levels, order in args.series:
        base = shlex.split(opts)
        flag = "-ts_dt" if args.x == "dt" else "-da_refine"
        plans.append((label, float(order), [base + [flag, v.strip()] for v in levels.split(",")]))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        results = [list(ex.map(lambda o: run(args, o), runs)) for _, _, runs in plans]

    print(f"# {os.path.basename(args.exe)}, -dm_mat_type {args.mat_type}, {args.np} process(es), {args.norm} error against {args.x}")
    series = []
    for (label, order, _), res in zip(plans, results):
        res.sort(key=lambda r: -r[0])  # coarse to fine
        types = sorted({r[3] for r in res})
        if args.mat_type == "diag" and not all("diag" in t for t in types):
            sys.exit(f"plot_convergence.py: {label}: asked for diag, the program reports {types}")
        xs, errs = [r[0] for r in res], [r[1] for r in res]
        fit = slope(xs, errs)
        print(f"## {label} (promised order {order:g}; matrix {', '.join(types)})")
        print(f"{args.x:>10} {'iterations':>10} {'error':>12} {'ratio':>7} {'order':>6}")  # ratio, order: against the row above
        for k, (x, e, its, _, _) in enumerate(res):
            step = ""
            if k:
                ratio = errs[k - 1] / e
                step = f"{ratio:7.2f} {math.log(ratio) / math.log(xs[k - 1] / x):6.2f}"
            print(f"{x:10.6g} {its:10d} {e:12.4e} {step}".rstrip())
        last = math.log(errs[-2] / errs[-1]) / math.log(xs[-2] / xs[-1]) if len(xs) > 1 else math.nan
        print(f"measured order: {fit:.2f} (least-squares fit), {last:.2f} (last step)")
        series.append((label, order, xs, errs, fit, last))

    import matplotlib

    matplotlib.use("Agg")  # no display: write the file only
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.6 + 0.22 * len(series)), dpi=100)
    # Different markers, every other one open: series can coincide (poisson's
    # 2D and 3D errors are equal, see docs/solvers.md) and must stay visible.
    for k, (label, order, xs, errs, fit, last) in enumerate(series):
        ax.loglog(xs, errs, "-", marker="os^Dv<>"[k % 7], ms=8 if k % 2 else 5, mfc="none" if k % 2 else None,
                  label=f"{label}: {fit:.2f} (fit), {last:.2f} (last step)")
    # One reference line per promised order, through the smallest error of the
    # series promising it, shifted down by 2 so that it does not hide the data.
    for order in sorted({s[1] for s in series}):
        mine = [s for s in series if s[1] == order]
        lo = min(min(s[2]) for s in mine)
        hi = max(max(s[2]) for s in mine)
        anchor = min(mine, key=lambda s: s[3][-1])
        c = 0.5 * anchor[3][-1] / anchor[2][-1] ** order
        ax.loglog([lo, hi], [c * lo**order, c * hi**order], "k--", lw=0.9, alpha=0.7)
        ax.annotate(f"slope {order:g}", (hi, c * hi**order), textcoords="offset points", xytext=(4, -4), fontsize=9, ha="left", va="top")
    ax.set_xlabel("h (grid spacing)" if args.x == "h" else "dt (time step)")
    ax.set_ylabel(f"{args.norm} {'time error' if args.x == 'dt' else 'error'}")
    ax.set_title(args.title, fontsize=11)
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    # below the axes: inside, it hides points of one series or another
    ax.legend(fontsize=9, title=f"-dm_mat_type {args.mat_type}, {args.np} process(es); measured order", title_fontsize=8,
              loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)
    ax.margins(x=0.15)
    fig.tight_layout()
    tmp = args.out + ".tmp"  # written whole, then renamed: no half-written PNG on failure
    fig.savefig(tmp, format="png")
    os.replace(tmp, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
