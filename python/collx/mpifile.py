"""The MPI's own tuning files, which `collx tune --mpi-file` writes from
its measurements of the MPI's algorithms and `collx rules check` reads:
their text, their reading and checking, and the environment that makes
an MPI use one (no collx at run time).

* Open MPI (coll/tuned's dynamic rules, Open MPI 4.1's reader:
  ompi/mca/coll/tuned/coll_tuned_dynamic_file.c): numbers separated by
  white space, '#' to the end of a line a comment: the count of
  collectives; per collective its id (the COLLTYPE order of
  ompi/mca/coll/base/coll_base_functions.h), the count of communicator
  sizes; per communicator size the size and the count of message sizes;
  per message size: the size, the algorithm's id (0: the MPI's own fixed
  decision), fan-in/out and segment size (0: the algorithm's default). A
  call takes the last communicator size <= its own (else the first) and
  the last message size <= its own; the message size is the call's bytes,
  per rank for allreduce, bcast and reduce, times the communicator size
  for allgather, alltoall, gather, scatter and reduce_scatter_block
  (coll_tuned_decision_dynamic.c). Used with
  coll_tuned_use_dynamic_rules=1 and coll_tuned_dynamic_rules_filename.
* MPICH (4.0: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, the MPIR-level
  selection, src/mpi/coll/src/csel.c): JSON, a tree of conditions,
  "collective=NAME" at the top, "comm_type=intra", "comm_size<=N",
  "avg_msg_size<=N" (bytes per rank: allreduce, bcast, reduce, alltoall)
  or "total_msg_size<=N" (all ranks': allgather, reduce_scatter_block),
  each list of a kind ending in "...=any", leaves
  "algorithm=MPIR_<Coll>_intra_<name>" (the nonblocking one
  MPIR_<Coll>_allcomm_nb). MPICH reads the file instead of its own tree,
  so the file holds every collective: the collectives not tuned, and the
  ranges where the MPI's own decision stays, are the MPI's own tree
  (tune/mpitune.py reads it from the MPI library).
* SMPI (SimGrid): SimGrid options, one a line, '#' comments:
  --cfg=smpi/<coll>:<name> forces SMPI's algorithm <name> for a
  collective at every size and communicator (SMPI has no ranges), or
  --cfg=smpi/coll-selector:<name> a whole selector (ompi, mpich, ...).
  sim/run reads the file from SMPI_OPTIONS_FILE and passes its lines
  after its own options, so they win; with smpirun alone:
  smpirun ... $(grep -v '^#' FILE) program.
* Intel MPI: its I_MPI_ADJUST_<COLL>[_NODE] variables, NAME="value" a
  line (mpifile_impi.py)."""
import json
import os
import re

from collx import mpifile_impi as impi

OPENMPI, MPICH, SMPI, IMPI = "openmpi", "mpich", "smpi", impi.IMPI

# Open MPI 4.1's COLLTYPE (coll_base_functions.h): a collective's id in the file
OMPI_IDS = {c: i for i, c in enumerate((
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw", "barrier",
    "bcast", "exscan", "gather", "gatherv", "reduce", "reduce_scatter",
    "reduce_scatter_block", "scan", "scatter", "scatterv"))}
OMPI_COLLTYPES = 22   # COLLCOUNT: neighbourhood collectives after these
# the message size coll/tuned looks up: bytes per rank (1) or times the
# communicator size ("q"); barrier has none (its rules at 0)
OMPI_SCALE = {"allreduce": 1, "bcast": 1, "reduce": 1, "allgather": "q", "alltoall": "q",
              "gather": "q", "scatter": "q", "reduce_scatter_block": "q", "barrier": 0}
# MPICH's size condition per collective (csel.c: get_avg_msgsize covers these
# four; total_msg_size is all ranks' bytes)
MPICH_SIZE = {"allreduce": "avg_msg_size", "bcast": "avg_msg_size", "reduce": "avg_msg_size",
              "alltoall": "avg_msg_size", "allgather": "total_msg_size",
              "reduce_scatter_block": "total_msg_size"}
# the collectives SimGrid 3.32 lets smpi/<coll> choose (smpi_coll.cpp)
SMPI_COLLS = ("gather", "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv",
              "reduce", "reduce_scatter", "scatter", "bcast", "barrier")
SMPI_LINE = re.compile(r"^--cfg=smpi/([a-z_-]+):([A-Za-z0-9_]+)$")
MPICH_KEY = re.compile(r"^(collective|comm_type|comm_size|avg_msg_size|total_msg_size|count|"
                       r"comm_hierarchy|is_[a-z_]+|comm_avg_ppn|k|composition|algorithm)"
                       r"(<=|<|=)(.*)$")


