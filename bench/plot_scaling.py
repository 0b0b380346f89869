#!/usr/bin/python3
"""PNG plots and a Markdown table of a multi-GPU scaling run (bench/scaling.sh's scaling.csv).

Input: scaling.csv, one line per (case, processes, format) from bench_scaling (weak: n^3 rows per
process; strong: n^3 rows in all), ours (diag) and the peer (aijcusparse) in each run.
Outputs (--out, default docs/img):
  scaling-weak.png     weak scaling efficiency t(1) / t(p) of MatMult and of a CG + Jacobi iteration
  scaling-strong.png   strong scaling speed-up t(1) / t(p), with the ideal line
  scaling-ratio.png    peer / diag time per MatMult and per CG iteration at each process count
and the table (Markdown) on stdout, to paste into docs/performance.md.
Rerun: /usr/bin/python3 bench/plot_scaling.py OUT/scaling.csv [--out DIR] [--tag h100]
"""
import argparse
import csv
import os
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLORS = ["#2171b5", "#d94801"]


def load(path):
    """{case: {format: {np: row}}} and the formats in file order (ours first)."""
    data = defaultdict(lambda: defaultdict(dict))
    formats = []
    with open(path) as f:
        for r in csv.DictReader(f):
            for k in ("mult_s", "cg_it_s", "hidden", "exchange_s", "local_s", "mult_reldiff", "cg_resdiff", "relres", "setup_s"):
                r[k] = float(r[k])
            data[r["case"]][r["format"]][int(r["np"])] = r
            if r["format"] not in formats:
                formats.append(r["format"])
    return data, formats


def series(by_np, key):
    nps = sorted(by_np)
    return nps, [by_np[p][key] for p in nps]


def plot_case(data, formats, case, ylabel, title, out, transform):
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key, what in zip(axes, ("mult_s", "cg_it_s"), ("MatMult", "CG + Jacobi iteration")):
        for fmt, color in zip(formats, COLORS):
            by_np = data[case].get(fmt, {})
            if 1 not in by_np:
                continue
            nps, t = series(by_np, key)
            ax.plot(nps, [transform(t[0], x, p) for x, p in zip(t, nps)], "o-", color=color, label=fmt)
        if case == "strong":
            nps = sorted({p for fmt in formats for p in data[case].get(fmt, {})})
            ax.plot(nps, nps, "k--", lw=0.8, label="ideal")
        else:
            ax.axhline(1.0, color="k", ls="--", lw=0.8)
            ax.axhline(0.85, color="grey", ls=":", lw=0.8, label="85%")
        ax.set_xscale("log", base=2)
        ticks = sorted({p for fmt in formats for p in data[case].get(fmt, {})})
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(p) for p in ticks])
        ax.set_xlabel("GPUs (MPI processes)")
        ax.set_ylabel(ylabel)
        ax.set_title(what)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"))
    ap.add_argument("--tag", default="", help="suffix of the PNG names (e.g. the GPU kind)")
    a = ap.parse_args()
    data, formats = load(a.csv)
    os.makedirs(a.out, exist_ok=True)
    tag = ("-" + a.tag) if a.tag else ""
    if "weak" in data:
        n = next(iter(next(iter(data["weak"].values())).values()))["n"]
        plot_case(data, formats, "weak", "efficiency t(1) / t(p)", f"weak scaling, {n}^3 rows per GPU",
                  os.path.join(a.out, f"scaling-weak{tag}.png"), lambda t1, t, p: t1 / t)
    if "strong" in data:
        n = next(iter(next(iter(data["strong"].values())).values()))["n"]
        plot_case(data, formats, "strong", "speed-up t(1) / t(p)", f"strong scaling, {n}^3 rows",
                  os.path.join(a.out, f"scaling-strong{tag}.png"), lambda t1, t, p: t1 / t)
    if len(formats) == 2:
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        for ax, key, what in zip(axes, ("mult_s", "cg_it_s"), ("MatMult", "CG + Jacobi iteration")):
            for case, style in (("weak", "o-"), ("strong", "s--")):
                if case not in data:
                    continue
                ours, peer = data[case].get(formats[0], {}), data[case].get(formats[1], {})
                nps = sorted(set(ours) & set(peer))
                ax.plot(nps, [peer[p][key] / ours[p][key] for p in nps], style, label=case)
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_xscale("log", base=2)
            ticks = sorted({p for c in data for f in formats for p in data[c].get(f, {})})
            ax.set_xticks(ticks)
            ax.set_xticklabels([str(p) for p in ticks])
            ax.set_xlabel("GPUs (MPI processes)")
            ax.set_ylabel(f"{formats[1]} / {formats[0]} time")
            ax.set_title(what)
            ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, f"scaling-ratio{tag}.png"), dpi=120)
        plt.close(fig)
    # the table
    print("| case | GPUs | format | MatMult (us) | CG it. (us) | MatMult eff./speed-up | CG eff./speed-up "
          "| peer/diag MatMult | peer/diag CG | exchange hidden | MatMult max rel. diff | CG residual rel. diff |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for case in ("weak", "strong"):
        for fmt in formats:
            by_np = data.get(case, {}).get(fmt, {})
            for p in sorted(by_np):
                r = by_np[p]
                base = by_np.get(1)
                def scale(key):
                    if not base:
                        return "-"
                    s = base[key] / r[key]
                    return f"{s:.2f}" if case == "weak" else f"{s:.2f}x"
                other = data[case].get(formats[1 - formats.index(fmt)] if len(formats) == 2 else fmt, {}).get(p)
                ours, peer = (r, other) if fmt == formats[0] else (other, r)
                ratio = (lambda key: f"{peer[key] / ours[key]:.2f}x") if (ours and peer) else (lambda key: "-")
                hidden = f"{100 * r['hidden']:.0f}%" if r["hidden"] >= 0 else "-"
                print(f"| {case} {r['n']}^3 | {p} | {fmt} | {1e6 * r['mult_s']:.1f} | {1e6 * r['cg_it_s']:.1f} | {scale('mult_s')} "
                      f"| {scale('cg_it_s')} | {ratio('mult_s')} | {ratio('cg_it_s')} | {hidden} | {r['mult_reldiff']:.1e} | {r['cg_resdiff']:.1e} |")
    # the strong case is one problem: its CG residual must not depend on the GPU count
    for fmt in formats:
        by_np = data.get("strong", {}).get(fmt, {})
        if len(by_np) > 1:
            res = {p: by_np[p]["relres"] for p in sorted(by_np)}
            spread = (max(res.values()) - min(res.values())) / max(min(res.values()), 1e-300)
            print(f"\nstrong case, {fmt}: CG relative residual after {by_np[min(by_np)]['cg_its']} iterations by GPU count "
                  + ", ".join(f"{p}: {r:.10e}" for p, r in res.items()) + f" (relative spread {spread:.1e})")


if __name__ == "__main__":
    main()
