#!/usr/bin/env python3
"""The preconditioner table: diag against the peer (aijcusparse)
on the same GPU, same tolerance, one program run per (case, PC, type).

Cases (N^3 grid points, CG, -ksp_rtol 1e-8):
  ex45       PETSc's ksp ex45, 3D Poisson (constant coefficients), loaded with
             -dll_append for diag; its DMDA rediscretizes multigrid levels
  diffusion  solvers/diffusion -dim 3 -coef checkerboard -contrast 1000
             (coefficient jumps of 10^3); it cannot rediscretize: its
             multigrid is Galerkin's only
PCs: jacobi, sor, bjacobi + ILU(0), mg rediscretized with Chebyshev/Jacobi
and with SOR smoothers (ex45), mg Galerkin with Jacobi (the issue's peer
configuration: -pc_mg_levels 5 -mg_levels_pc_type jacobi -pc_mg_galerkin)
and with SOR smoothers, mg Galerkin with PCMG's smoother as the plugin's fused
PCCHEBYJACOBI (both types), gamg (also with PCCHEBYJACOBI smoothers).

Each run: -log_view -log_view_gpu_time; parsed into one CSV line
(pcs.csv): iterations, converged reason, PCSetUp and KSPSolve time (max
over ranks), KSPSolve's GPU time (its flops over its GPU flop rate) and
host<->device copies, the whole program's wall time, the exit status
("ok", "fail", "timeout": every run has a time limit, PCS_TIMEOUT).

Environment (all optional):
  PCS_N        grid points per direction (default 257; PCS_QUICK=1: 65)
  PCS_TYPES    matrix types (default "diag aijcusparse")
  PCS_VEC      vector type (default cuda; "standard" on a machine without GPU)
  PCS_CASES    cases (default "ex45 diffusion")
  PCS_PCS      PC names (default all, see CONFIGS)
  PCS_NP       MPI processes (default 1: the program runs without mpiexec)
  PCS_TIMEOUT  seconds per run (default 120)
  PCS_BUDGET   seconds for all runs (default 540, under the device tool's 10 minutes a
               command): a run that would start later is listed as "skipped"
  PCS_LEVELS   multigrid levels (default 5)
  PCS_EXTRA    options appended to every run
  PCS_PETSC    the PETSc version for runs that stop before -log_view names it
  BIN          folder of tut_ksp_ex45 and diffusion (default bin/ beside this script)
  LIB          libpetscdiag.so (default BIN/../lib/libpetscdiag.so)
  OUT          output folder (default /tmp/out): pcs.csv, pcs.<case>.<pc>.<type>.log

Dry run on a machine without GPU (host vectors, aij as the peer), from a build folder:
  PCS_QUICK=1 PCS_N=33 PCS_TYPES="diag aij" PCS_VEC=standard BIN=build/tests/tutorials \\
    DIFFUSION=build/solvers/diffusion LIB=build/lib/libpetscdiag.so python3 bench/pcs.py
"""
import csv
import os
import re
import shlex
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (cases it applies to, options); {L} = multigrid levels. In the order
# they run: the peer configuration first, aijcusparse's host SOR
# (slowest) last, so that a budget that runs out drops the least telling.
CONFIGS = [
    ("mg_galerkin_jacobi", ("ex45", "diffusion"), "-pc_type mg -pc_mg_levels {L} -pc_mg_galerkin -mg_levels_pc_type jacobi"),
    # the smoother of mg_galerkin_jacobi (PCMG's Chebyshev with Jacobi, 2 steps, the same
    # eigenvalue estimate), each step one fused update (PCCHEBYJACOBI of the
    # plugin, loaded for both types)
    ("mg_galerkin_chebyjacobi", ("ex45", "diffusion"),
     "-pc_type mg -pc_mg_levels {L} -pc_mg_galerkin -mg_levels_ksp_type richardson -mg_levels_pc_type chebyjacobi"),
    ("gamg", ("ex45", "diffusion"), "-pc_type gamg"),
    ("gamg_chebyjacobi", ("ex45", "diffusion"), "-pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type chebyjacobi"),
    ("mg_redisc_cheb_jacobi", ("ex45",), "-pc_type mg -pc_mg_levels {L} -mg_levels_ksp_type chebyshev -mg_levels_pc_type jacobi"),
    ("jacobi", ("ex45", "diffusion"), "-pc_type jacobi"),
    ("bjacobi_ilu0", ("ex45", "diffusion"), "-pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_levels 0"),
    ("mg_galerkin_sor", ("ex45", "diffusion"), "-pc_type mg -pc_mg_levels {L} -pc_mg_galerkin -mg_levels_pc_type sor"),
    ("mg_redisc_sor", ("ex45",), "-pc_type mg -pc_mg_levels {L} -mg_levels_pc_type sor"),
    ("sor", ("ex45", "diffusion"), "-pc_type sor"),
]