def supports(kind, coll):
    """Whether a file of this kind can say coll's algorithm by message size."""
    if kind == SMPI:
        return coll in SMPI_COLLS
    if kind == IMPI:
        return coll in impi.COLLS
    return coll in (OMPI_SCALE if kind == OPENMPI else MPICH_SIZE)


def env_for(kind, path):
    """The environment that makes the MPI read its tuning file at path."""
    path = os.path.abspath(path)
    if kind == SMPI:
        return {"SMPI_OPTIONS_FILE": path}
    if kind == IMPI:   # the MPI reads the variables themselves
        try:
            with open(path) as f:
                return impi.env_of(f.read())
        except OSError:
            return {}
    if kind == OPENMPI:
        return {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                "OMPI_MCA_coll_tuned_dynamic_rules_filename": path}
    return {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": path}


def file_size(kind, coll, q, m):
    """The size the MPI's file keys a call of m bytes per rank on q ranks by."""
    if kind == OPENMPI:
        scale = OMPI_SCALE[coll]
        return m * q if scale == "q" else m * scale
    return m * q if MPICH_SIZE[coll] == "total_msg_size" else m


def mpich_name(coll, name):
    """MPICH's function name of the algorithm its CVAR calls name."""
    cap = coll[0].upper() + coll[1:]
    return f"MPIR_{cap}_allcomm_nb" if name == "nb" else f"MPIR_{cap}_intra_{name}"


# ------------------------------------------------------------ Open MPI

def openmpi_text(plan, header=()):
    """The dynamic rules file of plan: {coll: {q: [(m, alg id)]}}, m the
    lowest bytes per rank of a range (the first 0), alg id 0 for the MPI's
    own decision; header: comment lines."""
    out = [f"# {h}" for h in header]
    colls = sorted((c for c in plan if plan[c]), key=OMPI_IDS.get)
    out.append(f"{len(colls)}    # collectives")
    for c in colls:
        out += [f"{OMPI_IDS[c]}    # collective id: {c}",
                f"{len(plan[c])}    # communicator sizes"]
        for q in sorted(plan[c]):
            ranges = plan[c][q]
            out += [f"{q}    # communicator size", f"{len(ranges)}    # message sizes"]
            for m, alg in ranges:
                size = file_size(OPENMPI, c, q, m)
                out.append(f"{size} {alg} 0 0    # from {m} B per rank")
    return "\n".join(out) + "\n"


def numbers(text):
    """The numbers of an Open MPI rules file with their line numbers, as its
    reader takes them (a '#' skips to the end of its line)."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        for word in line.split("#", 1)[0].split():
            out.append((word, i))
    return out


def parse_openmpi(text):
    """({coll id: {q: [(size, alg, fan, seg)]}}, [problems]) as Open MPI
    4.1 reads the file (numbers, in order)."""
    words, probs, rules = numbers(text), [], {}
    pos = [0]

    def growing(what, x, last, line):
        if x <= last:   # Open MPI takes the last entry <= a call's
            probs.append(f"line {line}: {what} {x} after {last}: they must grow")

    def nxt(what):
        if pos[0] >= len(words):
            raise ValueError(f"the file ends where {what} should be")
        w, line = words[pos[0]]
        pos[0] += 1
        if not re.fullmatch(r"\d+", w):
            raise ValueError(f"line {line}: {what} must be a number >= 0, not '{w}'")
        return int(w), line
    try:
        ncol, _ = nxt("the count of collectives")
        for _ in range(ncol):
            cid, line = nxt("a collective id")
            if cid >= OMPI_COLLTYPES:
                probs.append(f"line {line}: collective id {cid}: Open MPI 4.1 has "
                             f"{OMPI_COLLTYPES} (0..{OMPI_COLLTYPES - 1})")
            if cid in rules:
                probs.append(f"line {line}: collective id {cid} twice")
            rules[cid] = {}
            ncs, _ = nxt("the count of communicator sizes")
            last_q = -1
            for _ in range(ncs):
                q, line = nxt("a communicator size")
                growing("communicator size", q, last_q, line)
                last_q = q
                nms, _ = nxt("the count of message sizes")
                ranges, last_m = [], -1
                for _ in range(nms):
                    m, line = nxt("a message size")
                    growing("message size", m, last_m, line)
                    last_m = m
                    alg, _ = nxt("an algorithm id")
                    fan, _ = nxt("a fan-in/out")
                    seg, _ = nxt("a segment size")
                    ranges.append((m, alg, fan, seg))
                if ranges and ranges[0][0] != 0:
                    probs.append(f"communicator size {q}: the first message size is "
                                 f"{ranges[0][0]}, not 0: smaller calls take its rule too")
                rules[cid][q] = ranges
        if pos[0] < len(words):
            probs.append(f"line {words[pos[0]][1]}: numbers after the last collective "
                         "(Open MPI ignores them)")
    except ValueError as e:
        probs.append(str(e))
    return rules, probs


# ------------------------------------------------------------ MPICH

def mpich_tree(plan, default, algs_of):
    """MPICH's selection JSON (a dict): default (the MPI's own tree, every
    collective) with each planned collective's intra-communicator branch
    replaced: plan {coll: {q: [(m, name or None)]}} (None: the MPI's own
    decision there, its own branch); algs_of(coll, name): the function
    name."""
    out = {}
    for key, sub in default.items():
        coll = key.partition("=")[2]
        if coll not in plan or not plan[coll]:
            out[key] = sub
            continue
        own = sub.get("comm_type=intra", sub)
        qs = sorted(plan[coll])
        comm = {}
        for i, q in enumerate(qs):
            ranges = plan[coll][q]
            kind = MPICH_SIZE[coll]
            if all(name is None for _, name in ranges):
                branch = own
            else:
                branch = {}
                for j, (m, name) in enumerate(ranges):
                    leaf = own if name is None else {f"algorithm={algs_of(coll, name)}": {}}
                    if j + 1 < len(ranges):
                        hi = file_size(MPICH, coll, q, ranges[j + 1][0]) - 1
                        branch[f"{kind}<={hi}"] = leaf
                    else:
                        branch[f"{kind}=any"] = leaf
            comm[f"comm_size<={q}" if i + 1 < len(qs) else "comm_size=any"] = branch
        out[key] = {"comm_type=intra": comm,
                    **{k: v for k, v in sub.items() if k.startswith("comm_type=inter")}}
    return out


def check_mpich(doc):
    """Problems of an MPICH selection tree as MPICH 4.0 reads it: keys it
    knows, a list of conditions of one kind ending in "=any" (a comparison
    needs a next one to fall to), leaves naming MPIR_ algorithms, every
    collective's tree reaching a leaf."""
    probs = []

    def walk(node, where):
        if not isinstance(node, dict):
            probs.append(f"{where}: not an object")
            return
        keys = list(node)
        if keys and keys[0].startswith(("algorithm=", "composition=")):
            name = keys[0].partition("=")[2]
            if not re.fullmatch(r"MPI[RD]_[A-Z][a-z_]+_(intra|inter|allcomm)_\w+", name):
                probs.append(f"{where}: '{name}' is not an MPICH algorithm's name")
            return
        if not keys:
            probs.append(f"{where}: empty: no algorithm at its end")
        for k in keys:
            if not MPICH_KEY.match(k.replace(" ", "")):
                probs.append(f"{where}: key '{k}' MPICH does not know")
        compared = [k for k in keys if re.search(r"(<=|<)", k)]
        if compared and not keys[-1].endswith("=any"):
            probs.append(f"{where}: '{keys[-1]}' ends a list of comparisons: the last "
                         "must be '...=any' (where calls beyond them go)")
        for k in keys:
            walk(node[k], f"{where} > {k}")
    if not isinstance(doc, dict) or not doc:
        return ["not a JSON object of collectives"]
    for k, v in doc.items():
        if not k.startswith("collective="):
            probs.append(f"top level: '{k}': every key there is collective=NAME")
        walk(v, k)
    return probs


