#!/usr/bin/python3
"""Time-to-solution plot and Markdown table of bench/pcs.py's runs (pcs.csv).

Input: one or more pcs.csv files (several device calls, one part of the
table each, e.g. one per case or per PETSc version); a later line for the
same (case, n, np, PETSc, matrix type, PC) replaces an earlier one, unless
only the earlier ran to the end.
Outputs (--out, default docs/img):
  pcs-<case>-<n>.png   per PC, set-up (PCSetUp) and solve (KSPSolve) stacked,
                       diag beside the peer; runs that failed or hit their
                       time limit are marked
and on stdout a Markdown table per case: iterations, PCSetUp, KSPSolve, its
GPU time, set-up + solve, whole-program wall time, and peer / diag ratios.
Rerun: /usr/bin/python3 bench/plot_pcs.py OUT/pcs.csv [more.csv ...] [--out DIR] [--tag h100]
"""
import argparse
import csv
import os
from collections import OrderedDict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLORS = {"diag": ("#2171b5", "#9ecae1"), "peer": ("#d94801", "#fdae6b")}


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, TypeError, ValueError):
        return None


def load(paths):
    """The rows of all files; a run stopped before PETSc printed its version
    takes its case's only version; of several rows of one (case, n, np,
    PETSc, type, PC) the last that ran to the end wins, else the last."""
    rows = []
    for path in paths:
        with open(path) as f:
            rows += list(csv.DictReader(f))
    versions = {}
    for r in rows:
        if r.get("petsc"):
            versions.setdefault((r["case"], r["n"], r["np"]), set()).add(r["petsc"])
    for r in rows:
        v = versions.get((r["case"], r["n"], r["np"]), set())
        if not r.get("petsc") and len(v) == 1:
            r["petsc"] = next(iter(v))
    kept = OrderedDict()
    for r in rows:
        key = (r["case"], r["n"], r["np"], r.get("petsc", ""), r["mat"], r["pc"])
        if key not in kept or r["status"] == "ok" or kept[key]["status"] != "ok":
            kept[key] = r
    return list(kept.values())


def is_diag(mat):
    return mat.startswith("diag")


def fmt(v, spec="{:.3f}"):
    return "-" if v is None else spec.format(v)


def table(case_rows, pcs, mats):
    peer = [m for m in mats if not is_diag(m)]
    head = "| PC | type | its | PCSetUp s | KSPSolve s | KSPSolve GPU s | set-up + solve s | wall s | peer/diag solve | peer/diag set-up+solve | peer/diag wall |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for pc in pcs:
        by = {r["mat"]: r for r in case_rows if r["pc"] == pc}
        for m in mats:
            r = by.get(m)
            if r is None:
                continue
            ok = r["status"] == "ok"
            setup, solve, wall = num(r, "pcsetup_s"), num(r, "kspsolve_s"), num(r, "wall_s")
            total = setup + solve if ok and setup is not None and solve is not None else None
            ratios = ["", "", ""]
            if is_diag(m) and ok and peer and peer[0] in by and by[peer[0]]["status"] == "ok":
                p = by[peer[0]]
                pt = (num(p, "pcsetup_s") or 0) + (num(p, "kspsolve_s") or 0)
                ratios = [fmt(num(p, "kspsolve_s") / solve, "{:.2f}x") if solve else "-", fmt(pt / total, "{:.2f}x") if total else "-",
                          fmt(num(p, "wall_s") / wall, "{:.2f}x") if wall else "-"]
            status = "" if ok else f" ({r['status']})"
            print(f"| {pc} | {m}{status} | {r.get('its') or '-'} | {fmt(setup if ok else None)} | {fmt(solve if ok else None)} | "
                  f"{fmt(num(r, 'kspsolve_gpu_s') if ok else None)} | {fmt(total)} | {fmt(wall if ok else None, '{:.1f}')} | " + " | ".join(ratios) + " |")


def plot(case, n, case_rows, pcs, mats, out, tag, file_tag):
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(pcs)), 4.2))
    width = 0.8 / max(1, len(mats))
    top = max([(num(r, "pcsetup_s") or 0) + (num(r, "kspsolve_s") or 0) for r in case_rows if r["status"] == "ok"] or [1])
    labelled = set()
    for j, m in enumerate(mats):
        dark, light = COLORS["diag" if is_diag(m) else "peer"]
        for i, pc in enumerate(pcs):
            r = next((r for r in case_rows if r["pc"] == pc and r["mat"] == m), None)
            x = i + (j - (len(mats) - 1) / 2) * width
            if r is None:
                continue
            if r["status"] != "ok":
                ax.text(x, top * 0.02, r["status"].split("(")[0], rotation=90, ha="center", va="bottom", fontsize=7, color=dark)
                continue
            s, t = num(r, "pcsetup_s") or 0, num(r, "kspsolve_s") or 0
            first = m not in labelled
            labelled.add(m)
            ax.bar(x, s, width, color=light, edgecolor=dark, label=f"{m} set-up" if first else None)
            ax.bar(x, t, width, bottom=s, color=dark, label=f"{m} solve" if first else None)
            ax.text(x, s + t, r.get("its") or "", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(pcs)))
    ax.set_xticklabels([p.replace("_", "\n", 1) for p in pcs], fontsize=8)
    ax.set_ylabel("time to solution (PCSetUp + KSPSolve), s")
    petsc = ", ".join(sorted({r.get("petsc") or "?" for r in case_rows}))
    ax.set_title(f"{case} {n}^3, CG rtol 1e-8 (PETSc {petsc}{', ' + tag if tag else ''}); numbers: iterations", fontsize=9)
    if labelled:
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, f"pcs-{case}-{n}{'-' + file_tag if file_tag else ''}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"))
    ap.add_argument("--tag", default="")
    args = ap.parse_args()
    rows = load(args.csv)
    os.makedirs(args.out, exist_ok=True)
    groups = OrderedDict()
    for r in rows:
        groups.setdefault((r["case"], r["n"], r["np"], r.get("petsc", "")), []).append(r)
    for (case, n, np_, petsc), case_rows in groups.items():
        pcs = list(OrderedDict.fromkeys(r["pc"] for r in case_rows))
        mats = sorted(OrderedDict.fromkeys(r["mat"] for r in case_rows), key=lambda m: not is_diag(m))
        print(f"\n### {case}, {n}^3, {np_} process(es), PETSc {petsc or '?'}\n")
        table(case_rows, pcs, mats)
        print(f"\n{plot(case, n, case_rows, pcs, mats, args.out, args.tag, '-'.join(x for x in (args.tag, 'petsc' + petsc if petsc else '') if x))}")


if __name__ == "__main__":
    main()
