#!/usr/bin/env python3
"""Runs an unmodified PETSc tutorial twice, with the reference matrix type
and with diag (loaded with -dll_append), and requires the same output: the
same words and iteration counts, every number within a relative tolerance.

usage: compare.py --np N --exe PROG --ref "OPTS" --diag "OPTS" [--common "OPTS"] [--rtol 1e-10]
                  [--diag-system-type REGEX] [--diag-expect REGEX ...]

--diag-system-type: every operator a -ksp_view of the diag run prints (the
"linear system matrix" of each KSP: each multigrid level, each sub-solve)
must have a type matching REGEX, and there must be at least one.
--diag-expect: the diag run's output must hold a line matching REGEX (e.g.
a -info message; PETSc's -info lines are not compared).
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

NUM = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def system_types(text):
    """The type of each "linear system matrix" block of a KSPView."""
    types, pending = [], False
    for line in text.splitlines():
        if "linear system matrix" in line:
            pending = True
        elif pending and line.strip().startswith("type:"):
            types.append(line.split("type:", 1)[1].strip())
            pending = False
    return types


def run(args, opts, raw=None):
    cmd = [args.mpiexec, "--oversubscribe", "-n", str(args.np), args.exe] + shlex.split(args.common) + shlex.split(opts)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=300)
    print("$ " + " ".join(shlex.quote(c) for c in cmd))
    print(p.stdout, end="")
    if p.returncode != 0:
        sys.exit(f"FAILED: exit code {p.returncode}")
    if raw is not None:
        raw.append(p.stdout)
    return words(p.stdout)


LAUNCHER_NOISE = re.compile(r"^\[[\w.-]+:\d+\] ")  # "[host:pid] ..." lines of the MPI launcher
INFO_LINE = re.compile(r"^\[\d+\] <[\w:.-]+> ")  # PETSc's -info output
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
        if INFO_LINE.match(line):
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
    ap.add_argument("--diag-system-type", default=None, help="regex every operator in the diag run's -ksp_view must match")
    ap.add_argument("--diag-expect", action="append", default=[], help="regex a line of the diag run's output must match")
    args = ap.parse_args()
    raw = []
    a, b = run(args, args.ref), run(args, args.diag, raw)
    if args.diag_system_type:
        types = system_types(raw[0])
        if not types:
            sys.exit("FAILED: the diag run printed no linear system matrix (is -ksp_view given?)")
        bad = [t for t in types if not re.fullmatch(args.diag_system_type, t)]
        if bad:
            sys.exit(f"FAILED: operators of type {sorted(set(bad))} in the diag run, expected /{args.diag_system_type}/")
        print(f"{len(types)} operators of the diag run match /{args.diag_system_type}/")
    for pattern in args.diag_expect:
        if not any(re.search(pattern, line) for line in raw[0].splitlines()):
            sys.exit(f"FAILED: no line of the diag run matches /{pattern}/")
        print(f"the diag run has a line matching /{pattern}/")
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