FIELDS = ["case", "n", "np", "petsc", "mat", "vec", "pc", "status", "its", "reason", "pcsetup_s", "kspsolve_s",
          "kspsolve_gpu_s", "kspsolve_h2d", "kspsolve_d2h", "wall_s", "timeout_s", "log"]


def env(name, default):
    v = os.environ.get(name)
    return default if v is None or v == "" else v


def event(text, name):
    """The -log_view line of event `name` as a list of fields, or None."""
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == name and len(f) >= 5:
            return f
    return None


def parse(text, nprocs=1):
    """Iterations, reason, times and copies from a run's output."""
    r = {}
    m = re.findall(r"Linear solve (converged|did not converge) due to (\S+) iterations (\d+)", text)
    if m:
        r["reason"], r["its"] = m[-1][1], int(m[-1][2])
    m = re.search(r"Using (?:PETSc|[Pp]etsc) Release Version (\S+?),", text)  # 3.25 writes "PETSc"
    if m:
        r["petsc"] = m.group(1)
    for name, key in (("PCSetUp", "pcsetup_s"), ("KSPSolve", "kspsolve_s")):
        f = event(text, name)
        if f:
            r[key] = float(f[3])  # Time (sec) Max
    f = event(text, "KSPSolve")
    # a PETSc with a device adds: GPU-Mflop/s, CpuToGpu count, size, GpuToCpu count, size, GPU %F
    # (GPU Mflop/s = GPU flops over all processes / max GPU time); 21 fields before them
    if f and len(f) >= 27:
        try:
            flop_max, gpu_mflops, gpu_frac = float(f[5]), float(f[21]), float(f[26]) / 100.0
            r["kspsolve_h2d"], r["kspsolve_d2h"] = int(float(f[22])), int(float(f[24]))
            if gpu_mflops > 0 and gpu_frac > 0:  # GPU time = GPU flops / GPU flop rate (flops over ranks ~ max x np)
                r["kspsolve_gpu_s"] = gpu_frac * flop_max * nprocs / (gpu_mflops * 1e6)
        except ValueError:
            pass
    return r


def command(case, pc_opts, mat, args):
    common = f"-ksp_type cg -ksp_rtol 1e-8 -ksp_converged_reason -log_view -log_view_gpu_time -dm_vec_type {args['vec']}"
    grid = "-da_grid_x {0} -da_grid_y {0} -da_grid_z {0}".format(args["n"])
    if case == "ex45":
        exe = os.path.join(args["bin"], "tut_ksp_ex45")
        opts = f"{grid} -dm_mat_type {mat}"
        if mat.startswith("diag") or "chebyjacobi" in pc_opts:
            opts += f" -dll_append {args['lib']}"
    else:
        exe = args["diffusion"]
        opts = f"-dim 3 -coef checkerboard -contrast 1000 {grid} -dm_mat_type {mat}"
    cmd = [exe] + shlex.split(opts) + shlex.split(common) + shlex.split(pc_opts) + shlex.split(args["extra"])
    if args["np"] > 1:
        cmd = ["mpiexec", "-n", str(args["np"])] + cmd
    return cmd