def mpich_choices(doc, coll):
    """[(conditions, algorithm)] of coll's tree, in order (what the check
    prints)."""
    out = []

    def walk(node, conds):
        keys = list(node) if isinstance(node, dict) else []
        if keys and keys[0].startswith(("algorithm=", "composition=")):
            out.append((conds, keys[0].partition("=")[2]))
            return
        for k in keys:
            walk(node[k], conds + [k])
    walk(doc.get(f"collective={coll}", {}), [])
    return out


# ------------------------------------------------------------ SMPI

def smpi_text(plan, header=(), defaults=None):
    """The SMPI options file of plan: {coll: SMPI algorithm name, or None
    for SMPI's own choice}; header: comment lines. A collective that keeps
    SMPI's own choice gets its default's line (defaults: {coll: name},
    what SimGrid set), so the file says what was measured, with plain
    smpirun too (whose selector is not sim/run's), and is never empty."""
    out = [f"# {h}" for h in header]
    for c in SMPI_COLLS:
        if plan.get(c):
            out.append(f"--cfg=smpi/{c}:{plan[c]}")
        elif c in plan and (defaults or {}).get(c):
            out.append(f"--cfg=smpi/{c}:{defaults[c]}    # SMPI's own (the default), kept")
    return "\n".join(out) + "\n"


