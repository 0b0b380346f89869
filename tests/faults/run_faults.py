#!/usr/bin/env python3
"""Runs the fault-injection cases (docs/reliability.md) and judges each outcome.

  run_faults.py api   --np N --driver fault_driver --mpiexec mpiexec --work DIR
  run_faults.py files --np N --mtx mtx --mpiexec mpiexec --work DIR

api:   every case of fault_driver (fault_driver -list) meant for N processes.
files: malformed Matrix Market and PETSc binary files (written into DIR)
       given to solvers/mtx, which must refuse each with "mtx: error:" and
       exit code 1 on every process.

Each run has a time limit (--timeout, default 60 s) and, unless --no-ulimit
(the sanitizer run: AddressSanitizer reserves terabytes of address space),
an address-space limit per process (--ulimit-gb, default 4). Outcomes:
  ok        the expected outcome: a PETSc error on every process (or on the
            processes given the bad argument), or a correct result
  wrong     a different outcome (an error where a result was expected, a
            result where an error was, or errors on some processes only)
  crash     a signal, a sanitizer report, or an exit without the driver's
            final line on every process
  hang      the time limit passed
PETSc binary files are written for the PETSc under test: --scalar real or
complex (a value is one or two big-endian doubles) and --indices 32 or 64
(every integer, the header's too, is 4 or 8 bytes), as CMake passes them
from the configuration it found (DIAG_PETSC_SCALAR, DIAG_PETSC_INDICES).

A JSON summary goes to DIR/summary.json; the exit code is 1 unless every
case is ok."""
import argparse, json, os, re, resource, signal, struct, subprocess, sys, time

SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|Undefined|Leak)Sanitizer")


def limit(gb):
    def f():
        if gb:
            b = int(gb * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (b, b))
        os.setsid()
    return f


def run_once(cmd, timeout, gb, env=None):
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=limit(gb), env=env)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode(errors="replace"), time.time() - t0, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out.decode(errors="replace"), time.time() - t0, True


# OpenMPI's launcher failing before the program starts: its session
# directory under /tmp raced another job's clean-up ("A call to mkdir was
# unable to create the desired directory ... orte_init failed"; seen once in
# a CI run with ctest -j2). That says nothing of the program under test.
LAUNCH_FAILURE = re.compile(r"orte_init failed|ORTE_ERROR_LOG: Error in file \S*session_dir")


def run(cmd, timeout, gb, env=None):
    """run_once, launched once more if mpiexec failed before the program ran."""
    rc, out, secs, hung = run_once(cmd, timeout, gb, env)
    if not hung and LAUNCH_FAILURE.search(out):
        rc, out, secs, hung = run_once(cmd, timeout, gb, env)
    return rc, out, secs, hung


def judge_api(name, expect, np, rc, out, hung):
    if hung:
        return "hang", "no end within the time limit"
    if SANITIZER.search(out):
        return "crash", "sanitizer report"
    lines = re.findall(r"faults: rank (\d+) of (\d+): case \S+: (ok|error (\d+))", out)
    ranks = {int(r): (st == "ok") for r, _, st, _ in lines}
    if len(ranks) != np:
        return "crash", "exit code %s; final line from %d of %d processes" % (rc, len(ranks), np)
    if "wrong answer" in out:
        return "wrong", "wrong answer"
    errors = [r for r, ok in ranks.items() if not ok]
    # every process that ended in an error printed PETSc's message
    for r in errors:
        if not re.search(r"\[%d\]PETSC ERROR: " % r, out):
            return "wrong", "process %d ended in an error without a PETSc error message" % r
    if expect == "error" and len(errors) != np:
        return "wrong", "an error on %d of %d processes" % (len(errors), np)
    if expect == "faulted" and not errors:
        return "wrong", "no error"
    if expect == "ok" and errors:
        return "wrong", "an error where a result was expected"
    if expect == "clean" and errors and len(errors) != np:
        return "wrong", "an error on %d of %d processes" % (len(errors), np)
    if rc != 0:
        return "crash", "exit code %s" % rc
    return "ok", "errors on %d of %d processes" % (len(errors), np) if errors else "correct result"


