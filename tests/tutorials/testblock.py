"""Reads the /*TEST ... TEST*/ block of a PETSc tutorial (PETSc's YAML-like
test language, as config/testparse.py of PETSc reads it) and the PETSc
configuration (petscconf.h) its `requires:` lines are checked against.

A source gives a list of runs: dicts with name, nsize, args, requires,
filter, env, localrunfiles, todo (TODO/SKIP text) and, for the runs made
by expanding {{a b c}} loops, the chosen values in the name.
"""
import itertools
import re

KEYS = set("test testset build nsize requires command suffix diff_args args filter filter_output "
           "localrunfiles comments TODO SKIP output_file timeoutfactor env temporaries".split())
APPENDED = set("args diff_args requires comments env".split())  # a nested test adds to its testset's
KEYLINE = re.compile(r"^(\s*)(\w+)\s*:(.*)$")
LOOP = re.compile(r"\{\{(.*?)\}(?:\s*(separate|shared)[\s_]*output)?\s*\}")
MAX_COMBOS = 8  # more loop combinations than this: every loop takes its first value


def test_block(source_text):
    """The text of the TEST blocks (several are allowed, PETSc joins them)."""
    parts = source_text.split("/*TEST")[1:]
    return "\n".join(p.split("TEST*/")[0] for p in parts)


def _lines(block):
    """(indent, key, value) entries; a line that is not `key:` continues the
    previous value, as does a line ending in a backslash."""
    out = []
    text = block.replace("\\\n", " ")
    for raw in text.split("\n"):
        if not raw.strip() or raw.strip().startswith("#"):
            continue
        line = raw.split(" #")[0].rstrip() if " #" in raw and '"' not in raw and "'" not in raw else raw.rstrip()
        m = KEYLINE.match(line)
        if m and m.group(2) in KEYS:
            out.append([len(m.group(1)), m.group(2), m.group(3).strip()])
        elif out:
            out[-1][2] = (out[-1][2] + " " + line.strip()).strip()
    return out


def _tree(entries):
    """Top-level blocks: [(kind, {key: value}, [child dicts])]. Children are
    the nested `test:` entries of a testset (or of a test)."""
    blocks = []
    i = 0
    while i < len(entries):
        ind, key, val = entries[i]
        if key not in ("test", "testset", "build"):
            i += 1  # stray key outside a block: PETSc rejects it; ignore
            continue
        body, children = {}, []
        j = i + 1
        base = None
        while j < len(entries) and entries[j][0] > ind:
            cind, ckey, cval = entries[j]
            if base is None:
                base = cind
            if ckey == "test" and cind == base:
                child = {}
                k = j + 1
                while k < len(entries) and entries[k][0] > cind:
                    _add(child, entries[k][1], entries[k][2])
                    k += 1
                children.append(child)
                j = k
                continue
            _add(body, ckey, cval)
            j += 1
        blocks.append((key, body, children))
        i = j
    return blocks


def _add(d, key, val):
    if key in d and key in APPENDED:
        d[key] += " " + val
    else:
        d[key] = val


def _merge(parent, child):
    out = dict(parent)
    for k, v in child.items():
        if k in APPENDED and k in out:
            out[k] = out[k] + " " + v
        else:
            out[k] = v
    return out


def _expand_loops(t):
    """Splits a run with {{a b}} loops in args or nsize into one run per
    combination of values (both separate and shared output loops: each
    combination is a separate program run here). Too many combinations:
    the first value of each loop, said in 'note'."""
    loops = []  # (field, start, end, values)
    for field in ("nsize", "args"):
        for m in LOOP.finditer(t.get(field, "")):
            loops.append((field, m.start(), m.end(), m.group(1).split()))
    if not loops:
        return [t]
    total = 1
    for lp in loops:
        total *= max(1, len(lp[3]))
    combos = list(itertools.product(*[lp[3] or [""] for lp in loops]))
    note = None
    if total > MAX_COMBOS:
        combos = combos[:1]
        note = f"{total} loop combinations: only the first values run"
    runs = []
    for combo in combos:
        r = dict(t)
        for field in ("nsize", "args"):
            text = t.get(field, "")
            pieces, last = [], 0
            for lp, val in zip(loops, combo):
                if lp[0] != field:
                    continue
                pieces.append(text[last:lp[1]])
                pieces.append(val)
                last = lp[2]
            pieces.append(text[last:])
            if field in t:
                r[field] = "".join(pieces)
        labels = []
        for lp, val in zip(loops, combo):
            if len(lp[3]) > 1 and total <= MAX_COMBOS:
                optname = "nsize" if lp[0] == "nsize" else _option_before(t["args"], lp[1])
                labels.append(f"{optname}-{val}")
        if labels:
            r["name"] = t["name"] + "+" + "+".join(labels).replace(",", "__")
        if note:
            r["note"] = note
        runs.append(r)
    return runs


