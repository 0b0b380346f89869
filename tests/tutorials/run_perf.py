#!/usr/bin/env python3
"""Times PETSc's own tutorials with aij and with diag: a performance battery.

The cases are listed in perf_cases.json (beside this script): a tutorial, one
test of its /*TEST*/ block (that test's options), options added to it, and a
scale (options a user would type to make the problem big; `cpu` and `gpu`
scales per case). Each case runs with aij and with diag, one after the
other with the same options (--repeat N: N such pairs, alternating):

    <test args> <extra> <scale> -mat_type aij -dm_mat_type aij            -info <f>:mat -log_view :<f>:ascii_csv
    <test args> <extra> <scale> -dll_append <plugin> -mat_type diag -dm_mat_type diag  (the same)

With --gpu both get CUDA vectors (-vec_type cuda -dm_vec_type cuda) and
-log_view_gpu_time (events time their own GPU work), and the reference is
aijcusparse. Recorded per run: the wall time of the program
(mpiexec included), PETSc's own total time, the time and count of the
events of EVENTS, the size of the largest matrix (from aij's -info; the
unknowns), whether a diag matrix was created (-info), and whether the
outputs agree (run_compat.py's comparison of the standard output, which
-log_view to a file leaves alone). Under --out: results.json, table.md
(one row per case) and ratios.png (the aij/diag wall-time ratios, sorted;
needs matplotlib).

Binaries are built and cached as run_compat.py does (<work>/bin), so a
run_compat.py work folder serves too; --prebuilt runs binaries built before
(<work>/bin and <work>/petsc.json) on a machine without a compiler.

  run_perf.py --plugin build/lib/libpetscdiag.so --work /tmp/perf --scale cpu --jobs 1
  run_perf.py --only 'snes-ex19' --scale test      # the tests' own sizes (a quick check)
  run_perf.py --build-only --pkg-config-path /opt/petsc-3.25/lib/pkgconfig --work W   # binaries for --prebuilt
  run_perf.py --gpu --prebuilt --scale gpu --work W --examples SRC --plugin LIB --resume
  run_perf.py --report --out DIR                   # table.md and ratios.png from results.json
"""
import argparse
import datetime
import glob
import hashlib
import json
import os
import platform
import queue
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import concurrent.futures

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import outcompare  # noqa: E402
import perf_report  # noqa: E402
import run_compat  # noqa: E402
import testblock  # noqa: E402

# Events read from -log_view's CSV (names as PETSc 3.18 and 3.25 print them:
# at most 16 characters). Times are summed over stages, the maximum over ranks.
EVENTS = ["TSSolve", "TSStep", "SNESSolve", "KSPSolve", "PCSetUp", "PCApply", "SNESJacobianEval", "SNESFunctionEval",
          "MatFDColorApply", "MatAssemblyEnd", "MatAssemblyBegin", "MatMult", "MatMultAdd", "MatMultTranspose",
          "MatSOR", "MatSolve", "MatLUFactorNum", "MatILUFactorSym", "MatPtAP", "MatPtAPSymbolic", "MatPtAPNumeric",
          "MatMatMultNum", "MatResidual", "MatCreateSubMat", "MatConvert", "MatGetDiagonal", "VecMDot", "VecMAXPY"]
MAIN = {"ksp": "KSPSolve", "snes": "SNESSolve", "ts": "TSSolve"}  # a case's main event by default (ts: TSStep if no TSSolve)
MATRIX_SIZE = re.compile(r"Matrix size: (\d+) X (\d+)")  # aij's MatAssemblyEnd -info line
DIAG_CREATED = "diag: created a"
DIAG_CONVERTED = re.compile(r"diag: .*converted in place to (\S+)")
ACTIVE = set()  # running programs, killed on an interrupt
ACTIVE_LOCK = threading.Lock()
STOPPING = threading.Event()  # set on an interrupt: no program starts after it


class Stopped(Exception):
    """A run not started, or cut short, because the runner is stopping."""


def load_cases(path):
    with open(path) as f:
        data = json.load(f)
    names = [c["name"] for c in data["cases"]]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f"{path}: case names used twice: {sorted(dup)}")
    return data