# ---- malformed files -------------------------------------------------------
def mm(header, size, entries):
    return "\n".join([header, size] + entries) + "\n"


GEN = "%%MatrixMarket matrix coordinate real general"


def mm_cases():
    c = {}
    ok_entries = ["1 1 4", "2 2 4", "3 3 4", "1 2 -1", "2 3 -1"]
    c["mm_ok"] = ("ok", mm(GEN, "3 3 5", ok_entries))
    c["mm_empty"] = ("error", "")
    c["mm_no_header"] = ("error", "3 3 1\n1 1 1\n")
    c["mm_header_words"] = ("error", "%%MatrixMarket matrix coordinate real\n3 3 1\n1 1 1\n")
    c["mm_header_object"] = ("error", "%%MatrixMarket vector coordinate real general\n3 3 1\n1 1 1\n")
    c["mm_header_format"] = ("error", "%%MatrixMarket matrix sparse real general\n3 3 1\n1 1 1\n")
    c["mm_header_field"] = ("error", "%%MatrixMarket matrix coordinate quaternion general\n3 3 1\n1 1 1\n")
    c["mm_header_complex"] = ("error", "%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 1 1 0\n")
    c["mm_header_symmetry"] = ("error", "%%MatrixMarket matrix coordinate real upper\n3 3 1\n1 1 1\n")
    c["mm_no_size_line"] = ("error", GEN + "\n% only a comment\n")
    c["mm_size_words"] = ("error", mm(GEN, "3 3", ["1 1 1"]))
    c["mm_size_not_int"] = ("error", mm(GEN, "3 x 1", ["1 1 1"]))
    c["mm_size_negative"] = ("error", mm(GEN, "-3 3 1", ["1 1 1"]))
    c["mm_size_zero"] = ("error", mm(GEN, "0 0 0", []))
    c["mm_size_int_overflow"] = ("error", mm(GEN, "3000000000 3 1", ["1 1 1"]))
    c["mm_size_ll_overflow"] = ("error", mm(GEN, "99999999999999999999 3 1", ["1 1 1"]))
    c["mm_huge_rows_one_entry"] = ("error", mm(GEN, "200000000 200000000 1", ["1 1 1"]))
    c["mm_huge_cols_few_entries"] = ("error", mm(GEN, "3 100000000 3", ["1 1 1", "2 2 1", "3 3 1"]))
    c["mm_huge_nnz_declared"] = ("error", mm(GEN, "3 3 2000000000", ["1 1 1"]))
    c["mm_truncated_entries"] = ("error", mm(GEN, "3 3 5", ok_entries[:3]))
    c["mm_truncated_mid_line"] = ("error", GEN + "\n3 3 2\n1 1 4\n2 2")
    c["mm_more_entries"] = ("error", mm(GEN, "3 3 2", ok_entries[:3]))
    c["mm_row_zero"] = ("error", mm(GEN, "3 3 1", ["0 1 1"]))
    c["mm_col_zero"] = ("error", mm(GEN, "3 3 1", ["1 0 1"]))
    c["mm_row_past_end"] = ("error", mm(GEN, "3 3 1", ["4 1 1"]))
    c["mm_col_past_end"] = ("error", mm(GEN, "3 3 1", ["1 4 1"]))
    c["mm_row_negative"] = ("error", mm(GEN, "3 3 1", ["-1 1 1"]))
    c["mm_col_int_max"] = ("error", mm(GEN, "3 3 1", ["1 2147483647 1"]))
    c["mm_col_int_max_plus_1"] = ("error", mm(GEN, "3 3 1", ["1 2147483648 1"]))
    c["mm_index_not_int"] = ("error", mm(GEN, "3 3 1", ["1.5 1 1"]))
    c["mm_value_nan"] = ("error", mm(GEN, "3 3 1", ["1 1 nan"]))
    c["mm_value_inf"] = ("error", mm(GEN, "3 3 1", ["1 1 inf"]))
    c["mm_value_junk"] = ("error", mm(GEN, "3 3 1", ["1 1 abc"]))
    c["mm_fields_missing"] = ("error", mm(GEN, "3 3 2", ["1 1", "2 2 1"]))
    c["mm_fields_extra"] = ("error", mm(GEN, "3 3 1", ["1 1 1 1"]))
    c["mm_integer_fraction"] = ("error", mm("%%MatrixMarket matrix coordinate integer general", "3 3 1", ["1 1 1.5"]))
    c["mm_integer_exponent"] = ("error", mm("%%MatrixMarket matrix coordinate integer general", "3 3 1", ["1 1 2e3"]))
    c["mm_integer_ok"] = ("ok", mm("%%MatrixMarket matrix coordinate integer general", "3 3 3", ["1 1 2", "2 2 -3", "3 3 4"]))
    c["mm_symmetric_both_triangles"] = ("error", mm("%%MatrixMarket matrix coordinate real symmetric", "3 3 3", ["1 1 1", "2 1 1", "1 2 1"]))
    c["mm_symmetric_rectangular"] = ("error", mm("%%MatrixMarket matrix coordinate real symmetric", "3 4 1", ["1 1 1"]))
    c["mm_skew_diagonal"] = ("error", mm("%%MatrixMarket matrix coordinate real skew-symmetric", "3 3 1", ["1 1 1"]))
    c["mm_pattern_with_values"] = ("error", mm("%%MatrixMarket matrix coordinate pattern general", "3 3 1", ["1 1 1"]))
    c["mm_array_truncated"] = ("error", mm("%%MatrixMarket matrix array real general", "2 2", ["1", "2", "3"]))
    c["mm_array_too_many"] = ("error", mm("%%MatrixMarket matrix array real general", "2 2", ["1", "2", "3", "4", "5"]))
    c["mm_array_huge"] = ("error", mm("%%MatrixMarket matrix array real general", "40000 40000", ["1"]))
    c["mm_binary_junk"] = ("error", bytes(range(256)) * 64)
    c["mm_zeros_no_newline"] = ("error", b"\0" * (3 << 20))
    c["mm_long_line"] = ("error", GEN + "\n3 3 1\n1 1 " + "1" * (2 << 20) + "\n")
    return c