def run(cmd, timeout, log):
    """Runs cmd (its own process group, killed whole at the time limit);
    returns (status, wall seconds, output)."""
    t0 = time.monotonic()
    with open(log, "w") as f:
        f.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        f.flush()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
            status = "ok" if rc == 0 else f"fail({rc})"
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            status = "timeout"
    wall = time.monotonic() - t0
    with open(log) as f:
        text = f.read()
    with open(log, "a") as f:
        f.write(f"\nwall_s {wall:.3f} status {status}\n")
    return status, wall, text


def main():
    quick = env("PCS_QUICK", "0") == "1"
    binroot = env("BIN", os.path.join(HERE, "bin"))
    args = {
        "n": int(env("PCS_N", "65" if quick else "257")),
        "vec": env("PCS_VEC", "cuda"),
        "np": int(env("PCS_NP", "1")),
        "bin": binroot,
        "diffusion": env("DIFFUSION", os.path.join(binroot, "diffusion")),
        "lib": os.path.abspath(env("LIB", os.path.join(binroot, "..", "lib", "libpetscdiag.so"))),
        "extra": env("PCS_EXTRA", ""),
    }
    types = env("PCS_TYPES", "diag aijcusparse").split()
    cases = env("PCS_CASES", "ex45 diffusion").split()
    wanted = env("PCS_PCS", " ".join(c[0] for c in CONFIGS)).split()
    timeout = float(env("PCS_TIMEOUT", "120"))
    budget = float(env("PCS_BUDGET", "540"))
    start = time.monotonic()
    levels = env("PCS_LEVELS", "5")
    out = env("OUT", "/tmp/out")
    os.makedirs(out, exist_ok=True)
    unknown = set(wanted) - {c[0] for c in CONFIGS}
    if unknown:
        sys.exit(f"pcs.py: unknown PC names {sorted(unknown)}; known: {[c[0] for c in CONFIGS]}")
    path = os.path.join(out, "pcs.csv")
    new = not os.path.exists(path)
    with open(path, "a", newline="") as fcsv:
        w = csv.DictWriter(fcsv, fieldnames=FIELDS)
        if new:
            w.writeheader()
        print(f"{'case':10} {'pc':22} {'mat':12} {'status':9} {'its':>5} {'PCSetUp':>9} {'KSPSolve':>9} {'GPU':>9} {'wall':>8}")
        for case in cases:
            for name, applies, opts in CONFIGS:
                if name not in wanted or case not in applies:
                    continue
                for mat in types:
                    log = os.path.join(out, f"pcs.{case}.{name}.{mat}.log")
                    left = budget - (time.monotonic() - start)
                    limit = min(timeout, left)  # the last run gets what is left of the budget
                    if left < min(timeout, 10.0):
                        status, wall, text, log = "skipped", 0.0, "", ""
                    else:
                        status, wall, text = run(command(case, opts.format(L=levels), mat, args), limit, log)
                    r = {"petsc": env("PCS_PETSC", "")}
                    r.update(parse(text, args["np"]))
                    if status != "ok":  # a failed or stopped run: no numbers, only its PETSc
                        r = {k: v for k, v in r.items() if k == "petsc"}
                    row = {"case": case, "n": args["n"], "np": args["np"], "mat": mat, "vec": args["vec"], "pc": name, "status": status,
                           "wall_s": f"{wall:.3f}", "timeout_s": f"{max(limit, 0):.0f}", "log": os.path.basename(log), **r}
                    w.writerow(row)
                    fcsv.flush()

                    def fmt(k):
                        v = row.get(k)
                        return f"{v:9.4f}" if isinstance(v, float) else f"{'-':>9}"
                    print(f"{case:10} {name:22} {mat:12} {status:9} {row.get('its', '-'):>5} {fmt('pcsetup_s')} {fmt('kspsolve_s')} {fmt('kspsolve_gpu_s')} {wall:8.2f}", flush=True)
    print(f"pcs.py: table in {path}")


if __name__ == "__main__":
    main()