def read_log(path):
    """Per event of a -log_view ascii_csv file: time (summed over stages,
    max over ranks) and count; 'summary' is PETSc's total time."""
    per_rank = {}
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return None
    for line in lines[1:]:
        parts = line.split(",")
        if len(parts) < 5:
            continue
        try:
            rank, count, secs = int(parts[2]), float(parts[3]), float(parts[4])
        except ValueError:
            continue
        name = parts[1]
        t, c = per_rank.setdefault((name, rank), [0.0, 0.0])
        per_rank[(name, rank)] = [t + secs, c + count]
    events = {}
    for (name, rank), (t, c) in per_rank.items():
        e = events.setdefault(name, {"time": 0.0, "count": 0})
        if t >= e["time"]:
            e["time"], e["count"] = t, int(round(c))
    return events


def execute(cmd, cwd, env, timeout):
    """Runs a program in its own session; on a timeout or an interrupt its
    process group is ended (SIGTERM, then SIGKILL)."""
    t0 = time.time()
    with ACTIVE_LOCK:
        if STOPPING.is_set():
            raise Stopped()
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             errors="replace", start_new_session=True)
        ACTIVE.add(p)
    try:
        out, err = p.communicate(timeout=timeout)
        if STOPPING.is_set():  # ended by the interrupt, not by itself
            raise Stopped()
        return p.returncode, out, err, False, time.time() - t0
    except subprocess.TimeoutExpired:
        stop(p)
        out, err = p.communicate()
        return None, out, err, True, time.time() - t0
    except BaseException:
        stop(p)
        raise
    finally:
        with ACTIVE_LOCK:
            ACTIVE.discard(p)


def stop(p):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


def type_options(variant, args, matrix_free):
    mtype = "aijcusparse" if args.gpu and variant == "aij" else variant
    opts = [] if matrix_free else ["-mat_type", mtype]
    opts += ["-dm_mat_type", mtype]
    if variant == "diag":
        opts = ["-dll_append", args.plugin] + opts
    if args.gpu:
        opts += run_compat.GPU_VECTORS
    return opts


def case_args(c, t, args, conf):
    """The options of a case without the type options: the test's, the
    case's extra ones, the scale's (later ones win in PETSc)."""
    test_args = shlex.split(run_compat.substitute(t.get("args", ""), args.examples, conf))
    extra = shlex.split(c.get("extra", ""))
    scale = shlex.split(c.get("scale", {}).get(args.scale, "")) if args.scale != "test" else []
    return test_args + extra + scale


def run_variant(c, t, variant, rep, opts, args, env):
    rundir = os.path.join(args.work, "run", c["name"], f"{variant}{rep}")
    run_compat.prepare_rundir(rundir, t)
    matrix_free = bool(run_compat.MATRIX_FREE.search(" " + " ".join(opts)))
    log = os.path.join(rundir, "log.csv")
    cmd = [args.mpiexec, "--oversubscribe", "-n", str(c["nsize"]), t["exe"], *opts,
           *type_options(variant, args, matrix_free), "-info", os.path.join(rundir, "info") + ":mat",
           "-log_view", ":" + log + ":ascii_csv"]
    if args.gpu:  # each event waits for its GPU work: without it, kernels queued by one event are timed in the next that synchronizes
        cmd.append("-log_view_gpu_time")
    rc, out, err, timed_out, secs = execute(cmd, rundir, env, args.timeout)
    infos = "".join(open(f, errors="replace").read() for f in glob.glob(os.path.join(rundir, "info*")))
    sizes = [int(m.group(1)) for m in MATRIX_SIZE.finditer(infos)]
    events = read_log(log) or {}
    both = out + "\n" + err
    r = {"cmd": " ".join(shlex.quote(x) for x in cmd), "cwd": rundir, "rc": rc, "timeout": timed_out,
         "wall": round(secs, 3), "petsc_time": events.get("summary", {}).get("time"),
         "events": {k: {"time": round(v["time"], 6), "count": v["count"]} for k, v in events.items()
                    if k in EVENTS and v["count"]},
         "largest_matrix_rows": max(sizes) if sizes else None, "created_diag": infos.count(DIAG_CREATED),
         "converted_to": sorted(set(DIAG_CONVERTED.findall(infos))),
         "error": outcompare.first_error(both), "signal": outcompare.signal_of(both, rc)}
    if rc not in (0, None) and not r["error"] and not r["signal"]:
        tail = [l for l in err.splitlines() if l.strip() and not outcompare.LAUNCHER_NOISE.match(l)]
        r["error"] = f"exit code {rc}" + (": " + tail[-1][:200] if tail else "")
    r["filtered"] = run_compat.apply_filter(out, t.get("filter"), rundir) if rc == 0 else ""
    if rc == 0 and not args.keep_runs:  # the log and -info are read: the folder's files can go
        for f in glob.glob(os.path.join(rundir, "info*")):
            os.remove(f)
    return r


