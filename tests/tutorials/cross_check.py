#!/usr/bin/env python3
"""Which answer a GPU tutorial run that did not agree should have given.

run_compat.py --gpu takes aijcusparse as the reference, and aijcusparse is
not always right (docs/compatibility.md, "With CUDA vectors"). For each GPU
run that did not agree, this compares diag's GPU output and aijcusparse's
with aij's output on the CPU (host vectors) for the same test, from a CPU
run of the same tutorials that kept every output:

    run_compat.py --work CPU --only '<the ids>' --keep-outputs all ...   # on the CPU
    cross_check.py GPU/results.json CPU/results.json [--out table.md]

Prints one row per run: the GPU category, whether diag (GPU) agrees with aij
(CPU), whether aijcusparse (GPU) does, and the first difference of each.
--ids prints the ids to rerun on the CPU as one --only expression.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import outcompare  # noqa: E402

NOT_AGREE = ("differ", "agree-within-1-iteration")


def verdict(ref, out):
    cat, detail = outcompare.compare(ref, out)
    return ("agrees" if cat == "agree" else cat), detail


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gpu")
    ap.add_argument("cpu", nargs="?")
    ap.add_argument("--ids", action="store_true", help="print the --only expression of the GPU runs that did not agree")
    ap.add_argument("--out", help="write the table (Markdown) here")
    a = ap.parse_args()
    gpu = [r for r in json.load(open(a.gpu))["runs"] if r["category"] in NOT_AGREE]
    if a.ids:
        print("^(" + "|".join(re.escape(r["id"]) for r in gpu) + ")$")
        return 0
    if not a.cpu:
        ap.error("give the CPU results.json")
    cpu = {r["id"]: r for r in json.load(open(a.cpu))["runs"]}
    rows = ["| run | GPU: diag vs aijcusparse | diag (GPU) vs aij (CPU) | aijcusparse (GPU) vs aij (CPU) |",
            "| --- | --- | --- | --- |"]
    tally = {}
    for r in gpu:
        c = cpu.get(r["id"])
        if not c or "outputs" not in c or "outputs" not in r:
            cells = ["no CPU output kept", ""]
        else:
            ref = c["outputs"]["aij"]
            cells = []
            for name in ("diag", "aij"):  # the GPU run's "aij" is aijcusparse
                v, d = verdict(ref, r["outputs"][name])
                cells.append(v + (f": {d[:110]}" if d else ""))
        key = (cells[0].split(":")[0], cells[1].split(":")[0])
        tally[key] = tally.get(key, 0) + 1
        rows.append(f"| {r['id']} | {r['category']} | " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    rows.append("")
    for (d, s), n in sorted(tally.items(), key=lambda kv: -kv[1]):
        rows.append(f"- {n} runs: diag (GPU) {d} with aij (CPU); aijcusparse {s}")
    text = "\n".join(rows) + "\n"
    if a.out:
        open(a.out, "w").write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
