#!/usr/bin/env python3
"""Runs an unmodified PETSc tutorial twice, with the reference matrix type
and with diag (loaded with -dll_append), and requires the same output: the
same words and iteration counts, every number within a relative tolerance.

usage: compare.py --np N --exe PROG --ref "OPTS" --diag "OPTS" [--common "OPTS"] [--rtol 1e-10]
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

NUM = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def run(args, opts):
    cmd = [args.mpiexec, "--oversubscribe", "-n", str(args.np), args.exe] + shlex.split(args.common) + shlex.split(opts)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=300)
    print("$ " + " ".join(shlex.quote(c) for c in cmd))
    print(p.stdout, end="")
    if p.returncode != 0:
        sys.exit(f"FAILED: exit code {p.returncode}")
    return words(p.stdout)


LAUNCHER_NOISE = re.compile(r"^\[[\w.-]+:\d+\] ")  # "[host:pid] ..." lines of the MPI launcher
LAUNCHER_CONTINUATION = re.compile(r"^\s+(dlopen error|Perhaps a missing symbol|compiled for a different version)")


def words(text):
    """The output's words, without the blocks describing the matrix (a
    KSPView names the matrix type and its storage, which differ by design)
    and without the MPI launcher's own messages."""
    kept, skip_indent, after_launcher = [], None, False
    for line in text.splitlines():
        if LAUNCHER_NOISE.match(line):
            after_launcher = True
            continue
        # its continuation lines ("    dlopen error: ...", "    Perhaps a missing
        # symbol ..."), but not the program's own indented lines that follow
        if after_launcher and LAUNCHER_CONTINUATION.match(line):
            continue
        after_launcher = False
        indent = len(line) - len(line.lstrip())
        if skip_indent is not None:
            if indent > skip_indent:
                continue
            skip_indent = None
        if "Mat Object" in line:
            skip_indent = indent
            continue
        kept.append(line)
    return "\n".join(kept).replace("=", " = ").replace(",", " , ").split()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--exe", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--diag", required=True)
    ap.add_argument("--common", default="")
    ap.add_argument("--rtol", type=float, default=1e-10)
    ap.add_argument("--atol", type=float, default=0.0, help="differences below this are rounding noise")
    args = ap.parse_args()
    a, b = run(args, args.ref), run(args, args.diag)
    if len(a) != len(b):
        sys.exit(f"FAILED: outputs differ in length ({len(a)} vs {len(b)} words)")
    numbers = 0
    for x, y in zip(a, b):
        if NUM.match(x) and NUM.match(y):
            fx, fy = float(x), float(y)
            if abs(fx - fy) > max(args.atol, args.rtol * max(abs(fx), abs(fy))):
                sys.exit(f"FAILED: {x} (ref) vs {y} (diag) differ by more than rtol {args.rtol}")
            numbers += 1
        elif x != y:
            sys.exit(f"FAILED: '{x}' (ref) vs '{y}' (diag)")
    if numbers == 0:
        sys.exit("FAILED: the output holds no number to compare")
    print(f"same output: {len(a)} words, {numbers} numbers within rtol {args.rtol}")


if __name__ == "__main__":
    main()