def summarize(c, runs):
    """Ratios and agreement from the runs of a case (aij/diag: above 1 diag is faster)."""
    ok = {v: [r for r in runs[v] if r["rc"] == 0] for v in runs}
    s = {}
    a, d = ok["aij"], ok["diag"]
    if not a or not d:
        bad = runs["aij"][-1] if not a else runs["diag"][-1]
        which = "aij" if not a else "diag"
        why = "timed out" if bad["timeout"] else (bad["signal"] or bad["error"] or f"exit {bad['rc']}")
        s.update(status=f"{which}-fails", detail=why)
        return s
    s["status"] = "ran" if d[0]["created_diag"] else "not-using-diag"
    s["agree"], s["agree_detail"] = outcompare.compare(a[0]["filtered"], d[0]["filtered"], *run_compat.TOLERANCES)
    if not outcompare.kept_lines(a[0]["filtered"]):
        s["agree"], s["agree_detail"] = "nothing-compared", "the output holds nothing to compare"
    s["aij_wall"] = min(r["wall"] for r in a)
    s["diag_wall"] = min(r["wall"] for r in d)
    s["wall_ratio"] = round(s["aij_wall"] / s["diag_wall"], 3) if s["diag_wall"] else None
    main = c.get("main") or MAIN.get(c["tutorial"].split("/")[0])
    if main == "TSSolve" and "TSSolve" not in a[0]["events"]:
        main = "TSStep"
    s["main_event"] = main
    ta = [r["events"].get(main, {}).get("time") for r in a]
    td = [r["events"].get(main, {}).get("time") for r in d]
    if all(ta) and all(td):
        s["aij_main"], s["diag_main"] = min(ta), min(td)
        s["main_ratio"] = round(s["aij_main"] / s["diag_main"], 3) if s["diag_main"] else None
    s["unknowns"] = a[0]["largest_matrix_rows"]
    s["aij_matrices"] = a[0]["events"].get("MatAssemblyEnd", {}).get("count", 0)
    s["diag_created"] = d[0]["created_diag"]
    s["converted_to"] = d[0]["converted_to"]
    return s


def run_case(c, t, args, conf, env):
    opts = case_args(c, t, args, conf)
    runs = {"aij": [], "diag": []}
    for rep in range(args.repeat):
        for variant in ("aij", "diag"):  # alternating, the same options
            runs[variant].append(run_variant(c, t, variant, rep, opts, args, env))
    out = {k: c[k] for k in c if k not in ("scale",)}
    out.update(test=t["name"], test_args=t.get("args", ""), nsize=c["nsize"], scale=args.scale,
               scale_args=c.get("scale", {}).get(args.scale, "") if args.scale != "test" else "")
    out.update(summarize(c, runs))
    for v in runs:
        for r in runs[v]:
            r.pop("filtered")
    out["runs"] = runs
    return out


