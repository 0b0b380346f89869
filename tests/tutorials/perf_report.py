"""The Markdown table and the ratio chart of run_perf.py's results.json.

Ratios are aij / diag (aijcusparse / diag with --gpu): above 1 diag is
faster. table.md holds one row per case and a summary (median and
geometric mean of the wall-time ratios, the slowest cases); ratios.png the
wall-time ratios sorted, with lines at 0.9 and 1.0 (written only where
matplotlib is importable).
"""
import math
import os
import statistics


def _fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def _ratio(x):
    return "-" if x is None else f"{x:.2f}x"


# Events that hold no other event of the list (the solve, set-up and
# Jacobian events hold them): where the time of a case differs is told by these.
LEAF_EVENTS = ["MatAssemblyEnd", "MatFDColorApply", "MatMult", "MatMultAdd", "MatMultTranspose", "MatSOR", "MatSolve",
               "MatLUFactorNum", "MatILUFactorSym", "MatPtAPSymbolic", "MatPtAPNumeric", "MatMatMultNum", "MatResidual",
               "MatCreateSubMat", "MatConvert", "MatGetDiagonal", "SNESFunctionEval", "VecMDot", "VecMAXPY"]


def event_times(r, variant):
    """Each event's least time over a case's repeated runs of one variant."""
    out = {}
    for run in r.get("runs", {}).get(variant, []):
        if run.get("rc") != 0:
            continue
        for k, v in run.get("events", {}).items():
            out[k] = min(out.get(k, v["time"]), v["time"])
    return out


def differences(r):
    """(event, aij time, diag time) of the leaf events, largest |difference| first."""
    a, d = event_times(r, "aij"), event_times(r, "diag")
    rows = [(e, a.get(e, 0.0), d.get(e, 0.0)) for e in LEAF_EVENTS if e in a or e in d]
    return sorted(rows, key=lambda x: -abs(x[2] - x[1]))


def ran(data):
    return [r for r in data["cases"] if r.get("status") == "ran" and r.get("wall_ratio")]


def summary(data):
    rs = ran(data)
    if not rs:
        return {}
    w = [r["wall_ratio"] for r in rs]
    m = [r["main_ratio"] for r in rs if r.get("main_ratio")]
    return {"cases": len(rs), "median": statistics.median(w), "geomean": math.exp(sum(map(math.log, w)) / len(w)),
            "min": min(w), "max": max(w), "below_0.9": sum(x < 0.9 for x in w), "below_1": sum(x < 1.0 for x in w),
            "main_median": statistics.median(m) if m else None,
            "slowest": [r["name"] for r in sorted(rs, key=lambda r: r["wall_ratio"])[:5]]}


def stamp_line(data):
    s = data["stamp"]
    peer = "aijcusparse" if s.get("gpu") else "aij"
    bits = [f"PETSc {s.get('petsc_version')}", f"scale `{s.get('scale')}`", f"{peer} against diag",
            f"{s.get('gpu') or s.get('cpu')}", f"{s.get('nproc')} cores",
            (f"{s['jobs']} cases at a time" + (f", each on its own GPU of {s['gpus']}" if s.get("gpus") else ""))
            if (s.get("jobs") or 1) > 1 else "",
            f"load average {' '.join(s.get('load_before') or [])} before, {' '.join(s.get('load_after') or [])} after",
            f"commit {s.get('commit')}", f"plugin md5 {s.get('plugin_md5', '')[:12]}",
            f"started {s.get('started')}" + (f", finished {s['finished']}" if s.get("finished") else " (unfinished)")]
    return "; ".join(b for b in bits if b)


def table(data):
    s = data["stamp"]
    peer = "aijcusparse" if s.get("gpu") else "aij"
    lines = [f"| case | scale | unknowns | {peer} wall (s) | diag wall (s) | wall ratio | main event: ratio | "
             f"largest event difference ({peer} / diag s) | agree |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |"]
    for r in data["cases"]:
        name = f"`{r['name']}`"
        if r.get("status") != "ran":
            lines.append(f"| {name} | {r.get('scale_args', '')} | | | | | {r.get('status')}: {(r.get('detail') or '')[:80]} | | |")
            continue
        main = f"{r.get('main_event')}: {_ratio(r.get('main_ratio'))}" if r.get("main_event") else "-"
        agree = r.get("agree", "")
        if agree not in ("agree",):
            agree += ": " + (r.get("agree_detail") or "")[:60].replace("|", "\\|")
        conv = f" (converted to {', '.join(r['converted_to'])})" if r.get("converted_to") else ""
        scale = r.get("scale_args") or "(the test's own)"
        diff = differences(r)
        big = f"{diff[0][0]} {diff[0][1]:.2f} / {diff[0][2]:.2f}" if diff else "-"
        lines.append(f"| {name} | {scale} | {r.get('unknowns') or '-'} | "
                     f"{_fmt(r.get('aij_wall'))} | {_fmt(r.get('diag_wall'))} | **{_ratio(r.get('wall_ratio'))}** | "
                     f"{main} | {big} | {agree}{conv} |")
    return lines


