#!/usr/bin/env python3
"""Checks solvers/poisson: second-order convergence (the max error falls
about 4x when h halves) in 2D and 3D, and diag agreeing with aij (the same
iteration count, errors within 1e-8 relative)."""
import argparse
import os
import re
import subprocess
import sys


def run(args, opts):
    cmd = [args.mpiexec, "--oversubscribe", "-n", str(args.np), args.exe] + opts
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=240)
    print("$ " + " ".join(cmd) + "\n" + out.stdout, end="")
    if out.returncode:
        sys.exit(f"FAILED: exit code {out.returncode}")
    its = int(re.search(r"KSP iterations (\d+)", out.stdout).group(1))
    err = float(re.search(r"error: max (\S+),", out.stdout).group(1))
    return its, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--exe", required=True)
    args = ap.parse_args()
    failures = 0
    for dim, sizes in ((2, (17, 33, 65)), (3, (9, 17, 33))):
        errs = []
        for n in sizes:
            grid = ["-da_grid_x", str(n), "-da_grid_y", str(n)] + (["-da_grid_z", str(n)] if dim == 3 else [])
            its_d, err_d = run(args, ["-dim", str(dim)] + grid + ["-dm_mat_type", "diag"])
            its_a, err_a = run(args, ["-dim", str(dim)] + grid + ["-dm_mat_type", "aij"])
            if its_d != its_a or abs(err_d - err_a) > 1e-8 * err_a:
                print(f"FAILED: {dim}D n={n}: diag {its_d} its err {err_d} vs aij {its_a} its err {err_a}")
                failures += 1
            errs.append(err_d)
        for coarse, fine in zip(errs, errs[1:]):
            ratio = coarse / fine
            print(f"{dim}D error ratio {ratio:.2f}")
            if not 3.2 < ratio < 4.8:
                print(f"FAILED: {dim}D error ratio {ratio:.2f} is not ~4 (second order)")
                failures += 1
    print(f"{6 - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
