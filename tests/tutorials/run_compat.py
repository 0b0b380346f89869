#!/usr/bin/env python3
"""Runs PETSc's own tutorials with aij and with diag and compares them.

Every tutorial source (ksp, snes, ts, dm tutorials of the PETSc in use) is
compiled with mpicc and `pkg-config PETSc` (binaries cached in the work
folder); each test of its /*TEST*/ block (loops expanded) runs twice, with
    <test args> -mat_type aij -dm_mat_type aij -info <file>:mat
    <test args> -dll_append <plugin> -mat_type diag -dm_mat_type diag -info <file>:mat
(-info goes to a file, to both runs alike: the plugin says there when it
creates a diag matrix, so runs that never create one are told apart).
Results go to <work>/results.json, the report to <work>/report.md.

With --gpu both runs get CUDA vectors (-vec_type cuda -dm_vec_type cuda)
and the reference is aijcusparse: what a GPU user of the tutorial would
type; with --reference cpu the reference is aij on host vectors (the CPU's
answer: aijcusparse and diag can be wrong alike on the GPU). --prebuilt runs binaries built before into <work>/bin (by a run of
this script against the same PETSc, which also writes <work>/petsc.json)
without compiling: for a machine with a GPU but no compiler or PETSc.pc.

  run_compat.py [--only REGEX] [--jobs N] [--plugin LIB] [--work DIR]
  run_compat.py --rerun-failed      # only the runs that did not agree last time
  run_compat.py --report            # rebuild the report from results.json
  run_compat.py --build-only --work DIR   # compile only: binaries for --prebuilt elsewhere
  run_compat.py --gpu --prebuilt --examples DIR --mpiexec MPIEXEC   # on a GPU machine
"""
import argparse
import concurrent.futures
import datetime
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import outcompare  # noqa: E402
import testblock  # noqa: E402
import compat_report  # noqa: E402

DIRS = ["ksp/ksp/tutorials", "snes/tutorials", "ts/tutorials", "dm/impls/da/tutorials", "dm/tutorials"]
NOT_AGREE = ("agree-within-1-iteration", "differ", "error-diag-only", "crash", "timeout", "both-fail",
             "aij-fails-only", "not-using-diag")
FAILING = ("differ", "error-diag-only", "crash", "timeout")  # what --strict fails on
MAX_RANKS = 4
OUTPUT_KEPT = 200000  # characters of a differing run's outputs kept in the JSON (--keep-outputs)
MATRIX_FREE = re.compile(r"\s-snes_mf(_operator)?(?!\S)(?!\s+(0|false|no)(\s|$))")
# Matrix types a test may ask for that aij (and diag) can stand in for: the
# same matrix in another storage. A test asking for another type (is for
# BDDC/FETI-DP, hypre, hyprestruct, kaij, nest, ...) needs that type: it is
# skipped, as the appended -mat_type aij/diag would break it for both runs.
REPLACEABLE = re.compile(r"^(seq|mpi)?(aij|baij|sbaij|sell|dense|aijperm|aijcrl|aijsell|aijmkl|baijmkl)$")
REPLACEABLE_GPU = re.compile(r"^(seq|mpi)?(aijcusparse|aijkokkos|aijhipsparse)$")  # with --gpu
GPU_VECTORS = ["-vec_type", "cuda", "-dm_vec_type", "cuda"]


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def petsc_flags():
    cflags = sh(["pkg-config", "--cflags", "PETSc"]).stdout.split()
    libs = sh(["pkg-config", "--libs", "PETSc"]).stdout.split()
    libdir = sh(["pkg-config", "--variable=libdir", "PETSc"]).stdout.strip()
    if libdir:  # a PETSc outside the loader's paths (PETSC_DIR builds)
        libs.append("-Wl,-rpath," + libdir)
    incs = [f[2:] for f in cflags if f.startswith("-I")]
    conf = next((os.path.join(i, "petscconf.h") for i in incs if os.path.exists(os.path.join(i, "petscconf.h"))), None)
    version = sh(["pkg-config", "--modversion", "PETSc"]).stdout.strip()
    # Some tutorials call PETSc's dependencies directly (HDF5 headers through
    # petscviewerhdf5.h, LAPACK/BLAS): PETSc's own makefiles add them, a
    # shared PETSc's PETSc.pc does not.
    for pkg, want in (("hdf5", "PETSC_HAVE_HDF5"), ("lapack", None), ("blas", None)):
        if want and conf and want not in open(conf).read():
            continue
        if sh(["pkg-config", "--exists", pkg]).returncode == 0:
            cflags += sh(["pkg-config", "--cflags", pkg]).stdout.split()
            libs += sh(["pkg-config", "--libs", pkg]).stdout.split()
    return cflags, libs, conf, version


