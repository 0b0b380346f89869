#!/usr/bin/env python3
"""Checks solvers/mtx and solvers/gen_matrices (ctest: solvers.mtx.*).

  suitesparse  every .mtx of --suitesparse: converts with MatMult equal to
               aij's (mtx -check, 1e-12), reporting the stored entries and
               fill of its structure report, or is refused for poor fill;
               the structure agrees with INDEX.tsv; complex files give a
               clear error. Exit 77 (skipped) when the folder is missing.
  broken       deliberately broken files, made here in --work: each refused
               with exit code 1 and a message naming the problem and the line.
  loader       small files whose expansion is known (symmetric, skew-symmetric,
               pattern, array, duplicates) compared entry by entry (-mat_view).
  generated    gen_matrices random and banded, Matrix Market and PETSc binary:
               the structure asked for, fill 1, -check, same seed same file.
  solve np<k>  mtx -solve -check on a data/ file with k processes: aij and diag
               converge alike to x = ones.
  plot         -view_structure writes a PNG (77 when no matplotlib).

Prints one line per check and closes with "N passed, M failed"."""
import argparse
import os
import re
import struct
import subprocess
import sys

ARGS = None
PASSED = 0
FAILED = 0


def record(ok, what, detail=""):
    global PASSED, FAILED
    if ok:
        PASSED += 1
        print(f"ok      {what}")
    else:
        FAILED += 1
        print(f"FAILED  {what}" + (f"\n        {detail}" if detail else ""))