def smpi_lines(text):
    """[(line number, line)] of an SMPI options file, comments and blank
    lines left out, a line without --cfg= given it (as sim/run does)."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            out.append((i, line if line.startswith("-") else "--cfg=" + line))
    return out


def parse_smpi(text, algs=None):
    """({key: name}, [problems]): key a collective or "coll-selector";
    algs ({coll: [names]}, read from SimGrid) checks the names too."""
    out, probs = {}, []
    for i, line in smpi_lines(text):
        m = SMPI_LINE.match(line)
        if not m:
            probs.append(f"line {i}: '{line}': not --cfg=smpi/<collective>:<algorithm>")
            continue
        key, name = m.groups()
        if key != "coll-selector" and key not in SMPI_COLLS:
            probs.append(f"line {i}: smpi/{key}: SMPI chooses no algorithm for it (known: "
                         f"{', '.join(SMPI_COLLS)}, coll-selector)")
            continue
        if key in out:
            probs.append(f"line {i}: smpi/{key} set twice (the last wins)")
        if algs and key in algs and name not in algs[key]:
            probs.append(f"line {i}: SMPI has no {key} algorithm '{name}' (it has: "
                         f"{', '.join(algs[key])})")
        out[key] = name
    if not out and not probs:
        probs.append("no --cfg=smpi/<collective>:<algorithm> line")
    return out, probs


def is_smpi(text):
    lines = smpi_lines(text)
    return bool(lines) and all(line.startswith("--cfg=smpi/") for _, line in lines)


# ------------------------------------------------------------ either

def kind_of(path):
    """OPENMPI, MPICH, SMPI or None (a collx rules file, or neither) from
    the file's text."""
    try:
        with open(path) as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    s = text.lstrip()
    if s.startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError:
            return None
        return MPICH if isinstance(doc, dict) and any(
            str(k).startswith("collective=") for k in doc) else None
    if is_smpi(text):
        return SMPI
    if impi.looks_like(text):
        return IMPI
    body = [w for w, _ in numbers(text)]
    return OPENMPI if body and all(re.fullmatch(r"\d+", w) for w in body) else None


def check(path):
    """(kind, problems, lines saying what the file serves)."""
    kind = kind_of(path)
    with open(path) as f:
        text = f.read()
    names = {v: k for k, v in OMPI_IDS.items()}
    lines = []
    if kind == OPENMPI:
        rules, probs = parse_openmpi(text)
        for cid, by_q in sorted(rules.items()):
            for q, ranges in sorted(by_q.items()):
                lines.append(f"{names.get(cid, f'collective {cid}')} from {q} ranks: " + ", ".join(
                    f"from {m} B " + (f"algorithm {a}" if a else "the MPI's own decision")
                    for m, a, _, _ in ranges))
        return kind, probs, lines
    if kind == MPICH:
        doc = json.loads(text)
        probs = check_mpich(doc)
        for c in MPICH_SIZE:
            comm = doc.get(f"collective={c}", {}).get("comm_type=intra", {})
            if not comm or not all(k.startswith("comm_size<=") or k == "comm_size=any"
                                   for k in comm):
                continue   # the MPI's own tree: not tuned
            for ck, sizes in comm.items():
                leaves = sizes if all(k.startswith(MPICH_SIZE[c]) for k in sizes) else \
                    {f"{MPICH_SIZE[c]}=any": sizes}
                lines.append(f"{c} at {ck}: " + ", ".join(
                    f"{sk}: " + (next(iter(v)).partition("=")[2]
                                 if len(v) == 1 and next(iter(v)).startswith("algorithm=")
                                 else "the MPI's own decision") for sk, v in leaves.items()))
        lines.append(f"{len(doc)} collectives in all (MPICH reads no other tree)")
        return kind, probs, lines
    if kind == SMPI:
        plan, probs = parse_smpi(text)
        for key, name in plan.items():
            lines.append(f"{key}: {name} (at every size and communicator)"
                         if key != "coll-selector" else
                         f"every collective not named: the {name} selector")
        return kind, probs, lines
    if kind == IMPI:
        probs, lines = impi.check(text)
        return kind, probs, lines
    return None, [not_a_tuning_file(text)], []


def not_a_tuning_file(text):
    """Why text is none of the MPI tuning files, naming where it stops
    looking like one (a file cut before its first number is only its
    header comments)."""
    words = numbers(text)
    if not words:
        return ("nothing but comments: an Open MPI rules file cut before its first number, "
                "or an empty file")
    for w, line in words:
        if not re.fullmatch(r"\d+", w):
            return (f"line {line}: '{w[:40]}' is not a number: neither an Open MPI rules file "
                    "(numbers and # comments), an MPICH selection JSON, SMPI options "
                    "(--cfg=smpi/...) nor Intel MPI's I_MPI_ADJUST_ variables")
    return ("neither an Open MPI rules file, an MPICH selection JSON, SMPI options nor "
            "Intel MPI's I_MPI_ADJUST_ variables")