def default_examples(version):
    mm = ".".join(version.split(".")[:2])
    for p in (f"/usr/share/petsc/{mm}/share/petsc/examples/src",):
        if os.path.isdir(p):
            return p
    prefix = sh(["pkg-config", "--variable=prefix", "PETSc"]).stdout.strip()
    return os.path.join(prefix, "share/petsc/examples/src")


def build(src, exe, cflags, libs, build_requires, conf):
    """Compiles one tutorial (cached: an up-to-date binary or failure note is
    reused). Returns None or the reason it is not built."""
    fail = exe + ".fail"
    mtime = os.path.getmtime(src)
    unmet = testblock.unmet_requirements(build_requires, conf, ("x",) if not os.environ.get("DISPLAY") else ())
    if unmet:
        return "build requires: " + ", ".join(unmet)
    cmd = ["mpicc", "-O1", "-w", *cflags, src, "-o", exe, *libs, "-lm"]
    stamp = exe + ".cmd"  # the command that built the binary: another PETSc, another binary
    if os.path.exists(exe) and os.path.getmtime(exe) >= mtime and os.path.exists(stamp) and \
            open(stamp).read() == " ".join(cmd):
        return None
    if os.path.exists(fail) and os.path.getmtime(fail) >= mtime:
        with open(fail) as f:
            lines = f.read().splitlines()
        if lines and lines[0] == " ".join(cmd):  # the same command failed before
            return lines[1]
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    p = sh(cmd)
    if p.returncode == 0:
        with open(stamp, "w") as f:
            f.write(" ".join(cmd))
        return None
    errs = [l for l in p.stdout.splitlines() if "error" in l.lower()]
    reason = "compile error: " + (re.sub(r"^\S+:\d+:\d+: ", "", errs[0]) if errs else p.stdout.strip()[-200:])
    with open(fail, "w") as f:
        f.write(" ".join(cmd) + "\n" + reason + "\n")
    return reason


def prebuilt(exe):
    """--prebuilt: the binary a run against this PETSc built, or why not."""
    if os.path.exists(exe):
        return None
    return "not built before (--prebuilt)" if not os.path.exists(exe + ".fail") else open(exe + ".fail").read().splitlines()[1]


def collect(args, conf):
    """Every run of every tutorial: dicts ready for run_one (or with a
    category already: skipped, not-built)."""
    cflags, libs = petsc_flags()[:2] if not args.prebuilt else ([], [])
    unavailable = () if os.environ.get("DISPLAY") else ("x",)
    if not args.gpu and not gpu_present():  # a CUDA PETSc on a machine without a GPU
        unavailable += ("cuda",)
    only = re.compile(args.only) if args.only else None
    sources = []
    for d in DIRS:
        for src in sorted(glob.glob(os.path.join(args.examples, d, "*.c"))):
            sources.append((d, src))
    runs = []
    to_build = []
    for d, src in sources:
        ex = os.path.basename(src)[:-2]
        try:
            breq, tests = testblock.parse_tests(open(src, errors="replace").read(), ex)
        except Exception as e:  # a test block this parser does not understand
            tests, breq = [{"name": ex + "_1", "parse_error": str(e)}], ""
        seen = set()
        mine = []
        for t in tests:
            name = t["name"]
            while name in seen:
                name += "#2"
            seen.add(name)
            rid = f"{d}/{name}"
            if only and not only.search(rid):
                continue
            if args.args_match and not re.search(args.args_match, t.get("args", "")):
                continue
            mine.append(dict(t, id=rid, dir=d, source=src, name=name))
        if mine:
            exe = os.path.join(args.work, "bin", d.replace("/", "_"), ex)
            to_build.append((d, src, exe, breq, mine))
    built = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(prebuilt, exe) if args.prebuilt else pool.submit(build, src, exe, cflags, libs, breq, conf): src
                for _, src, exe, breq, _ in to_build}
        for f in concurrent.futures.as_completed(futs):
            built[futs[f]] = f.result()
    for d, src, exe, breq, mine in to_build:
        for t in mine:
            t["exe"] = exe
            t["nsize"] = int(t.get("nsize", "1") or 1) if str(t.get("nsize", "1")).strip().isdigit() else t.get("nsize")
            reason = skip_reason(t, conf, unavailable, args.gpu)
            if built[src] and not reason:
                t.update(category="not-built", detail=built[src])
            elif reason:
                t.update(category="skipped", detail=reason)
            runs.append(t)
    return runs


