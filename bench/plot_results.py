#!/usr/bin/python3
"""PNG plots of the benchmark CSVs in docs/results (ours = diag, peer = PETSc's AIJ types).

Inputs (each written by one run of a bench/ program, ours and the peer on the same matrices):
  gpu-h100-products.csv    bench_products on the H100: `bash .gpu/run-all.sh benchprod` (its $OUT/products.csv;
                           scripts/device/run-all.sh: Table 2, banded n=1e6, diag x dense)
  gpu-h100-bench-run3.csv  bench_matmult on the H100: `bash .gpu/run-all.sh bench256` (its $OUT/bench.csv)
  gpu-h100-bench-run2.csv  the same, an earlier run (drawn as markers over run 3's bars);
                           in both, the second "constant" row is -mat_diag_compress_constant 0
  cpu-bench.csv            bench_matmult on one core, diag vs seqaij: `bash bench/cpu.sh`
  cpu-products.csv         bench_products on one core, diag vs seqaij: `bash bench/products.sh`
Outputs (docs/img): gpu-products.png (A), gpu-matmult.png (B), cpu-matmult.png (C),
cpu-products.png (D); the ratios each plot shows are printed to stdout.
Rerun: /usr/bin/python3 bench/plot_results.py [--results DIR] [--out DIR]
"""
import argparse
import csv
import math
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
C = {"first": "#9ecae1", "reuse": "#2171b5", "atomic": "#6baed6", "pfirst": "#fdae6b",
     "preuse": "#d94801", "spmm": "#756bb1", "diag": "#2171b5", "peer": "#d94801"}


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def box(c):  # a legend handle
    return plt.Rectangle((0, 0), 1, 1, color=c)


def save(fig, path):
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    print("wrote", os.path.relpath(path, ROOT))


def gpu_products(res, out):
    """A: product times on the H100, diag vs aijcusparse (and a direct cuSPARSE SpMM)."""
    groups = {}  # (label, product) -> {series: seconds}
    for r in rows(os.path.join(res, "gpu-h100-products.csv")):
        lab = ("dense k=%s" % r["dgb"][5:] if r["dgb"].startswith("dense") else
               ("T2 %sx%s" if r["n"] == "10000" else "band %sx%s") % (r["dga"], r["dgb"]))
        g = groups.setdefault((lab, r["product"]), {})
        if r["ours"] == "diag":
            g["ours first"], g["ours reuse (diag)"] = float(r["first_s"]), float(r["reuse_s"])
        else:
            g["diag_atomic reuse"] = float(r["reuse_s"])
        if r["peer"] == "cusparseSpMM":
            g["cuSPARSE SpMM (direct)"] = float(r["peer_reuse_s"])
        else:
            g["aijcusparse first"], g["aijcusparse reuse"] = float(r["peer_first_s"]), float(r["peer_reuse_s"])
    series = [("ours first", C["first"]), ("ours reuse (diag)", C["reuse"]),
              ("diag_atomic reuse", C["atomic"]), ("aijcusparse first", C["pfirst"]),
              ("aijcusparse reuse", C["preuse"]), ("cuSPARSE SpMM (direct)", C["spmm"])]
    print("\nA gpu-products.png: H100 times (ms); ratios aijcusparse/diag (first, reuse), diag_atomic/diag reuse")
    print("%-18s %9s %9s %9s %9s %9s %8s %8s %8s" % ("config", "first", "reuse", "atomic", "cusp 1st",
                                                     "cusp re", "x first", "x reuse", "atom/dg"))
    for (lab, p), g in groups.items():
        ms = [g.get(s, math.nan) * 1e3 for s, _ in series[:5]]
        print("%-18s %9.3f %9.3f %9.3f %9.3f %9.3f %8.1f %8.2f %8.2f" % (
            lab + " " + p, *ms, ms[3] / ms[0], ms[4] / ms[1], ms[2] / ms[1]))
        if "cuSPARSE SpMM (direct)" in g:
            print("%-18s cuSPARSE SpMM direct %.3f ms = %.2fx ours reuse" % (
                "", g["cuSPARSE SpMM (direct)"] * 1e3, g["cuSPARSE SpMM (direct)"] / g["ours reuse (diag)"]))
    panels = [("AB", [k for k in groups if k[1] == "AB"]),
              ("AtB and ABt", [k for k in groups if k[1] != "AB"])]
    fig, axes = plt.subplots(2, 1, figsize=(13, 10))
    for ax, (title, keys) in zip(axes, panels):
        ax.set(yscale="log", ylim=(0.08, 2000), ylabel="time (ms, log)")
        for i, k in enumerate(keys):
            present = [(s, c) for s, c in series if s in groups[k]]
            w = 0.8 / len(present)
            for j, (s, c) in enumerate(present):
                x, v = i - 0.4 + w * (j + 0.5), groups[k][s] * 1e3
                if math.isnan(v):  # the peer failed: a hatched bar to the top, one label per group
                    ax.bar(x, 2000 - 0.08, w, bottom=0.08, fill=False, hatch="//", edgecolor=c, lw=0.8)
                    if s == "aijcusparse reuse":
                        ax.text(x - w / 2, 300, "failed", ha="center", va="center", fontsize=9, weight="bold",
                                bbox={"fc": "white", "ec": "black", "lw": 0.5, "pad": 2})
                else:
                    ax.bar(x, v, w, color=c, edgecolor="black", lw=0.4)
        sp = [groups[k]["aijcusparse reuse"] / groups[k]["ours reuse (diag)"] for k in keys]
        ax.set_xticks(range(len(keys)), ["%s %s\n" % k + ("peer failed" if math.isnan(x) else "reuse %.1fx" % x)
                                         for k, x in zip(keys, sp)], fontsize=9)
        ax.grid(axis="y", which="major", alpha=0.3)
        ax.set_title("%s: diag (diagcuda) vs aijcusparse on one H100; x-label ratio = aijcusparse reuse / diag reuse"
                     % title, fontsize=10)
    axes[0].legend([box(c) for _, c in series], [s for s, _ in series], ncol=3, fontsize=9, loc="upper right")
    fig.text(0.01, 0.005, "T2 = the paper's Table 2 (n=1e4); band = banded n=1e6; dense k = 9-diagonal band "
             "(n=1e6) x dense n x k.  'failed': aijcusparse ran out of cuSPARSE resources "
             "(INSUFFICIENT_RESOURCES).", fontsize=8)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    save(fig, os.path.join(out, "gpu-products.png"))