def _option_before(args, pos):
    m = re.findall(r"-(\w+)\s*$", args[:pos])
    return m[-1] if m else "loop"


def parse_tests(source_text, exname):
    """Runs of one tutorial: (build requires, [run dicts])."""
    blocks = _tree(_lines(test_block(source_text)))
    build_requires = ""
    runs = []
    for kind, body, children in blocks:
        if kind == "build":
            build_requires = body.get("requires", "")
            continue
        base = exname + ("_" + body["suffix"] if body.get("suffix") else "")
        if not children:
            t = dict(body, name=base if body.get("suffix") else exname + "_1")
            runs.append(t)
            continue
        for n, child in enumerate(children):
            t = _merge({k: v for k, v in body.items() if k != "suffix"}, child)
            if child.get("suffix"):
                t["name"] = base + "_" + child["suffix"]
            else:  # PETSc runs suffix-less subtests in one script; here each on its own
                t["name"] = (base if body.get("suffix") else exname + "_1") + (f"_{n}" if len(children) > 1 else "")
            runs.append(t)
    if build_requires:
        for t in runs:
            t["requires"] = (t.get("requires", "") + " " + build_requires).strip()
    out = []
    for t in runs:
        out += _expand_loops(t)
    return build_requires, out


def read_petscconf(path):
    conf = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"#define\s+(\w+)\s*(.*)", line)
            if m:
                conf[m.group(1)] = m.group(2).strip() or "1"
    prec = "double"
    for p, macro in (("single", "PETSC_USE_REAL_SINGLE"), ("__float128", "PETSC_USE_REAL___FLOAT128"),
                     ("__fp16", "PETSC_USE_REAL___FP16"), ("double", "PETSC_USE_REAL_DOUBLE")):
        if macro in conf:
            prec = p
    conf["__precision__"] = prec
    return conf


def unmet_requirements(requires, conf, unavailable=()):
    """Reasons why a run cannot run with this PETSc (empty: it can), after
    PETSc's gmakegentest.py: !x negates, precision and integer sizes,
    defined(MACRO), datafilespath, else PETSC_HAVE_X (PETSC_USE_X for
    complex and debug). `unavailable` names things petscconf.h claims but
    this machine cannot do (x: no display)."""
    reasons = []
    for req in requires.replace(",", " ").split():
        neg = req.startswith("!")
        name = req[1:] if neg else req
        if name in ("single", "double", "__float128", "__fp16"):
            have = conf["__precision__"] == name
        elif name in ("int32", "int64"):
            have = ("PETSC_USE_64BIT_INDICES" in conf) == (name == "int64")
        elif name in ("long32", "long64"):
            have = conf.get("PETSC_SIZEOF_LONG") == str(int(name[4:]) // 8)
        elif name == "64bitptr":
            have = conf.get("PETSC_SIZEOF_VOID_P") == "8"
        elif name == "datafilespath":
            have = False
        elif name.lower().startswith("defined("):
            have = name.split("(")[1].split(")")[0] in conf
        elif name in ("complex", "debug"):
            have = "PETSC_USE_" + name.upper() in conf
        else:
            have = "PETSC_HAVE_" + name.upper() in conf and name not in unavailable
        if have == neg:
            reasons.append(("not " if neg else "needs ") + name)
    return reasons