def gpu_present():
    return shutil.which("nvidia-smi") is not None and sh(["nvidia-smi", "-L"]).returncode == 0


def skip_reason(t, conf, unavailable, gpu=False):
    if t.get("parse_error"):
        return "TEST block not parsed: " + t["parse_error"]
    if t.get("TODO"):
        return "TODO in the test: " + t["TODO"]
    if t.get("SKIP"):
        return "SKIP in the test: " + t["SKIP"]
    if t.get("command"):
        return "custom command"
    unmet = testblock.unmet_requirements(t.get("requires", ""), conf, unavailable)
    if unmet:
        return "requires: " + ", ".join(unmet)
    if "${DATAFILESPATH}" in t.get("args", "") or "DATAFILESPATH" in t.get("filter", ""):
        return "requires: datafilespath"
    for opt, val in re.findall(r"(?:^|\s)-(\w*mat_type)\s+(\S+)", t.get("args", "")):
        if opt in ("mat_type", "dm_mat_type") and not (REPLACEABLE.match(val) or (gpu and REPLACEABLE_GPU.match(val))):
            return f"needs -{opt} {val} (not replaceable by aij/diag)"
        if val == "is" and not opt.endswith("localmat_type"):  # a prefixed MATIS: the appended -mat_type retypes it
            return f"needs -{opt} {val} (MATIS; the appended -mat_type would retype it)"
    if not isinstance(t["nsize"], int):
        return f"nsize {t['nsize']!r} not understood"
    if t["nsize"] > MAX_RANKS:
        return f"needs more than {MAX_RANKS} ranks"
    return None


def substitute(s, examples, conf):
    prefix = examples
    for _ in range(4):  # <prefix>/share/petsc/examples/src
        prefix = os.path.dirname(prefix)
    isize = "64" if "PETSC_USE_64BIT_INDICES" in conf else "32"
    ssize = {"single": "32", "__float128": "128", "__fp16": "16"}.get(conf["__precision__"], "64")
    for k, v in (("wPETSC_DIR", prefix), ("PETSC_DIR", prefix), ("PETSC_ARCH", ""), ("PETSC_INDEX_SIZE", isize),
                 ("PETSC_SCALAR_SIZE", ssize)):
        s = s.replace("${" + k + "}", v).replace("@" + k + "@", v)
    return s


def command(t, variant, plugin, rundir, mpiexec, gpu=False, cpu_reference=False):
    args = shlex.split(substitute(t.get("args", ""), t["examples"], t["conf"]))
    info = os.path.join(rundir, "info")
    gpu = gpu and not (cpu_reference and variant == "aij")  # --reference cpu: aij on host vectors
    mtype = "aijcusparse" if gpu and variant == "aij" else variant
    extra = ["-mat_type", mtype, "-dm_mat_type", mtype, "-info", info + ":mat"]
    if MATRIX_FREE.search(" " + " ".join(args)):
        # -snes_mf(_operator): MatSetFromOptions on the matrix-free Jacobian
        # would turn it into an empty -mat_type matrix (aij crashes so); the
        # matrices to compare are the DM's (the preconditioner's)
        extra = extra[2:]
    if variant == "diag":
        extra = ["-dll_append", plugin] + extra
    if gpu:
        extra += GPU_VECTORS
    return [mpiexec, "--oversubscribe", "-n", str(t["nsize"]), t["exe"], *args, *extra]


