"""Compares the outputs of a PETSc program run with aij and with diag, and
reads PETSc error messages out of an output. Used by run_compat.py.

What is compared: the words of the (filtered) standard output, in order;
numbers within a relative tolerance, with an absolute floor for residual
norms far below the first norm (rounding). Not compared: the blocks that
describe a matrix (KSPView/MatView "Mat Object:" and what is indented below
it: type, storage, nonzero counts differ by design), the names of the two
types, lines naming the options this runner adds, MPI launcher messages.
"""
import re

NUM = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
INT = re.compile(r"^[-+]?\d+$")
LAUNCHER_NOISE = re.compile(r"^\[[\w.-]+:\d+\] ")  # "[host:pid] ..." (Open MPI)
SPLIT = re.compile(r"[\s=,:;()\[\]<>]+")
TYPE_WORDS = {t: "@mat" for t in ("seqaij", "mpiaij", "aij", "seqdiag", "mpidiag", "diag", "seqaijcusparse", "mpiaijcusparse",
                                   "aijcusparse", "seqdiagcuda", "mpidiagcuda", "diagcuda")}
OUR_OPTIONS = ("dll_append", "libpetscdiag", "-info ", "option -info")
# PETSc's report of unused options: the header lines depend on how many of
# the runner's own type options (which the two runs set to different types
# and use differently) are left; the lines naming a test's own options are
# compared.
UNUSED_HEADER = re.compile(r"^WARNING! (There are options you set that were not used!|could be spelling mistake)|"
                           r"^There (are \d+ unused database options\. They are|is one unused database option\. It is):")
RUNNER_OPTION_LEFT = re.compile(r"^Option left: name:-(dm_)?(mat|vec)_type ")
# Monitor lines ("  3 KSP Residual norm ...", "  2 SNES Function norm ...")
MONITOR = re.compile(r"^\s*\d+\s+(KSP|SNES|TS|TAO|Linear|Nonlinear)\b|^\s*\d+ KSP \w+ resid norm")
# Lines of timings and storage statistics, printed by some solvers (SuperLU_DIST
# prints its statistics when -info is on, as it is in both runs here): the
# timings differ from run to run, the fill of a factor is storage.
NOT_COMPARED = re.compile(r"^\s*[A-Z]+ time\s|Mflops|fill ratio given")
# SuperLU_DIST's statistics (printed with -info, by every rank, interleaved)
SUPERLU_STATS = re.compile(r"^\s*(\*\*|\.\s|Matrix size min_mn|Nonzeros in [LU]\b|nonzeros in (L\+U|LSUB)|Sum-of-all|"
                           r"Max at rank|L\\U :|\w+ flops)")
# Stored zeros in MatView's "row i: (j, v) ..." lines: aij shows the zeros it
# stores (e.g. a DMDA's preallocated stencil), diag others; the matrix is the same.
ZERO_ENTRY = re.compile(r"\(\s*\d+\s*,\s*-?0\.?(e[-+]?0+)?\s*\)\s*")
NORMLINE = re.compile(r"norm|resid", re.IGNORECASE)


def kept_lines(text):
    """The lines that are compared, with their line numbers."""
    kept, skip_indent = [], None
    superlu = "** Memory Usage" in text or "**** Time (seconds)" in text
    for no, line in enumerate(text.splitlines()):
        if LAUNCHER_NOISE.match(line):
            skip_indent = 0  # with its indented continuation lines
            continue
        indent = len(line) - len(line.lstrip())
        if skip_indent is not None:
            if indent > skip_indent and line.strip():
                continue
            skip_indent = None
        if "Mat Object" in line:
            skip_indent = indent
            continue
        if any(o in line for o in OUR_OPTIONS) or NOT_COMPARED.search(line):
            continue
        if UNUSED_HEADER.match(line) or RUNNER_OPTION_LEFT.match(line):
            continue
        if superlu and SUPERLU_STATS.match(line):
            continue
        if line.startswith("row "):
            line = ZERO_ENTRY.sub("", line)
        kept.append((no, line))
    return kept


def tokens(lines):
    out = []
    for no, line in lines:
        for w in SPLIT.split(line):
            if w:
                out.append((TYPE_WORDS.get(w.lower(), w), no, line))
    return out


def norm_scale(lines):
    """The largest norm the output prints (usually the first residual norm):
    differences below 1e-10 of it are rounding."""
    scale = 0.0
    for _, line in lines:
        if NORMLINE.search(line):
            for w in SPLIT.split(line):
                if NUM.match(w) and not INT.match(w):
                    scale = max(scale, abs(float(w)))
    return scale


def _sig_digits(w):
    mant = NUM.match(w).group(1).replace(".", "").lstrip("0")
    return len(mant)


def _printed_unit(a, b):
    """One unit in the last printed digit of two numbers printed alike
    ("3.33207e-06": 1e-11): values printed with few digits may differ by one
    after rounding. %g drops trailing zeros ("2." is 2.00000), so at least
    6 significant digits are assumed."""
    import math
    v = max(abs(float(a)), abs(float(b)))
    if v == 0.0:
        return 0.0
    sig = max(_sig_digits(a), _sig_digits(b), 6)
    return 10.0 ** (math.floor(math.log10(v)) - sig + 1)


def _num_equal(a, b, rtol, atol):
    x, y = float(a), float(b)
    unit = _printed_unit(a, b)
    return abs(x - y) <= max(rtol * max(abs(x), abs(y)), atol, 1.01 * unit)