MAT_CLASSID = 1211216


class BinaryFormat:
    """PETSc's binary matrix format for one configuration: PetscInt of 4 or
    8 bytes (INT), PetscScalar of one or two doubles (SCALAR bytes)."""

    def __init__(self, scalar="real", indices=32):
        self.complex = scalar == "complex"
        self.int_code = "q" if indices == 64 else "i"
        self.INT = 8 if indices == 64 else 4
        self.SCALAR = 16 if self.complex else 8

    def ints(self, values):
        return struct.pack(">%d%s" % (len(values), self.int_code), *values)

    def scalars(self, values):
        if self.complex:  # (re, im) pairs; the test matrices are real
            values = [part for v in values for part in (v, 0.0)]
        return struct.pack(">%dd" % len(values), *values)


FMT = BinaryFormat()


def petsc_binary(M, N, rowlens, cols, vals, header=None, classid=MAT_CLASSID, cut=None):
    nz = sum(rowlens) if header is None else header
    b = FMT.ints([classid, M, N, nz])
    b += FMT.ints(rowlens)
    b += FMT.ints(cols)
    b += FMT.scalars(vals)
    return b if cut is None else b[:cut]


def binary_cases():
    c = {}
    I, S = FMT.INT, FMT.SCALAR  # bytes of an integer and of a value
    head = 4 * I  # classid, M, N, nz
    rl, cols, vals = [2, 2, 1], [0, 1, 1, 2, 2], [4.0, -1.0, 4.0, -1.0, 4.0]
    c["bin_ok"] = ("ok", petsc_binary(3, 3, rl, cols, vals))
    c["bin_empty"] = ("error", b"")
    c["bin_short_header"] = ("error", petsc_binary(3, 3, rl, cols, vals, cut=head - I - 2))
    c["bin_wrong_classid"] = ("error", petsc_binary(3, 3, rl, cols, vals, classid=1211214))
    c["bin_negative_rows"] = ("error", petsc_binary(-3, 3, rl, cols, vals))
    c["bin_zero_cols"] = ("error", petsc_binary(3, 0, rl, cols, vals))
    c["bin_dense_format"] = ("error", petsc_binary(3, 3, rl, cols, vals, header=-1))
    c["bin_huge_rows"] = ("error", petsc_binary(200000000, 3, rl, cols, vals))
    c["bin_huge_nnz"] = ("error", petsc_binary(3, 3, rl, cols, vals, header=2000000000))
    c["bin_nnz_lies_low"] = ("error", petsc_binary(3, 3, rl, cols, vals, header=4))
    c["bin_nnz_lies_high"] = ("error", petsc_binary(3, 3, rl, cols, vals, header=6) + b"\0" * (I + S))
    c["bin_truncated_rowlens"] = ("error", petsc_binary(3, 3, rl, cols, vals, cut=head + I + I // 2))
    c["bin_truncated_cols"] = ("error", petsc_binary(3, 3, rl, cols, vals, cut=head + 3 * I + 2 * I))
    c["bin_truncated_vals"] = ("error", petsc_binary(3, 3, rl, cols, vals, cut=head + 3 * I + 5 * I + S + S // 2))
    c["bin_rowlen_negative"] = ("error", petsc_binary(3, 3, [3, -1, 3], cols, vals))
    c["bin_rowlen_past_N"] = ("error", petsc_binary(3, 3, [5, 0, 0], cols, vals))
    c["bin_col_negative"] = ("error", petsc_binary(3, 3, rl, [0, 1, -1, 2, 2], vals))
    c["bin_col_negative_last_row"] = ("error", petsc_binary(3, 3, rl, [0, 1, 1, 2, -1], vals))
    c["bin_col_N"] = ("error", petsc_binary(3, 3, rl, [0, 1, 1, 3, 2], vals))
    c["bin_col_int_max"] = ("error", petsc_binary(3, 3, rl, [0, 2147483647, 1, 2, 2], vals))
    c["bin_col_int_min"] = ("error", petsc_binary(3, 3, rl, [0, -2147483648, 1, 2, 2], vals))
    c["bin_cols_unsorted"] = ("error", petsc_binary(3, 3, rl, [1, 0, 1, 2, 2], vals))
    c["bin_cols_duplicate"] = ("error", petsc_binary(3, 3, rl, [1, 1, 1, 2, 2], vals))
    c["bin_value_nan"] = ("error", petsc_binary(3, 3, rl, cols, [4.0, float("nan"), 4.0, -1.0, 4.0]))
    c["bin_junk"] = ("error", bytes((i * 37 + 11) % 256 for i in range(4096)))
    c["bin_text_file"] = ("error", mm(GEN, "3 3 1", ["1 1 1"]).encode())
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite", choices=["api", "files"])
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--driver")
    ap.add_argument("--mtx")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--work", default="faults-work")
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("FAULTS_TIMEOUT", "60")))
    ap.add_argument("--ulimit-gb", type=float, default=4.0)
    ap.add_argument("--no-ulimit", action="store_true", default=os.environ.get("FAULTS_NO_ULIMIT") == "1")
    ap.add_argument("--only", help="run the cases whose name contains this")
    ap.add_argument("--scalar", choices=["real", "complex"], default="real", help="PetscScalar of the PETSc under test (binary files)")
    ap.add_argument("--indices", type=int, choices=[32, 64], default=32, help="bits of its PetscInt (binary files)")
    args = ap.parse_args()
    global FMT
    FMT = BinaryFormat(args.scalar, args.indices)
    gb = 0 if args.no_ulimit else args.ulimit_gb
    os.makedirs(args.work, exist_ok=True)
    mpi = [args.mpiexec, "-n", str(args.np), "--oversubscribe"]
    results = []
    if args.suite == "api":
        listing = subprocess.run([args.driver, "-list"], capture_output=True, text=True, check=True).stdout.split("\n")
        # a bytes limit the big cases hit before any allocation, whatever the memory limit
        opts = ["-mat_diag_max_bytes", "2e9"]
        junk = os.path.join(args.work, "junk.bin")
        with open(junk, "wb") as f:
            f.write(FMT.ints([MAT_CLASSID, 5, 5, 7]) + b"\x01" * 40)
        badcol = os.path.join(args.work, "badcol.bin")
        with open(badcol, "wb") as f:
            f.write(petsc_binary(3, 3, [2, 2, 1], [0, 1, 1, 7, 2], [4.0, -1.0, 4.0, -1.0, 4.0]))
        good = os.path.join(args.work, "good.bin")
        with open(good, "wb") as f:  # the tridiagonal matrix of fault_driver's NewTri, n = 4
            n, rl, cols, vals = 4, [], [], []
            for i in range(n):
                row = ([(i - 1, -1.0 - 0.01 * i)] if i > 0 else []) + [(i, 4.0 + 0.1 * i)] + ([(i + 1, -1.5)] if i < n - 1 else [])
                rl.append(len(row))
                cols += [j for j, _ in row]
                vals += [v for _, v in row]
            f.write(petsc_binary(n, n, rl, cols, vals))
        for line in listing:
            if not line.strip():
                continue
            name, expect, *nps = line.split()
            if str(args.np) not in nps or (args.only and args.only not in name):
                continue
            files = ["-junk_file", junk, "-badcol_file", badcol, "-good_file", good]
            rc, out, secs, hung = run(mpi + [args.driver, "-case", name] + files + opts, args.timeout, gb)
            verdict, why = judge_api(name, expect, args.np, rc, out, hung)
            results.append({"case": name, "np": args.np, "expect": expect, "verdict": verdict, "why": why, "seconds": round(secs, 2), "output": out if verdict != "ok" else ""})
    else:
        cases = {}
        for name, (expect, content) in {**mm_cases(), **binary_cases()}.items():
            path = os.path.join(args.work, name + (".petsc" if name.startswith("bin_") else ".mtx"))
            with open(path, "wb") as f:
                f.write(content.encode() if isinstance(content, str) else content)
            cases[name] = (expect, [path] + (["-binary"] if name.startswith("bin_") else []))
        cases["mm_dev_zero"] = ("error", ["/dev/zero"])
        cases["bin_dev_zero"] = ("error", ["/dev/zero", "-binary"])
        cases["mm_directory"] = ("error", [args.work])
        cases["mm_missing_file"] = ("error", [os.path.join(args.work, "no-such-file.mtx")])
        for name, (expect, fargs) in sorted(cases.items()):
            if args.only and args.only not in name:
                continue
            rc, out, secs, hung = run(mpi + [args.mtx, "-f"] + fargs, args.timeout, gb)
            if hung:
                verdict, why = "hang", "no end within the time limit"
            elif SANITIZER.search(out):
                verdict, why = "crash", "sanitizer report"
            elif expect == "ok":
                verdict, why = ("ok", "loaded") if rc == 0 and "mtx: error" not in out else ("wrong", "exit code %s" % rc)
            elif rc == 1 and re.search(r"mtx: error: .*\S", out):
                verdict, why = "ok", re.search(r"mtx: error: (.*)", out).group(1)[:160]
            else:
                verdict, why = ("crash" if rc is None or rc < 0 or rc > 1 else "wrong"), "exit code %s" % rc
            results.append({"case": name, "np": args.np, "expect": expect, "verdict": verdict, "why": why, "seconds": round(secs, 2), "output": out if verdict != "ok" else ""})
    counts = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        mark = "  " if r["verdict"] == "ok" else "!!"
        print("%s %-44s np%d %-7s %-5s %6.2fs  %s" % (mark, r["case"], r["np"], r["expect"], r["verdict"], r["seconds"], r["why"]))
    for r in results:
        if r["verdict"] != "ok":
            print("\n==== %s (np %d): %s\n%s" % (r["case"], r["np"], r["why"], r["output"][-4000:]))
    errors = sum(1 for r in results if r["verdict"] == "ok" and r["expect"] in ("error", "faulted"))
    print("\nfaults %s np%d: %d cases, %s; clean errors %d" % (args.suite, args.np, len(results), ", ".join("%s %d" % kv for kv in sorted(counts.items())), errors))
    with open(os.path.join(args.work, "summary.json"), "w") as f:
        json.dump({"suite": args.suite, "np": args.np, "counts": counts, "clean_errors": errors, "results": results}, f, indent=1)
    return 0 if results and all(r["verdict"] == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