def execute(cmd, cwd, env, timeout):
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         errors="replace", start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err, False, time.time() - t0
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGTERM)
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        return None, out, err, True, time.time() - t0


def apply_filter(text, filt, cwd):
    if not filt:
        return text
    filt = filt[len("Error:"):] if filt.startswith("Error:") else filt
    p = subprocess.run(["sh", "-c", filt], input=text, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, errors="replace", timeout=60)
    return p.stdout if p.returncode in (0, 1) else text  # grep -v finding nothing returns 1


def prepare_rundir(rundir, t):
    """An empty run folder holding links to the test's local run files (and
    its output folder), as PETSc's test harness runs a test."""
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    srcdir = os.path.dirname(t["source"])
    for f in t.get("localrunfiles", "").split() + ["output"]:
        if os.path.exists(os.path.join(srcdir, f)):
            os.symlink(os.path.join(srcdir, f), os.path.join(rundir, os.path.basename(f)))


def run_variant(t, variant, args, env):
    rundir = os.path.join(args.work, "run", t["id"].replace("/", "_").replace("#", "~"), variant)
    prepare_rundir(rundir, t)
    cmd = command(t, variant, args.plugin, rundir, args.mpiexec, args.gpu, args.reference == "cpu")
    rc, out, err, timed_out, secs = execute(cmd, rundir, env, args.timeout)
    infos = "".join(open(f, errors="replace").read() for f in glob.glob(os.path.join(rundir, "info*")))
    both = out + "\n" + err
    r = {"cmd": " ".join(shlex.quote(c) for c in cmd), "cwd": rundir, "rc": rc, "timeout": timed_out,
         "seconds": round(secs, 1), "error": outcompare.first_error(both), "signal": outcompare.signal_of(both, rc),
         "created_diag": "diag: created a" in infos}
    r["filtered"] = apply_filter(both if t.get("filter", "").startswith("Error:") else out, t.get("filter"), rundir)
    r["compared_lines"] = len(outcompare.kept_lines(r["filtered"]))
    if rc not in (0, None) and not r["error"] and not r["signal"]:
        tail = [l for l in err.splitlines() if l.strip() and not outcompare.LAUNCHER_NOISE.match(l)]
        r["error"] = f"exit code {rc}" + (": " + tail[-1][:200] if tail else "")
    return r


def classify(t, ref, dia):
    expects_error = t.get("filter", "").startswith("Error:")
    ok_ref = ref["rc"] == 0 or (expects_error and not ref["timeout"] and not ref["signal"])
    ok_dia = dia["rc"] == 0 or (expects_error and not dia["timeout"] and not dia["signal"])
    if not ok_ref:
        why = "aij timed out" if ref["timeout"] else (ref["signal"] or ref["error"] or f"aij exit {ref['rc']}")
        return ("both-fail" if not ok_dia else "aij-fails-only"), why
    if dia["timeout"]:
        return "timeout", f"diag run exceeded the time limit (aij took {ref['seconds']} s)"
    if dia["signal"]:
        return "crash", dia["signal"] + (" / " + dia["error"] if dia["error"] and "signal" not in dia["error"] else "")
    if not ok_dia:
        return "error-diag-only", dia["error"]
    if not dia["created_diag"]:
        return "not-using-diag", ""
    return outcompare.compare(ref["filtered"], dia["filtered"], *TOLERANCES)


TOLERANCES = [1e-6, 1e-10, 1e-12]  # rtol, floor (x the largest norm), absolute floor