def run(opts, np=1, exe=None, timeout=60):
    # One process runs without mpiexec (MPI singleton): mpiexec adds ~2 s to
    # every run that exits non-zero, and most runs here are meant to.
    cmd = ([] if np == 1 else [ARGS.mpiexec, "--oversubscribe", "-n", str(np)]) + [exe or ARGS.mtx] + opts
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def write(name, text):
    path = os.path.join(ARGS.work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# ---------------------------------------------------------------------------
def check_suitesparse():
    d = ARGS.suitesparse
    if not os.path.isdir(d):
        print(f"SKIPPED: SuiteSparse folder {d} not found")
        sys.exit(77)
    index = {}
    ipath = os.path.join(d, "INDEX.tsv")
    if os.path.exists(ipath):
        with open(ipath) as f:
            head = f.readline().rstrip("\n").split("\t")
            for line in f:
                row = dict(zip(head, line.rstrip("\n").split("\t")))
                index[row["name"]] = row
    files = sorted(x for x in os.listdir(d) if x.endswith(".mtx"))
    converted = refused = 0
    for name in files:
        path = os.path.join(d, name)
        stem = name[:-4]
        with open(path, errors="replace") as f:
            header = f.readline().lower()
        rc, out, err = run(["-f", path, "-check"])
        if "complex" in header:
            ok = rc == 1 and "line 1: " + complex_refusal() in err
            record(ok, f"{stem}: complex matrix refused clearly", err.strip())
            continue
        if rc != 0:
            record(False, f"{stem}: mtx -check", f"exit {rc}: {err.strip()}")
            continue
        conv = re.search(r"^conversion: converted", out, re.M)
        chk = re.search(r"^check: .*: ok$", out, re.M)
        poor = re.search(r"^conversion: refused: fill (\S+) of \w+ is below -min_fill", out, re.M)
        fill = float(re.search(r"^  HM : stored\s+\d+ entries, fill (\S+),", out, re.M).group(1))
        ndiag = int(re.search(r"^  diagonals (\d+)", out, re.M).group(1))
        if conv:
            converted += 1
            record(bool(chk), f"{stem}: converted, MatMult and MatMultTranspose equal to aij (1e-12)", out)
            # what the conversion reports is what the structure report gave for its scheme
            got = re.search(r"^conversion: converted .*storage (HM|CDM), .*stored (\d+) entries, fill (\S+)$", out, re.M)
            want = got and re.search(rf"^  {got.group(1)}\s*: stored\s+(\d+) entries, fill (\S+),", out, re.M)
            record(bool(want) and got.group(2, 3) == want.group(1, 2), f"{stem}: the conversion reports the stored entries and fill of its scheme",
                   f"conversion {got.group(2, 3) if got else '?'}, structure {want.group(1, 2) if want else '?'}")
        else:
            refused += 1
            record(bool(poor) and float(poor.group(1)) < 0.3, f"{stem}: refused with a reason (fill {poor.group(1) if poor else '?'} < 0.3)", out)
        if stem in index:
            want_nd, want_fill = int(index[stem]["ndiag"]), float(index[stem]["diag_fill"])
            record(ndiag == want_nd and abs(fill - want_fill) < 1e-3, f"{stem}: structure as INDEX.tsv ({ndiag} diagonals, fill {fill:.4f})",
                   f"INDEX.tsv says {want_nd} diagonals, fill {want_fill}")
    # a refused one, forced; and the same checks on 2 processes for a few
    for name, np in (("bcsstk01.mtx", 1), ("bcsstk01.mtx", 2), ("nos4.mtx", 2), ("Trefethen_2000.mtx", 2), ("rdb800l.mtx", 2)):
        path = os.path.join(d, name)
        if not os.path.exists(path):
            continue
        rc, out, err = run(["-f", path, "-check", "-force"], np=np)
        record(rc == 0 and re.search(r"^check: .*: ok$", out, re.M) is not None, f"{name} -force on {np} process(es): converted, MatMult equal to aij", out + err)
    print(f"{len(files)} files: {converted} converted, {refused} refused for poor fill")


# ---------------------------------------------------------------------------
H = "%%MatrixMarket matrix coordinate real general\n"


def int_bytes():
    return 8 if ARGS.indices == 64 else 4


def scalar_bytes():
    return 16 if ARGS.scalar == "complex" else 8


def petsc_binary(M, N, rows, vals):
    """A PETSc binary AIJ file: class id, sizes, row lengths, columns, values
    (big-endian), for the PETSc under test: integers of --indices bits, values
    of one double (real) or two (complex: the imaginary parts zero)."""
    nz = sum(len(r) for r in rows)
    i = "q" if ARGS.indices == 64 else "i"
    b = struct.pack(f">4{i}", 1211216, M, N, nz)
    b += struct.pack(f">{M}{i}", *[len(r) for r in rows])
    b += struct.pack(f">{nz}{i}", *[c for r in rows for c in r])
    if ARGS.scalar == "complex":
        vals = [part for v in vals for part in (v, 0.0)]
    b += struct.pack(f">{len(vals)}d", *vals)
    return b


def complex_refusal():
    """What mtx says of a complex Matrix Market file: it reads real ones only."""
    return "complex matrix: mtx reads real matrices only" if ARGS.scalar == "complex" else "complex matrix: this PETSc build has real scalars"


def check_broken():
    cases = [
        # name, text, expected line, words the message must hold
        ("truncated.mtx", H + "3 3 5\n1 1 1\n2 2 2\n3 3 3\n", 6, "truncated: the file ends after 3 of the 5 entries"),
        ("truncated_midline.mtx", H + "3 3 3\n1 1 1\n2 2 2\n3 3", 5, "truncated: the last entry has 2 of its 3 fields"),
        ("wrong_header.mtx", "%%MatrixMarkt matrix coordinate real general\n3 3 1\n1 1 1\n", 1, "wrong header"),
        ("no_header.mtx", "3 3 1\n1 1 1\n", 1, "wrong header"),
        ("header_fields.mtx", "%%MatrixMarket matrix coordinate real\n3 3 1\n1 1 1\n", 1, "wrong header: 3 words"),
        ("row_out_of_range.mtx", H + "% a comment\n3 3 2\n1 1 1\n4 1 7\n", 5, "row index 4 out of range [1, 3]"),
        ("col_out_of_range.mtx", H + "3 3 2\n1 1 1\n2 9 7\n", 4, "column index 9 out of range [1, 3]"),
        ("index_zero.mtx", H + "3 3 2\n1 1 1\n0 1 7\n", 4, "row index 0 out of range [1, 3]"),
        ("negative_size.mtx", H + "% comment\n-3 3 2\n1 1 1\n2 1 7\n", 3, "negative size: rows -3"),
        ("negative_count.mtx", H + "3 3 -2\n", 2, "negative size: entries -2"),
        ("size_line.mtx", H + "3 3\n1 1 1\n", 2, "size line has 2 numbers, expected 3"),
        ("nan.mtx", H + "3 3 3\n1 1 1\n2 2 nan\n3 3 3\n", 4, "value is NaN"),
        ("inf.mtx", H + "3 3 2\n1 1 1\n2 2 -inf\n", 4, "value is infinite"),
        ("not_a_number.mtx", H + "3 3 2\n1 1 1\n2 2 x1\n", 4, "value 'x1' is not a number"),
        ("extra_entries.mtx", H + "3 3 2\n1 1 1\n2 2 2\n3 3 3\n", 5, "more entries than the 2 declared"),
        ("extra_field.mtx", H + "3 3 2\n1 1 1 5\n2 2 2\n", 3, "entry has 4 fields, expected 3"),
        ("complex.mtx", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 2\n", 1, complex_refusal()),
        ("both_triangles.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n2 1 5\n1 2 5\n", 5, "both sides of the diagonal"),
        ("skew_diagonal.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n2 2 1\n", 4, "skew-symmetric matrix with a nonzero diagonal entry"),
        ("symmetric_rect.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 2\n", 2, "must be square"),
        ("array_truncated.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 6, "truncated: the file ends after 3 of the 4 values"),
        ("array_nan.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\nNaN\n3\n4\n", 4, "value is NaN"),
        ("empty.mtx", "", 1, "empty file"),
        ("no_size_line.mtx", H + "% only comments\n", 3, "truncated: the file ends before the size line"),
    ]
    for name, text, line, words in cases:
        path = write(name, text)
        rc, out, err = run(["-f", path])
        want = f"line {line}: "
        ok = rc == 1 and want in err and words in err and "mtx: error:" in err
        record(ok, f"{name}: refused naming line {line} and '{words}'", f"exit {rc}, stderr: {err.strip()}")
    # PETSc binary files
    good = os.path.join(ARGS.work, "good.petsc")
    with open(good, "wb") as f:
        f.write(petsc_binary(2, 2, [[0, 1], [1]], [4.0, 1.0, 3.0]))
    rc, out, err = run(["-f", good])
    record(rc == 1 and "line 1: wrong header" in err and "-binary" in err, "binary file without -binary: wrong header, hint at -binary", err.strip())
    rc, out, err = run(["-f", good, "-binary", "-check"])
    record(rc == 0 and "check: " in out and ": ok" in out, "hand-written PETSc binary file loads with -binary", out + err)
    nanf = os.path.join(ARGS.work, "nan.petsc")
    with open(nanf, "wb") as f:
        f.write(petsc_binary(3, 3, [[0], [0, 1], [2]], [1.0, 2.0, float("nan"), 3.0]))
    rc, out, err = run(["-f", nanf, "-binary"])
    record(rc == 1 and "NaN or infinite value in row 1, column 1" in err, "binary file with a NaN: refused naming row and column", err.strip())
    short = os.path.join(ARGS.work, "truncated.petsc")
    with open(short, "wb") as f:
        f.write(petsc_binary(3, 3, [[0], [1], [2]], [1.0, 2.0, 3.0])[:-12])
    rc, out, err = run(["-f", short, "-binary"])
    need = (4 + 3 + 3) * int_bytes() + 3 * scalar_bytes()
    record(rc == 1 and f"truncated or wrong header: a 3 x 3 matrix with 3 entries takes {need} bytes, the file has {need - 12}" in err, "truncated binary file refused", err.strip())
    text = write("text_as_binary.mtx", H + "1 1 1\n1 1 1\n")
    rc, out, err = run(["-f", text, "-binary"])
    record(rc == 1 and "not a PETSc binary matrix: class id" in err, "text file given with -binary refused", err.strip())
    rc, out, err = run(["-f", os.path.join(ARGS.work, "does_not_exist.mtx")])
    record(rc == 1 and "cannot open the file" in err, "missing file refused", err.strip())


# ---------------------------------------------------------------------------
def dense_of(out):
    """The first matrix printed by -mat_view ::ascii_dense."""
    lines = out.splitlines()
    k = next(i for i, l in enumerate(lines) if "type: seqaij" in l)
    rows = []
    for l in lines[k + 1:]:
        try:
            rows.append([float(x) for x in l.split()])
        except ValueError:
            break
    return rows


def check_loader():
    S = "%%MatrixMarket matrix coordinate real symmetric\n"
    cases = [
        ("sym_lower.mtx", S + "3 3 4\n1 1 2\n2 1 5\n3 1 7\n3 3 1\n", [[2, 5, 7], [5, 0, 0], [7, 0, 1]]),
        ("sym_upper.mtx", S + "3 3 4\n1 1 2\n1 2 5\n1 3 7\n3 3 1\n", [[2, 5, 7], [5, 0, 0], [7, 0, 1]]),
        ("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 2 7\n", [[0, -5, 0], [5, 0, -7], [0, 7, 0]]),
        ("integer.mtx", "%%MatrixMarket matrix coordinate integer general\n2 3 3\n1 1 4\n2 3 -2\n1 2 1\n", [[4, 1, 0], [0, 0, -2]]),
        ("pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 1\n2 1\n2 2\n", [[1, 0], [1, 1]]),
        ("pattern_sym.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n1 1\n2 1\n3 1\n2 2\n", [[3, -1, -1], [-1, 2, 0], [-1, 0, 0]]),
        ("duplicates.mtx", H + "2 2 3\n1 1 1\n1 1 2\n2 2 5\n", [[3, 0], [0, 5]]),
        ("array.mtx", "%%MatrixMarket matrix array real general\n2 3\n1\n2\n0\n4\n5\n6\n", [[1, 0, 5], [2, 4, 6]]),
        ("array_sym.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", [[1, 2], [2, 3]]),
        ("array_skew.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", [[0, -1, -2], [1, 0, -3], [2, 3, 0]]),
        ("comments_blank.mtx", H + "% c\n\n2 2 1\n% c\n\n2 1 9\n", [[0, 0], [9, 0]]),
        ("crlf.mtx", H.replace("\n", "\r\n") + "2 2 1\r\n1 2 3\r\n", [[0, 3], [0, 0]]),
    ]
    for name, text, want in cases:
        path = write(name, text)
        rc, out, err = run(["-f", path, "-mat_view", "::ascii_dense", "-check", "-force"])
        got = dense_of(out) if rc == 0 else None
        record(rc == 0 and got == [[float(x) for x in r] for r in want], f"{name}: entries as expected", f"exit {rc}, got {got}, want {want}\n{err.strip()}")


# ---------------------------------------------------------------------------
def structure(out):
    nd = int(re.search(r"^  diagonals (\d+)", out, re.M).group(1))
    fill = float(re.search(r"^  HM : stored\s+\d+ entries, fill (\S+),", out, re.M).group(1))
    nnz = int(re.search(r"nonzeros (\d+)", out).group(1))
    return nd, fill, nnz


def check_generated():
    w = ARGS.work
    gen = lambda opts: run(opts, exe=ARGS.gen)
    for kind, opts, nd_want in (("random", ["-type", "random", "-n", "600", "-ndiag", "9", "-seed", "3"], 9),
                                ("banded", ["-type", "banded", "-n", "300", "-lower", "2", "-upper", "3"], 6)):
        mm, bn = os.path.join(w, f"{kind}.mtx"), os.path.join(w, f"{kind}.petsc")
        rc1, o1, e1 = gen(opts + ["-o", mm])
        rc2, o2, e2 = gen(opts + ["-o", bn, "-binary"])
        record(rc1 == 0 and rc2 == 0, f"gen_matrices {kind}: Matrix Market and binary written", e1 + e2)
        if rc1 or rc2:
            continue
        rc, out, err = run(["-f", mm, "-check"])
        nd, fill, nnz = structure(out) if rc == 0 else (0, 0, 0)
        record(rc == 0 and nd == nd_want and fill == 1.0 and "check: " in out and ": ok" in out,
               f"{kind}.mtx: {nd_want} diagonals, HM fill 1, MatMult equal to aij", out + err)
        rcb, outb, errb = run(["-f", bn, "-binary", "-check"], np=2)
        ndb, fillb, nnzb = structure(outb) if rcb == 0 else (0, 0, 0)
        record(rcb == 0 and (ndb, fillb, nnzb) == (nd, fill, nnz) and ": ok" in outb, f"{kind}.petsc (-binary, 2 processes): the same structure, MatMult equal", outb + errb)
        again = os.path.join(w, f"{kind}_again.mtx")
        gen(opts + ["-o", again])
        body = lambda p: [l for l in open(p) if not l.startswith("% made by")]  # that line names the output file
        record(body(mm) == body(again), f"{kind}: the same options give the same file")
    other = os.path.join(w, "random_seed4.mtx")
    gen(["-type", "random", "-n", "600", "-ndiag", "9", "-seed", "4", "-o", other])
    record(open(other).read() != open(os.path.join(w, "random.mtx")).read(), "random: another seed gives another matrix")
    rc, out, err = gen(["-type", "random", "-n", "10", "-ndiag", "12", "-o", os.path.join(w, "x.mtx")])
    record(rc != 0 and "does not fit" in (out + err), "gen_matrices refuses more diagonals than fit", out + err)


# ---------------------------------------------------------------------------
def check_solve(np):
    path = os.path.join(ARGS.data, "random_n400_d7_s1.mtx")
    rc, out, err = run(["-f", path, "-solve", "-check", "-ksp_rtol", "1e-10"], np=np)
    print(out + err)
    m = {k: re.search(rf"^  {k}\s*:\s+(\d+) iterations, (\w+), \|\|x - ones\|\| = (\S+),", out, re.M) for k in ("aij", "diag")}
    if rc != 0 or not all(m.values()):
        record(False, f"mtx -solve on {np} process(es)", f"exit {rc}")
        return
    (ia, ra, ea), (idg, rd, ed) = [(int(x.group(1)), x.group(2), float(x.group(3))) for x in (m["aij"], m["diag"])]
    record(ra.startswith("CONVERGED") and rd.startswith("CONVERGED"), f"{np} process(es): aij and diag converged ({ra}, {rd})")
    record(abs(ia - idg) <= 1, f"{np} process(es): iterations agree (aij {ia}, diag {idg})")
    record(ea < 1e-6 and ed < 1e-6, f"{np} process(es): ||x - ones|| small (aij {ea:.2e}, diag {ed:.2e})")
    record(": ok" in out, f"{np} process(es): MatMult equal to aij")


def check_plot():
    png = os.path.join(ARGS.work, "structure.png")
    if os.path.exists(png):
        os.remove(png)
    rc, out, err = run(["-f", os.path.join(ARGS.data, "banded_n200_l2_u3.mtx"), "-view_structure", png], np=2)
    if rc != 0 and ("matplotlib" in err or "No module" in err):
        print(f"SKIPPED: no matplotlib: {err.strip()}")
        sys.exit(77)
    ok = rc == 0 and os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(png) > 2000
    record(ok, "-view_structure writes a PNG", out + err)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--mtx", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--data", required=True, help="the project's data/ folder")
    ap.add_argument("--work", required=True, help="a scratch folder for made files")
    ap.add_argument("--suitesparse", default="")
    ap.add_argument("--scalar", choices=["real", "complex"], default="real", help="PetscScalar of the PETSc mtx is built with")
    ap.add_argument("--indices", type=int, choices=[32, 64], default=32, help="bits of its PetscInt (PETSc binary files)")
    ap.add_argument("what", choices=["suitesparse", "broken", "loader", "generated", "solve", "plot"])
    ap.add_argument("np", nargs="?", default="np1")
    ARGS = ap.parse_args()
    os.makedirs(ARGS.work, exist_ok=True)
    if ARGS.what == "suitesparse":
        check_suitesparse()
    elif ARGS.what == "broken":
        check_broken()
    elif ARGS.what == "loader":
        check_loader()
    elif ARGS.what == "generated":
        check_generated()
    elif ARGS.what == "solve":
        check_solve(int(ARGS.np.lstrip("np")))
    else:
        check_plot()
    print(f"{PASSED} passed, {FAILED} failed")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
