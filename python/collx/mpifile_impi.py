"""Intel MPI's own tuning, as `collx tune --mpi-file` writes it and
`collx rules check` reads it.

Intel MPI takes its collectives' presets from the environment (Developer
Reference, "I_MPI_ADJUST Family"):
I_MPI_ADJUST_<COLL>[_NODE]="<id>[:<conditions>][;<id>:<conditions>...]",
a condition <l>-<m> the messages of l..m bytes, inclusive; id 0 its
"basic logic" (not the same as the variable unset: below). Which ids there are is read from the MPI (its MPI_T
variables MPIR_CVAR_USE_<COLL>[_NODE], "range: 0-N"), not a table. The
file is those variables, one a line, NAME="value", '#' comments: a
shell reads it (`set -a; . FILE; set +a`), and `collxrun --rules`
passes them to every rank (the rules file's provenance.mpi_tuning.env).

What Intel MPI 2021.19 does with them, measured here (two ranks,
collbench, a preset whose time differs from the default's):
* the size is the bytes per rank (allreduce: count x type size;
  allgather: a rank's block);
* the first condition a call matches wins, and a call that matches none
  takes the LAST preset of the list, not the MPI's own decision: a list
  written here covers 0..MAX_SIZE;
* a bound above 2^31 - 1 crashes every rank in MPI_Init (SIGSEGV);
* <l>-<m>@<p>-<q> (process counts) matched no call at p = 2 (@2, @2-2,
  @1-2, @1-1000 alike: the last preset took every call), so the writer
  keys by message size alone, one communicator size;
* on one node the MPI's shared-memory collectives run and
  I_MPI_ADJUST_<COLL> leaves them as they are; I_MPI_ADJUST_<COLL>_NODE
  picks among them;
* preset 0 ("basic logic of the collective algorithm selection") is not
  the MPI's decision with the variable unset: I_MPI_ADJUST_ALLGATHER=0
  took a 768-KiB allgather from 87 to 139 us, and 0 in a list an 8-B
  allreduce from 0.31 to 0.42 us. A size can keep the MPI's own
  decision only if its collective has no variable at all, so the tuner
  writes a collective's variable only where an explicit preset at every
  size is no slower than the default (mpitune.impi_complete)."""
import re

IMPI = "impi"
MAX_SIZE = 2 ** 31 - 1   # the largest bound Intel MPI 2021.19 survives
# the collectives tuned by message size (bytes per rank for each)
COLLS = ("allreduce", "bcast", "reduce", "allgather", "alltoall", "reduce_scatter_block")
LEVELS = {"": "preset", "_NODE": "node"}   # variable suffix -> candidate name prefix
VAR = re.compile(r"^I_MPI_ADJUST_([A-Z_]+?)(_NODE|_NETWORK|_COMPOSITION)?$")
LINE = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|(\S*))$')
MARK = "# Intel MPI I_MPI_ADJUST_ variables (collx tune --mpi-file)"
COND = re.compile(r"^(\d+)(?:-(\d+))?(?:@(\d+)(?:-(\d+))?)?$")


def variable(coll, level=""):
    return f"I_MPI_ADJUST_{coll.upper()}{level}"


def candidate(level, preset):
    """The tuner's name of a preset: node3 (I_MPI_ADJUST_<COLL>_NODE=3),
    preset5 (I_MPI_ADJUST_<COLL>=5)."""
    return f"{LEVELS[level]}{preset}"


def parse_candidate(name):
    """(variable suffix, preset id) of a candidate's name."""
    for level, prefix in LEVELS.items():
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            return level, int(name[len(prefix):])
    raise ValueError(f"'{name}' is not an Intel MPI preset candidate (node<N> or preset<N>)")


def presets(cvars, colls, one_node, alone_on_nodes=False):
    """{coll: [(candidate name, preset id)]} from the MPI's MPI_T variables
    (collx_info --mpi-cvars MPIR_CVAR_USE_): node presets unless every
    rank is alone on its node (alone_on_nodes: they have no node part to
    choose), the whole collective's where the ranks span nodes (on one
    node they change nothing)."""
    ranges = {}
    for cv in cvars:
        alias = re.search(r"@Alias:#\s*(I_MPI_ADJUST_\w+)", cv.get("description") or "")
        rng = re.search(r"range:\s*(\d+)-(\d+)", cv.get("description") or "")
        if alias and rng:
            ranges[alias.group(1)] = int(rng.group(2))
    out = {}
    for coll in colls:
        if coll not in COLLS:
            continue
        names = []
        for level in (() if alone_on_nodes else ("_NODE",)) + (() if one_node else ("",)):
            top = ranges.get(variable(coll, level), 0)
            names += [(candidate(level, k), k) for k in range(1, top + 1)]
        if names:
            out[coll] = names
    return out


def is_impi(cvars):
    return any(re.search(r"@Alias:#\s*I_MPI_ADJUST_", cv.get("description") or "")
               for cv in cvars)