def backtrace(t, dia, args, env):
    """Where a crashing diag run dies: the run again under gdb (every rank;
    PETSc's signal handler off), the longest backtrace any rank printed (the
    ranks that got the signal). Release builds name functions, not lines."""
    cmd = shlex.split(dia["cmd"])
    n = cmd.index("-n")
    exe_at = n + 2
    gdb = ["gdb", "-batch", "-nx", "-ex", "run", "-ex", "bt 15", "--args"]
    full = cmd[:n] + ["--tag-output"] + cmd[n:exe_at] + gdb + cmd[exe_at:] + ["-no_signal_handler"]
    rc, out, err, timed_out, _ = execute(full, dia["cwd"], env, args.timeout + 60)
    with open(os.path.join(dia["cwd"], "gdb.txt"), "w") as f:  # kept for a look when no frame is found
        f.write(" ".join(shlex.quote(c) for c in full) + "\n" + out + "\n" + err)
    tag = re.compile(r"\[\d+,(\d+)\]<\w+>:")  # --tag-output's prefix, also amid gdb's lines
    lines = []
    for line in (out + "\n" + err).splitlines():
        m = tag.match(line)
        if m:
            lines.append((m.group(1), tag.sub("", line)))
    # every rank's frames; the longest backtrace wins (mpiexec may stop the
    # other ranks' gdb before they print theirs)
    by_rank = {}
    for r, line in lines:
        m = re.match(r"^#(\d+)\s+(?:0x[0-9a-f]+ in )?((?:\(anonymous namespace\)::)?[^\s(]+)", line)
        if m and int(m.group(1)) == len(by_rank.setdefault(r, [])):
            by_rank[r].append(m.group(2))
    frames = max(by_rank.values(), key=len, default=[])
    return frames


def run_one(t, args, env):
    ref = run_variant(t, "aij", args, env)
    dia = run_variant(t, "diag", args, env)
    cat, detail = classify(t, ref, dia)
    if cat == "crash" and args.backtrace and shutil.which("gdb"):
        frames = backtrace(t, dia, args, env) or backtrace(t, dia, args, env)
        if frames:
            dia["backtrace"] = frames
            # the crash site names the group: the first frames that are not libc's
            site = [f for f in frames if not f.startswith(("__", "raise", "abort", "??"))][:3]
            detail = detail.split(" / ")[0] + " in " + (" < ".join(site) or "?? (no symbols)")
    out = {k: v for k, v in t.items() if k in ("id", "dir", "name", "source", "nsize", "args", "requires", "filter", "note")}
    out.update(category=cat, detail=detail or "", aij={k: v for k, v in ref.items() if k != "filtered"},
               diag={k: v for k, v in dia.items() if k != "filtered"})
    compared = ("differ", "agree-within-1-iteration") + (("agree", "not-using-diag") if args.keep_outputs == "all" else ())
    if args.keep_outputs and cat in compared:
        out["outputs"] = {"aij": ref["filtered"][:OUTPUT_KEPT], "diag": dia["filtered"][:OUTPUT_KEPT]}
    if not args.keep_runs and cat == "agree":
        shutil.rmtree(os.path.dirname(ref["cwd"]), ignore_errors=True)
    return out