def gpu_matmult(res, out):
    """B: MatMult / MatMultTranspose on the H100, run 3 bars, run 2 markers."""
    r3 = rows(os.path.join(res, "gpu-h100-bench-run3.csv"))
    r2 = rows(os.path.join(res, "gpu-h100-bench-run2.csv"))
    labs = ["%sD %s-pt %s^%s\n%s%s" % (r["dim"], r["points"], r["n"], r["dim"], r["coef"], " (no compress)"
            if any(q["coef"] == r["coef"] for q in r3[:i]) else "") for i, r in enumerate(r3)]
    fig, ax = plt.subplots(figsize=(12, 5.5))
    print("\nB gpu-matmult.png: H100 median times (us), run 3 (run 2); speedup = aijcusparse/diag")
    ticks, ticklabs = [], []
    for i, r in enumerate(r3):
        for j, (op, ou, pe) in enumerate([("MatMult", "mult_s", "peer_mult_s"),
                                          ("MatMultTranspose", "multt_s", "peer_multt_s")]):
            x0 = i * 2.6 + j * 1.1
            d, p = float(r[ou]) * 1e6, float(r[pe]) * 1e6
            ax.bar(x0 - 0.2, d, 0.4, color=C["diag"], edgecolor="black", lw=0.4)
            ax.bar(x0 + 0.2, p, 0.4, color=C["peer"], edgecolor="black", lw=0.4)
            ax.text(x0, max(d, p) + 25, "%.2fx" % (p / d), ha="center", fontsize=10, weight="bold")
            msg = ""
            if i < len(r2):
                d2, p2 = float(r2[i][ou]) * 1e6, float(r2[i][pe]) * 1e6
                ax.plot([x0 - 0.2, x0 + 0.2], [d2, p2], "k_", ms=14, mew=2)
                msg = "   run2: %6.1f %7.1f %5.2fx" % (d2, p2, p2 / d2)
            print("%-38s %-16s diag %6.1f  aijcusparse %7.1f  %5.2fx%s" % (
                labs[i].replace("\n", " "), op, d, p, p / d, msg))
            ticks.append(x0)
            ticklabs.append(op)
        ax.text(i * 2.6 + 0.55, -0.075, labs[i], transform=ax.get_xaxis_transform(), ha="center",
                va="top", fontsize=10)
    ax.set_xticks(ticks, ticklabs, fontsize=9)
    ax.set(ylim=(0, 1300), ylabel="median time (us)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend([box(C["diag"]), box(C["peer"]), plt.Line2D([], [], color="k", marker="_", ls="", ms=14, mew=2)],
              ["diag", "aijcusparse", "run 2 (earlier run)"], loc="upper right", ncol=3)
    ax.set_title("MatMult on one H100, %.1fM rows, CUDA vectors: diag vs aijcusparse (run 3; "
                 "number = aijcusparse/diag)" % (int(r3[0]["rows"]) / 1e6), fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    save(fig, os.path.join(out, "gpu-matmult.png"))


def cpu_matmult(res, out):
    """C: CPU MatMult speedup seqaij/diag: stencils vs rows, random diagonals vs their count."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 5))
    print("\nC cpu-matmult.png: one core, speedup seqaij/diag (MatMult, MatMultT, assembly)")
    curves = {}
    for r in rows(os.path.join(res, "cpu-bench.csv")):
        sp = [float(r[p]) / float(r[o]) for o, p in [("mult_s", "peer_mult_s"), ("multt_s", "peer_multt_s"),
                                                  ("asm_s", "peer_asm_s")]]
        rand = r["n"] == r["rows"]  # random-diagonal matrices: n is the row count, not a grid side
        key = "random diagonals, n=%s" % r["n"] if rand else "%sD %s-point, %s coef." % (
            r["dim"], r["points"], r["coef"])
        curves.setdefault(key, []).append((int(r["points"] if rand else r["rows"]), sp))
        print("%-32s %-12s %5.2fx %5.2fx %5.2fx" % (
            key, ("%s diagonals" % r["points"]) if rand else "%s^3" % r["n"], *sp))
    ticks = {a1: set(), a2: set()}
    for m, (key, pts) in zip("osD^v<>", curves.items()):
        ax, xs = a2 if key.startswith("random") else a1, [p[0] for p in pts]
        ticks[ax].update(xs)
        ln, = ax.plot(xs, [p[1][0] for p in pts], "-" + m, label=key + ": MatMult")
        ax.plot(xs, [p[1][1] for p in pts], "--" + m, color=ln.get_color(), mfc="none",
                label=key + ": MatMultTranspose")
    for ax, xl, t in [(a1, "rows (grid side^3)", "3D stencils, sizes 64^3 to 160^3"),
                      (a2, "number of diagonals", "paper's random diagonals (n = 10^4)")]:
        ax.set(xscale="log", xlabel=xl, ylim=(0, 3.2), ylabel="speedup seqaij / diag")
        ax.set_xticks(sorted(ticks[ax]), minor=False)
        ax.set_xticks([], minor=True)
        ax.set_xticklabels(["%d^3\n%.2gM" % (round(t ** (1 / 3)), t / 1e6) if ax is a1 else str(t)
                            for t in sorted(ticks[ax])])
        ax.axhline(1, color="gray", lw=0.8)
        ax.grid(alpha=0.3)
        ax.set_title(t, fontsize=10)
        ax.legend(fontsize=8, loc="lower right")
    fig.suptitle("CPU MatMult, one core: speedup of diag over seqaij (median times, same run)", fontsize=11)
    fig.tight_layout()
    save(fig, os.path.join(out, "cpu-matmult.png"))


def cpu_products(res, out):
    """D: CPU product speedup seqaij/diag, first and reuse, per configuration and product."""
    rs = rows(os.path.join(res, "cpu-products.csv"))
    prods = ["AB", "AtB", "ABt"]
    cfgs = list(dict.fromkeys((r["n"], r["dga"], r["dgb"]) for r in rs))
    sp = {(r["n"], r["dga"], r["dgb"], r["product"]):
          (float(r["peer_first_s"]) / float(r["first_s"]), float(r["peer_reuse_s"]) / float(r["reuse_s"])) for r in rs}
    print("\nD cpu-products.png: one core, speedup seqaij/diag (first, reuse)")
    print("%-16s" % "n dga x dgb" + "".join("%16s" % p for p in prods))
    for c in cfgs:
        print("%-16s" % ("%s %sx%s" % c) + "".join("%7.1fx %6.1fx" % sp[c + (p,)] for p in prods))
    fig, axes = plt.subplots(3, 1, figsize=(12, 9), sharex=True)
    x = range(len(cfgs))
    for ax, p in zip(axes, prods):
        for j, dx, lab in ((0, -0.2, "first (symbolic + numeric)"), (1, 0.2, "reuse (numeric only)")):
            v = [sp[c + (p,)][j] for c in cfgs]
            ax.bar([i + dx for i in x], v, 0.4, color=C[("first", "reuse")[j]], edgecolor="black", lw=0.4,
                   label=lab)
            for i in x:
                ax.text(i + dx, v[i] * 1.08, "%.0f" % v[i] if v[i] >= 10 else "%.1f" % v[i], ha="center",
                        fontsize=7)
        ax.set(yscale="log", ylim=(1, 2000), ylabel="%s: seqaij/diag" % p)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=9, loc="upper left", ncol=2)
    axes[-1].set_xticks(list(x), ["n=%s\n%sx%s" % c for c in cfgs], fontsize=9)
    axes[-1].set_xlabel("configuration (n, diagonals of A x diagonals of B): the paper's Table 1, "
                        "then Table 2 row 1")
    fig.suptitle("CPU MatProduct, one core: speedup of diag over seqaij (log scale)", fontsize=11)
    fig.tight_layout()
    save(fig, os.path.join(out, "cpu-products.png"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.path.join(ROOT, "docs", "results"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for plot in (gpu_products, gpu_matmult, cpu_matmult, cpu_products):
        plot(a.results, a.out)


if __name__ == "__main__":
    main()