def spec(ranges):
    """The value of one variable: ranges [(lowest bytes, preset id)] in
    growing order, the first from 0, each up to the next's lowest - 1,
    the last to MAX_SIZE."""
    parts = []
    for i, (lo, preset) in enumerate(ranges):
        hi = ranges[i + 1][0] - 1 if i + 1 < len(ranges) else MAX_SIZE
        parts.append(f"{preset}:{lo}-{hi}")
    return ";".join(parts)


def text(plan, header=()):
    """The file of plan {coll: [(lowest bytes per rank, candidate name or
    None)]} (None: no preset named). Each collective gets one variable per
    level a candidate of it was picked from, the ranges of the other
    picks at preset 0 there (the MPI's basic logic: not its decision with
    the variable unset, see above); a collective with no pick gets no
    variable (a comment says it keeps the MPI's own decision)."""
    out = [MARK] + [f"# {h}" for h in header]
    for coll, ranges in plan.items():
        picked = {lvl: [] for lvl in LEVELS}
        for lo, name in ranges:
            level, preset = parse_candidate(name) if name else (None, 0)
            for lvl in LEVELS:
                picked[lvl].append((lo, preset if lvl == level else 0))
        written = 0
        for lvl, rs in picked.items():
            if any(p for _, p in rs):
                merged = [r for i, r in enumerate(rs) if i == 0 or r[1] != rs[i - 1][1]]
                out.append(f'{variable(coll, lvl)}="{spec(merged)}"')
                written += 1
        if not written:
            out.append(f"# {coll}: no variable: the MPI's own decision at every size")
    return "\n".join(out) + "\n"


def variables(text_):
    """[(line, name, value)] of the file's assignments, and [problems]."""
    out, probs = [], []
    for i, line in enumerate(text_.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = LINE.match(line)
        if not m:
            probs.append(f"line {i}: '{line[:60]}' is not NAME=\"value\"")
            continue
        out.append((i, m.group(1), m.group(2) if m.group(2) is not None else m.group(3)))
    return out, probs


def check_value(name, value, where):
    """Problems of one I_MPI_ADJUST_ value, and what it serves in words."""
    probs, said, covered = [], [], []
    for item in value.split(";"):
        preset, _, conds = item.partition(":")
        if not preset.strip().isdigit():
            probs.append(f"{where}: '{item}': the preset must be a number >= 0")
            continue
        for c in (conds.split(",") if conds else []):
            m = COND.match(c.strip())
            if not m:
                probs.append(f"{where}: condition '{c}' is none of l, l-m, l@p, l-m@p-q")
                continue
            lo, hi, p, q = (int(x) if x else None for x in m.groups())
            hi = lo if hi is None else hi
            if max(lo, hi, p or 0, q or 0) > MAX_SIZE:
                probs.append(f"{where}: {c}: a bound above {MAX_SIZE} (Intel MPI 2021.19 "
                             "crashes in MPI_Init on it)")
            if hi < lo:
                probs.append(f"{where}: {c}: {lo}-{hi} is empty")
            if p is not None:
                probs.append(f"{where}: {c}: a process-count condition (@): Intel MPI "
                             "2021.19 matched none at p = 2, and gave every call the last "
                             "preset")
            covered.append((lo, hi))
        said.append(f"preset {preset} " + (f"from {conds}" if conds else "at every size"))
    if covered:   # calls outside every condition take the last preset
        gaps, nxt = [], 0
        for lo, hi in sorted(covered):
            if lo > nxt:
                gaps.append(f"{nxt}-{lo - 1}")
            nxt = max(nxt, hi + 1)
        if nxt <= MAX_SIZE:
            gaps.append(f"{nxt}-{MAX_SIZE}")
        if gaps:
            probs.append(f"{where}: sizes {', '.join(gaps)} match no condition: Intel MPI "
                         "gives them the list's last preset, not its own decision")
    return probs, f"{name}: " + "; ".join(said)


def check(text_):
    """(problems, lines saying what the file serves)."""
    assigns, probs = variables(text_)
    lines, seen = [], set()
    if not assigns and not probs:
        if MARK in text_:
            lines.append("no variable: the MPI's own decision for every collective")
        else:
            probs.append("no I_MPI_ADJUST_<COLL>=\"...\" line")
    for i, name, value in assigns:
        if not VAR.match(name):
            probs.append(f"line {i}: {name}: not an I_MPI_ADJUST_<COLL> variable")
            continue
        if name in seen:
            probs.append(f"line {i}: {name} set twice (the last wins)")
        seen.add(name)
        p, said = check_value(name, value, f"line {i}")
        probs += p
        lines.append(said)
    return probs, lines


def looks_like(text_):
    """Whether text is a file of I_MPI_ variables (or one collx wrote
    with none)."""
    assigns, _ = variables(text_)
    if not assigns:
        return MARK in text_
    return all(n.startswith("I_MPI_") for _, n, _ in assigns)


def env_of(text_):
    """The environment the file sets."""
    return {n: v for _, n, v in variables(text_)[0]}