def save(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="regular expression on run ids (dir/exN_suffix), e.g. 'ksp/ksp/tutorials/ex2_'")
    ap.add_argument("--args-match", help="regular expression on the tests' arguments, e.g. -snes_mf")
    ap.add_argument("--jobs", type=int, default=2, help="tests run in parallel (default 2)")
    ap.add_argument("--plugin", default=None, help="libpetscdiag.so to load with -dll_append")
    ap.add_argument("--work", default=os.path.join(os.getcwd(), "tutorials-compat"), help="binaries, run folders, results")
    ap.add_argument("--examples", default=None, help="src/ folder of the PETSc tutorials (default: the installed ones)")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--pkg-config-path", default=None, help="folder of the PETSc.pc to build against (default: pkg-config's)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per program run")
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--floor", type=float, default=1e-10, help="numbers below this times the largest norm are rounding")
    ap.add_argument("--abs-floor", type=float, default=1e-12, help="numbers below this are rounding")
    ap.add_argument("--rerun-failed", action="store_true", help="run again only the runs that did not agree last time")
    ap.add_argument("--resume", action="store_true",
                    help="run only the runs results.json does not hold yet (a run cut short by a time limit)")
    ap.add_argument("--recompare", action="store_true", help="compare again the outputs kept in results.json (--keep-outputs), then report")
    ap.add_argument("--report", action="store_true", help="only rebuild the report from results.json")
    ap.add_argument("--report-out", default=None, help="the Markdown report (default <work>/report.md)")
    ap.add_argument("--strict", action="store_true", help="exit 1 if any run differs, fails with diag only, crashes or times out, or if none agrees")
    ap.add_argument("--skip-unless-env", default=None, help="exit 77 (skipped) unless this environment variable is set")
    ap.add_argument("--no-backtrace", dest="backtrace", action="store_false",
                    help="do not rerun crashing diag runs under gdb for the crash site")
    ap.add_argument("--keep-runs", action="store_true", help="keep the run folders of agreeing runs too")
    ap.add_argument("--keep-outputs", nargs="?", const="differing", choices=("differing", "all"),
                    help="store the outputs of differing runs in the JSON; 'all': of every run both variants ran "
                         "(the CPU reference of cross_check.py)")
    ap.add_argument("--gpu", action="store_true", help="CUDA vectors in both runs, aijcusparse as the reference")
    ap.add_argument("--reference", choices=("aijcusparse", "cpu"), default="aijcusparse",
                    help="with --gpu: the reference run; 'cpu': aij on host vectors (aijcusparse and diag can be wrong alike)")
    ap.add_argument("--prebuilt", action="store_true",
                    help="run the binaries in <work>/bin without compiling (PETSc's configuration from <work>/petsc.json)")
    ap.add_argument("--build-only", action="store_true",
                    help="compile the tutorials (and write <work>/petsc.json), run nothing: binaries for --prebuilt")
    args = ap.parse_args()
    if args.skip_unless_env and not os.environ.get(args.skip_unless_env):
        print(f"skipped: set {args.skip_unless_env}=1 to run the full tutorial comparison (long)")
        return 77
    TOLERANCES[:] = [args.rtol, args.floor, args.abs_floor]
    if args.pkg_config_path:
        os.environ["PKG_CONFIG_PATH"] = args.pkg_config_path + os.pathsep + os.environ.get("PKG_CONFIG_PATH", "")
    args.work = os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    results_path = os.path.join(args.work, "results.json")
    report_path = args.report_out or os.path.join(args.work, "report.md")
    if args.recompare:  # the comparison again, on the outputs kept in the JSON
        data = json.load(open(results_path))
        TOLERANCES[:] = [args.rtol, args.floor, args.abs_floor]
        n = 0
        for r in data["runs"]:
            o = r.get("outputs")
            if not o or max(len(o["aij"]), len(o["diag"])) in (20000, OUTPUT_KEPT):  # cut: not comparable
                continue
            r["category"], r["detail"] = outcompare.compare(o["aij"], o["diag"], *TOLERANCES)
            n += 1
        data.setdefault("history", []).append({"command": " ".join(shlex.quote(a) for a in sys.argv),
                                               "started": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
                                               "runs": n})
        save(results_path, data)
        args.report = True
    if args.report:
        data = json.load(open(results_path))
        compat_report.write(data, report_path)
        print(f"report: {report_path}")
        return 0

    petsc_json = os.path.join(args.work, "petsc.json")
    if args.prebuilt:  # the configuration of the PETSc the binaries were built against
        if not os.path.exists(petsc_json):
            sys.exit(f"--prebuilt: no {petsc_json} (a run of this script that builds writes it)")
        saved = json.load(open(petsc_json))
        conf, version = saved["conf"], saved["version"]
    else:
        confpath, version = petsc_flags()[2:]
        conf = testblock.read_petscconf(confpath)
        save(petsc_json, {"conf": conf, "version": version})
    args.examples = args.examples or default_examples(version)
    if not args.plugin:
        for p in ("/work/plugin-current/libpetscdiag.so", os.path.join(HERE, "../../build/lib/libpetscdiag.so")):
            if os.path.exists(p):
                args.plugin = p
                break
    if not args.plugin or not os.path.exists(args.plugin):
        sys.exit("no plugin: give --plugin PATH/libpetscdiag.so")
    args.plugin = os.path.abspath(args.plugin)

    previous = json.load(open(results_path)) if os.path.exists(results_path) else None
    if args.rerun_failed:
        if not previous:
            sys.exit(f"--rerun-failed: no {results_path}")
        again = [r["id"] for r in previous["runs"] if r["category"] in NOT_AGREE]
        if args.only:
            again = [i for i in again if re.search(args.only, i)]
        args.only = "^(" + "|".join(re.escape(i) for i in again) + ")$" if again else "^$"
    runs = collect(args, conf)
    if args.build_only:
        failed = sum(1 for t in runs if t.get("category") == "not-built")
        print(f"built into {os.path.join(args.work, 'bin')}: {len(runs)} runs, {failed} of them not built")
        return 0
    for t in runs:
        t["examples"], t["conf"] = args.examples, conf
    todo = [t for t in runs if "category" not in t]
    resumed = 0
    if args.resume and previous:
        done_ids = {r["id"] for r in previous["runs"] if "diag" in r}
        resumed = sum(t["id"] in done_ids for t in todo)
        todo = [t for t in todo if t["id"] not in done_ids]
    print(f"{len(runs)} runs: {len(todo)} to run, {len(runs) - len(todo) - resumed} skipped or not built, {resumed} run before (--resume); plugin {args.plugin}",
          flush=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    keep = {}
    if previous and (args.rerun_failed or args.only or args.resume):  # a partial run updates the last results
        redone = re.compile(args.only) if args.only else None
        # the runs of the selected tests are all redone: drop what they were
        # (a test's runs may be named otherwise now, e.g. after a parser fix)
        keep = {r["id"]: r for r in previous["runs"]
                if not (redone and redone.search(r["id"]) and not args.rerun_failed and not args.resume)}
    results = {t["id"]: {k: v for k, v in t.items() if k in ("id", "dir", "name", "source", "nsize", "args",
                                                          "requires", "category", "detail", "note")}
               for t in runs if "category" in t}
    with open(args.plugin, "rb") as f:
        plugin_md5 = hashlib.md5(f.read()).hexdigest()
    data = {"petsc_version": version, "gpu": args.gpu, "reference": args.reference, "examples": args.examples, "plugin": args.plugin, "plugin_md5": plugin_md5,
            "started": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
            "command": " ".join(shlex.quote(a) for a in sys.argv), "rtol": args.rtol, "floor": args.floor, "abs_floor": args.abs_floor,
            "timeout": args.timeout, "runs": []}
    # what ran before, when this run updates part of the last results
    data["history"] = (previous.get("history", []) if keep else []) + [
        {"command": data["command"], "started": data["started"], "runs": len(todo)}]
    lock = threading.Lock()

    def snapshot(final=False):
        merged = dict(keep)
        merged.update(results)
        data["runs"] = sorted(merged.values(), key=lambda r: r["id"])
        data["finished"] = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC") if final else None
        save(results_path, data)

    def job(t):
        t_env = dict(env)
        for kv in shlex.split(t.get("env", "")):
            if "=" in kv:
                k, v = kv.split("=", 1)
                t_env[k] = v
        return run_one(t, args, t_env)

    done = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(job, t): t for t in todo}
        for f in concurrent.futures.as_completed(futs):
            t = futs[f]
            try:
                r = f.result()
            except Exception as e:  # a runner bug must not lose the other results
                r = {"id": t["id"], "dir": t["dir"], "name": t["name"], "category": "runner-error", "detail": repr(e)}
            done += 1
            with lock:
                results[r["id"]] = r
                print(f"[{done}/{len(todo)}] {r['category']:26s} {r['id']}" +
                      (f"  ({r['detail'][:120]})" if r.get("detail") and r["category"] != "agree" else ""), flush=True)
                if done % 10 == 0:
                    snapshot()
    snapshot(final=True)
    compat_report.write(data, report_path)
    counts = compat_report.counts(data["runs"])
    print("counts: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"results: {results_path}\nreport: {report_path}")
    if args.strict and any(counts.get(c, 0) for c in FAILING + ("runner-error",)):
        return 1
    if args.strict and not counts.get("agree"):  # nothing compared: a vacuous pass
        print("strict: no run agrees (nothing built or run?)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