def find_test(c, args, conf):
    """The case's test of its tutorial's TEST block, with the binary, or why not."""
    d, ex = c["tutorial"].rsplit("/", 1)
    src = os.path.join(args.examples, d, ex + ".c")
    if not os.path.exists(src):
        return None, f"no {src}"
    breq, tests = testblock.parse_tests(open(src, errors="replace").read(), ex)
    t = next((t for t in tests if t["name"] == c["test"]), None)
    if not t:
        return None, f"no test {c['test']} in {src} (this PETSc's tests: {', '.join(x['name'] for x in tests[:12])} ...)"
    t = dict(t, source=src, breq=breq, exe=os.path.join(args.work, "bin", d.replace("/", "_"), ex))
    t["nsize"] = c.get("nsize", 1)
    unavailable = () if os.environ.get("DISPLAY") else ("x",)
    unmet = testblock.unmet_requirements(t.get("requires", ""), conf, unavailable)
    if unmet:
        return None, "requires: " + ", ".join(unmet)
    return t, None


def machine_stamp(args):
    s = {"host": platform.node(), "nproc": os.cpu_count()}
    try:
        s["cpu"] = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        s["cpu"] = platform.processor()
    if args.gpu and shutil.which("nvidia-smi"):
        s["gpu"] = run_compat.sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]).stdout.strip()
    return s


def loadavg():
    try:
        return open("/proc/loadavg").read().split()[:3]
    except OSError:
        return None