def markdown(data):
    out = ["# Performance battery over PETSc's tutorials", "",
           f"`{data['stamp'].get('command')}`", "", stamp_line(data), "",
           "Ratios: aij (aijcusparse with CUDA vectors) time over diag time; above 1 diag is faster. "
           "Wall: the whole program (mpiexec included); main event: KSPSolve, SNESSolve or TSSolve "
           "(TSStep where PETSc has no TSSolve event) from -log_view.", ""]
    if len(data.get("history", [])) > 1:  # cases run again (--only) or continued (--resume)
        out += ["The results combine these invocations (a later one replaces the cases it ran again):", ""]
        out += [f"- {h.get('started')}: `{h.get('command')}` ({h.get('cases')} cases; load average "
                f"{' '.join(h.get('load_before') or [])}; commit {h.get('commit')})" for h in data["history"]]
        out.append("")
    sm = summary(data)
    if sm:
        out += [f"{sm['cases']} cases ran both ways: wall-time ratio median **{sm['median']:.2f}x**, geometric mean "
                f"{sm['geomean']:.2f}x, range {sm['min']:.2f}x-{sm['max']:.2f}x; {sm['below_1']} below 1.0, "
                f"{sm['below_0.9']} below 0.9; main-event ratio median {_ratio(sm['main_median'])}. "
                f"Slowest (lowest ratio): {', '.join('`' + n + '`' for n in sm['slowest'])}.", ""]
    return out + table(data) + [""] + event_totals(data) + [""]


def event_totals(data):
    """The leaf events' times summed over the cases that ran, both ways."""
    rs = ran(data)
    tot = {}
    for r in rs:
        for e, a, d in differences(r):
            t = tot.setdefault(e, [0.0, 0.0, 0])
            t[0] += a
            t[1] += d
            t[2] += 1
    if not tot:
        return []
    peer = "aijcusparse" if data["stamp"].get("gpu") else "aij"
    lines = [f"Events summed over the {len(rs)} cases (seconds; -log_view of the fastest run of each):", "",
             f"| event | cases | {peer} | diag | diag - {peer} |", "| --- | ---: | ---: | ---: | ---: |"]
    for e, (a, d, n) in sorted(tot.items(), key=lambda kv: -(kv[1][1] - kv[1][0])):
        if max(a, d) >= 0.05:
            lines.append(f"| {e} | {n} | {a:.2f} | {d:.2f} | {d - a:+.2f} |")
    return lines


def chart(data, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rs = sorted(ran(data), key=lambda r: r["wall_ratio"])
    if not rs:
        return False
    s = data["stamp"]
    fig, ax = plt.subplots(figsize=(max(8, 0.28 * len(rs) + 2), 5.5))
    x = range(len(rs))
    colors = ["#c0392b" if r["wall_ratio"] < 0.9 else "#e67e22" if r["wall_ratio"] < 1.0 else "#2e86c1" for r in rs]
    ax.bar(x, [r["wall_ratio"] for r in rs], color=colors, label="wall time")
    mains = [(i, r["main_ratio"]) for i, r in enumerate(rs) if r.get("main_ratio")]
    if mains:
        ax.plot([i for i, _ in mains], [m for _, m in mains], "k.", markersize=6, label="main event (solve)")
    for y, style in ((1.0, "-"), (0.9, "--")):
        ax.axhline(y, color="gray", linestyle=style, linewidth=1)
    ax.set_xticks(list(x))
    ax.set_xticklabels([r["name"] for r in rs], rotation=70, ha="right", fontsize=7)
    peer = "aijcusparse" if s.get("gpu") else "aij"
    ax.set_ylabel(f"{peer} time / diag time (above 1: diag faster)")
    ax.set_title(f"PETSc {s.get('petsc_version')} tutorials, scale '{s.get('scale')}', "
                 f"{(s.get('gpu') or s.get('cpu') or '').split(',')[0]}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write(data, outdir):
    """Writes table.md and ratios.png; returns lines to print."""
    md = os.path.join(outdir, "table.md")
    with open(md, "w") as f:
        f.write("\n".join(markdown(data)))
    lines = [f"table: {md}"]
    png = os.path.join(outdir, "ratios.png")
    lines.append(f"chart: {png}" if chart(data, png) else "chart: not drawn (no matplotlib, or no case ran)")
    sm = summary(data)
    if sm:
        lines.append(f"{sm['cases']} cases: wall ratio median {sm['median']:.2f}x, geomean {sm['geomean']:.2f}x, "
                     f"{sm['below_0.9']} below 0.9")
    return lines
