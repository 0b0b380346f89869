#!/usr/bin/env python3
"""Runs an example under mpiexec for ctest and checks its output.

  check_example.py --mpiexec MPIEXEC --np N [--gpu] [--expect REGEX]...
                   [--max-error TOL] -- PROGRAM [ARGS...]

Fails (exit 1) when the program fails, when a --expect regular expression
matches no line of its output, or when the last number after the word
"error" exceeds --max-error. --gpu: without an NVIDIA GPU (nvidia-smi -L
fails) the example is skipped (exit 77, ctest's SKIP_RETURN_CODE).
"""
import argparse
import re
import shutil
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--max-error", type=float)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command
    if a.gpu:
        smi = shutil.which("nvidia-smi")
        if not smi or subprocess.run([smi, "-L"], capture_output=True).returncode != 0:
            print("SKIPPED: no NVIDIA GPU on this machine")
            return 77
    run = [a.mpiexec, "--oversubscribe", "-n", str(a.np)] + cmd
    print("$ " + " ".join(run), flush=True)
    p = subprocess.run(run, capture_output=True, text=True)
    out = p.stdout + p.stderr
    print(out, end="")
    if p.returncode != 0:
        print(f"FAILED: exit status {p.returncode}")
        return 1
    ok = True
    for rx in a.expect:
        if not re.search(rx, out, re.MULTILINE):
            print(f"FAILED: no output line matches {rx!r}")
            ok = False
    if a.max_error is not None:
        errs = re.findall(r"\berror\b[^0-9\n]*([0-9.]+(?:e[-+]?[0-9]+)?)", out)
        if not errs:
            print("FAILED: the output reports no error value")
            ok = False
        elif float(errs[-1]) > a.max_error:
            print(f"FAILED: error {errs[-1]} > {a.max_error}")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