def commit_of(args):
    if args.commit:
        return args.commit
    root = os.path.dirname(os.path.dirname(HERE))
    p = run_compat.sh(["git", "-C", root, "rev-parse", "--short=12", "HEAD"])
    if p.returncode != 0:
        return None
    dirty = run_compat.sh(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"]).stdout.strip()
    return p.stdout.strip() + ("-dirty" if dirty else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=os.path.join(HERE, "perf_cases.json"), help="the case list (default perf_cases.json)")
    ap.add_argument("--only", help="regular expression on case names")
    ap.add_argument("--scale", default="cpu", help="which scale of the cases: cpu, gpu, or test (the tests' own sizes)")
    ap.add_argument("--repeat", type=int, default=1, help="aij/diag pairs per case (times: the minimum)")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at the same time (default 1: timings on a shared machine mislead)")
    ap.add_argument("--plugin", default=None, help="libpetscdiag.so to load with -dll_append")
    ap.add_argument("--work", default=os.path.join(os.getcwd(), "tutorials-perf"), help="binaries and run folders")
    ap.add_argument("--out", default=None, help="results.json, table.md, ratios.png (default: the work folder)")
    ap.add_argument("--examples", default=None, help="src/ folder of the PETSc tutorials (default: the installed ones)")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--pkg-config-path", default=None, help="folder of the PETSc.pc to build against (default: pkg-config's)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per program run")
    ap.add_argument("--gpu", action="store_true", help="CUDA vectors in both runs, aijcusparse as the reference")
    ap.add_argument("--gpus", type=int, default=None,
                    help="with --gpu and --jobs N: GPUs the running cases share out, one case a GPU at a time "
                         "(CUDA_VISIBLE_DEVICES; default: the GPUs nvidia-smi lists)")
    ap.add_argument("--prebuilt", action="store_true", help="run the binaries in <work>/bin without compiling")
    ap.add_argument("--build-only", action="store_true", help="build the cases' tutorials (and petsc.json), run nothing")
    ap.add_argument("--resume", action="store_true", help="run only the cases results.json does not hold yet")
    ap.add_argument("--report", action="store_true", help="only rebuild table.md and ratios.png from results.json")
    ap.add_argument("--keep-runs", action="store_true", help="keep the -info files of the runs")
    ap.add_argument("--commit", default=None, help="the commit to stamp (default: git's, of this checkout)")
    ap.add_argument("--require-created", action="store_true",
                    help="exit 1 unless every case ran both ways, aij assembled matrices, diag created a diag matrix, "
                         "both logged the main event and table.md has the case's row")
    args = ap.parse_args()
    if args.pkg_config_path:
        os.environ["PKG_CONFIG_PATH"] = args.pkg_config_path + os.pathsep + os.environ.get("PKG_CONFIG_PATH", "")
    args.work = os.path.abspath(args.work)
    args.out = os.path.abspath(args.out or args.work)
    os.makedirs(args.out, exist_ok=True)
    results_path = os.path.join(args.out, "results.json")
    if args.report:
        data = json.load(open(results_path))
        print("\n".join(perf_report.write(data, args.out)))
        return 0
    os.makedirs(args.work, exist_ok=True)
    if args.gpu and args.gpus is None and args.jobs > 1 and shutil.which("nvidia-smi"):
        listed = run_compat.sh(["nvidia-smi", "-L"]).stdout
        args.gpus = sum(1 for l in listed.splitlines() if l.startswith("GPU ")) or None
    if not args.gpu:
        args.gpus = None
    cases = load_cases(args.cases)
    if args.scale != "test" and not all(args.scale in c.get("scale", {}) for c in cases["cases"]):
        sys.exit(f"--scale {args.scale}: not every case of {args.cases} has that scale")
    petsc_json = os.path.join(args.work, "petsc.json")
    if args.prebuilt:
        if not os.path.exists(petsc_json):
            sys.exit(f"--prebuilt: no {petsc_json} (a run of this script or run_compat.py that builds writes it)")
        saved = json.load(open(petsc_json))
        conf, version = saved["conf"], saved["version"]
        cflags = libs = []
    else:
        cflags, libs, confpath, version = run_compat.petsc_flags()
        conf = testblock.read_petscconf(confpath)
        run_compat.save(petsc_json, {"conf": conf, "version": version})
    args.examples = args.examples or run_compat.default_examples(version)
    only = re.compile(args.only) if args.only else None
    chosen = [dict(c, nsize=c.get("nsize", 1)) for c in cases["cases"] if not only or only.search(c["name"])]

    # the tests, then the binaries (each tutorial once)
    found, unusable = [], {}
    for c in chosen:
        t, why = find_test(c, args, conf)
        if t:
            found.append((c, t))
        else:
            unusable[c["name"]] = why
    built = {}
    for c, t in found:
        if t["exe"] in built:
            continue
        built[t["exe"]] = run_compat.prebuilt(t["exe"]) if args.prebuilt else \
            run_compat.build(t["source"], t["exe"], cflags, libs, t["breq"], conf)
    runnable = []
    for c, t in found:
        if built[t["exe"]]:
            unusable[c["name"]] = "not built: " + built[t["exe"]]
        else:
            runnable.append((c, t))
    for name, why in unusable.items():
        print(f"  {name}: {why}")
    if args.build_only:
        print(f"built {len({t['exe'] for _, t in runnable})} tutorials for {len(runnable)} cases into {args.work}/bin")
        return 0 if not unusable else 1

    if not args.plugin:
        p = os.path.join(HERE, "../../build/lib/libpetscdiag.so")
        args.plugin = p if os.path.exists(p) else None
    if not args.plugin or not os.path.exists(args.plugin):
        sys.exit("no plugin: give --plugin PATH/libpetscdiag.so")
    args.plugin = os.path.abspath(args.plugin)

    # --resume: the cases results.json holds are not run again; --only: the
    # selected cases are run again, the others results.json holds are kept
    previous = json.load(open(results_path)) if (args.resume or args.only) and os.path.exists(results_path) else None
    kept = (previous or {}).get("cases", [])
    if not args.resume:
        kept = [r for r in kept if not only.search(r["name"])]
    done = {r["name"]: r for r in kept if "runs" in r or r.get("status") == "unusable"}
    todo = [(c, t) for c, t in runnable if c["name"] not in done]
    with open(args.plugin, "rb") as f:
        md5 = hashlib.md5(f.read()).hexdigest()
    now = lambda: datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")  # noqa: E731
    stamp = {"petsc_version": version, "gpu": args.gpu, "scale": args.scale, "repeat": args.repeat, "jobs": args.jobs, "gpus": args.gpus,
             "plugin": args.plugin, "plugin_md5": md5, "commit": commit_of(args), "examples": args.examples,
             "cases_file": os.path.relpath(args.cases, os.path.dirname(os.path.dirname(HERE)))
             if args.cases.startswith(os.path.dirname(os.path.dirname(HERE))) else args.cases,
             "command": " ".join(shlex.quote(a) for a in sys.argv), "started": now(), "load_before": loadavg(),
             **machine_stamp(args)}
    data = {"stamp": stamp, "history": (previous or {}).get("history", []), "cases": []}
    data["history"].append({"command": stamp["command"], "started": stamp["started"], "cases": len(todo),
                            "load_before": stamp["load_before"], "commit": stamp["commit"]})
    results = dict(done)
    for name, why in unusable.items():
        c = next(c for c in chosen if c["name"] == name)
        results[name] = {"name": name, "tutorial": c["tutorial"], "test": c["test"], "status": "unusable", "detail": why}
    order = [c["name"] for c in cases["cases"]]  # the file's order
    lock = threading.Lock()

    def snapshot(final=False):
        data["cases"] = [results[n] for n in order if n in results]
        data["stamp"]["load_after"] = loadavg()
        data["stamp"]["finished"] = now() if final else None
        run_compat.save(results_path, data)

    print(f"{len(chosen)} cases: {len(todo)} to run, {len(done)} run before (--resume), {len(unusable)} unusable; "
          f"scale {args.scale}, plugin {args.plugin}", flush=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")

    # With several GPUs each running case has one to itself (its aij and diag
    # runs one after the other on the same GPU), so that cases run at the
    # same time do not share a device.
    gpu_slots = queue.Queue()
    for k in range(args.jobs):
        gpu_slots.put(k % args.gpus if args.gpus else None)

    def job(c, t):
        t_env = dict(env)
        gpu = gpu_slots.get()
        if gpu is not None:
            t_env["CUDA_VISIBLE_DEVICES"] = str(gpu)
        for kv in shlex.split(t.get("env", "")):
            if "=" in kv:
                k, v = kv.split("=", 1)
                t_env[k] = v
        try:
            r = run_case(c, t, args, conf, t_env)
            if gpu is not None:
                r["gpu_index"] = gpu
            return r
        except (KeyboardInterrupt, SystemExit, Stopped):
            raise
        except Exception as e:  # a runner bug must not lose the other results
            return {"name": c["name"], "tutorial": c["tutorial"], "test": c["test"], "status": "runner-error", "detail": repr(e)}
        finally:
            gpu_slots.put(gpu)

    def record(r, n):
        with lock:
            results[r["name"]] = r
            snapshot()
        ratio = f"wall {r['aij_wall']:.2f} / {r['diag_wall']:.2f} s = {r['wall_ratio']}x" if r.get("wall_ratio") else r.get("detail", "")
        print(f"[{n}/{len(todo)}] {r.get('status', '?'):15s} {r['name']:34s} {ratio}  {r.get('agree', '')}", flush=True)

    interrupted = False
    pool = concurrent.futures.ThreadPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        if not pool:
            for n, (c, t) in enumerate(todo, 1):
                record(job(c, t), n)
        else:
            futs = [pool.submit(job, c, t) for c, t in todo]
            for n, f in enumerate(concurrent.futures.as_completed(futs), 1):
                record(f.result(), n)
    except (KeyboardInterrupt, Stopped):  # a time limit (timeout -s INT): keep the cases that finished
        interrupted = True
        with ACTIVE_LOCK:
            STOPPING.set()
            running = list(ACTIVE)
        for p in running:
            stop(p)
        print("interrupted: results.json holds the cases that finished; --resume continues", flush=True)
    if pool:
        pool.shutdown(wait=True, cancel_futures=True)  # the started cases end at their next run (Stopped)
    snapshot(final=not interrupted)
    for line in perf_report.write(data, args.out):
        print(line)
    if interrupted:
        return 130
    if args.require_created:  # the tool's own check (ctest): no timing is judged
        table_md = open(os.path.join(args.out, "table.md")).read()
        bad = [r["name"] for r in data["cases"]
               if r.get("status") != "ran" or not r.get("aij_matrices") or not r.get("diag_created")
               or not r.get("main_ratio") or f"`{r['name']}`" not in table_md]
        if bad or not data["cases"]:
            print("require-created: not run both ways with matrices created, main event logged and a row in table.md: "
                  + (", ".join(bad) or "no case"))
            return 1
        print(f"require-created: {len(data['cases'])} cases ran both ways, created their matrices, logged their main event")
    return 0


if __name__ == "__main__":
    sys.exit(main())