def compare(out_ref, out_diag, rtol=1e-6, floor=1e-10, abs_floor=1e-12):
    """('agree' | 'agree-within-1-iteration' | 'differ', detail). Numbers
    agree within rtol, or when both are below floor x the largest norm or
    below abs_floor (errors and residuals at the level of rounding).

    agree-within-1-iteration: some iteration count differs by one (a
    monitor's lines per solve, or a printed count), none by more, and the
    rest agrees once the monitor lines are set aside (their count differs)
    and the other numbers are compared loosely (one iteration more or less
    changes a final residual). The same iteration counts with different
    numbers is a difference. The detail of a difference starts with its
    kind: [output] (words differ), [iterations] (counts differ by more than
    one), [numbers] (the same counts, different values)."""
    lr, ld = kept_lines(out_ref), kept_lines(out_diag)
    atol = max(floor * norm_scale(lr), abs_floor)
    first = _first_difference(tokens(lr), tokens(ld), rtol, atol, int_slack=0)
    if first is None:
        return "agree", ""
    rr, rd = _monitor_runs(lr), _monitor_runs(ld)
    sr = [x for x in lr if not MONITOR.match(x[1])]
    sd = [x for x in ld if not MONITOR.match(x[1])]
    its = f" (monitor lines per solve: aij {_runs_text(rr)}, diag {_runs_text(rd)})" if rr != rd else ""
    if _skeleton(sr) != _skeleton(sd) or len(rr) != len(rd):
        return "differ", "[output] " + first + its
    ints_r = [w for w, _, _ in tokens(sr) if INT.match(w)]
    ints_d = [w for w, _, _ in tokens(sd) if INT.match(w)]
    gaps = [abs(a - b) for a, b in zip(rr, rd)] + [abs(int(a) - int(b)) for a, b in zip(ints_r, ints_d)]
    if max(gaps, default=0) > 1:
        return "differ", "[iterations] " + first + its
    if max(gaps, default=0) == 0:
        return "differ", "[numbers] " + first
    loose = _first_difference(tokens(sr), tokens(sd), 1e-2, max(atol, 1e-4 * norm_scale(lr)), int_slack=1)
    if loose is None:
        return "agree-within-1-iteration", first + its
    return "differ", "[numbers] " + loose + its


def _skeleton(lines):
    return [("#" if NUM.match(w) else w) for w, _, _ in tokens(lines)]


def _runs_text(runs):
    if len(runs) > 8:
        return ",".join(map(str, runs[:8])) + f",... ({len(runs)} solves)"
    return ",".join(map(str, runs)) or "none"


def _monitor_runs(lines):
    runs, n = [], 0
    for _, line in lines:
        if MONITOR.match(line):
            n += 1
        elif n:
            runs.append(n)
            n = 0
    if n:
        runs.append(n)
    return runs


def _first_difference(tr, td, rtol, atol, int_slack):
    for i in range(max(len(tr), len(td))):
        if i >= len(tr) or i >= len(td):
            a = tr[i] if i < len(tr) else ("<end of output>", -1, "<end of output>")
            d = td[i] if i < len(td) else ("<end of output>", -1, "<end of output>")
            return f"aij: {a[2].strip()} | diag: {d[2].strip()}"
        a, d = tr[i], td[i]
        if a[0] == d[0]:
            continue
        if NUM.match(a[0]) and NUM.match(d[0]):
            if INT.match(a[0]) and INT.match(d[0]):
                if abs(int(a[0]) - int(d[0])) <= int_slack:
                    continue
            elif _num_equal(a[0], d[0], rtol, atol):
                continue
        return f"aij: {a[2].strip()} | diag: {d[2].strip()}"
    return None


ERR = re.compile(r"^\[\d+\]PETSC ERROR: (.*)$")
SIGNAL = re.compile(r"Caught signal number (\d+) (\w+)|exited on signal (\d+) \(([^)]*)\)|signal (\d+) \((\w+)\)")


def first_error(text):
    """The first PETSc error message of an output (its message lines and the
    first function of its traceback), or None."""
    bodies = [m.group(1).strip() for m in (ERR.match(l.strip()) for l in text.splitlines()) if m]
    heads = [i for i, b in enumerate(bodies) if "Error Message" in b]
    if not heads:
        return None
    msg, frame = [], None
    i = heads[0] + 1
    while i < len(bodies) and not re.match(r"See http|Petsc |Option left|WARNING!|-{5}|#\d", bodies[i]):
        if bodies[i] and len(msg) < 3:
            msg.append(bodies[i])
        i += 1
    for b in bodies[i:]:
        if "Error Message" in b:
            break
        f = re.match(r"#\d+ (\S+)\(\)", b)
        if f:
            frame = f.group(1)
            break
    if not msg:
        msg = ["(empty message)"]
    return " / ".join(msg) + (f" [in {frame}()]" if frame else "")


def signal_of(text, rc):
    m = SIGNAL.search(text)
    if m:
        g = [x for x in m.groups() if x]
        return f"signal {g[0]} {g[1]}"
    if rc is not None and rc < 0:
        return f"signal {-rc}"
    return None


def group_key(message):
    """The message with its numbers and paths generalized, to group runs."""
    if not message:
        return "(no PETSc error message)"
    s = re.sub(r"0x[0-9a-fA-F]+", "ADDR", message)
    s = re.sub(r"(?<![\w<])/[\w./-]+", "PATH", s)
    s = re.sub(r"(?<!signal )\b\d+(\.\d+)?([eE][-+]?\d+)?", "N", s)
    return s
