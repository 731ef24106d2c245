"""Labels of what the tuner measures: an algorithm, or a variant of it with
per-call knobs set (NAME@KNOB=VALUE), and the runs a list of labels splits
into (what may share a collbench run, in which order). Below target.py
(which runs them), rules.py (which writes them as rules with "params") and
the tuner's deciding modules: all of them need labels, none needs another
to read one."""

# Algorithms that leave work behind in the process: an RMA bcast keeps its
# runtime's progress job, which steps inside every later collx call
# (src/rma/README.md, the inline engine SMPI runs): measured after one, a
# collx binomial bcast took 11.4 us where native's same tree took 8.6
# (fattree-256x16, p=24, 2 KiB). Each is measured in a run of its own, so
# that it slows nothing else (native is not slowed: PMPI_).
APART_PREFIX = ("rma_",)


NATIVE = "native"   # the MPI's own call (PMPI_): no collx knob changes it

# One of the MPI's own algorithms, forced for a launch (tune/mpialgs.py):
# native:<the MPI's name>, e.g. native:recursive_doubling.
MPI_SEP = ":"


def mpi_label(name):
    return f"{NATIVE}{MPI_SEP}{name}"


def mpi_name(label):
    """The MPI's algorithm name of a native:<name> label (None for another)."""
    head, sep, name = label.partition(MPI_SEP)
    return name if sep and head == NATIVE else None

# An algorithm with per-call knobs set ("variant", the tuner's search of a
# knob's `tune` values in its knobs.def) is the label
# NAME@KNOB=VALUE[@KNOB=VALUE]: measured with the knobs in its run's
# environment, written as a rule with "params".
PARAM_SEP = "@"


# Per-call knobs whose value matters only between nodes, so that a variant
# setting one is its algorithm itself inside one node: COLLX_HIER_INTER
# names the node leaders' algorithm, and hier_leaders (src/hier/leaders.c)
# returns at once on one node. Measured there anyway (issue 62: MPICH,
# p = 2 on one node), hier and its COLLX_HIER_INTER variants, launches
# apart, timed 10-16 % apart and 12 allreduce rules alternated between them.
# Such a variant is no candidate inside one node (options.registry: not on a
# one-node target; decide.Decider.per_call, sampler.Sampler.todo: not at a
# communicator inside one node).
ACROSS_NODES = ("COLLX_HIER_INTER",)


def across_nodes_only(label):
    """A variant whose knobs matter only between nodes (ACROSS_NODES)."""
    return any(k in ACROSS_NODES for k in split_label(label)[1])


def split_label(label):
    """(algorithm name, {knob: value}) of a label."""
    name, *kv = label.split(PARAM_SEP)
    return name, dict(x.split("=", 1) for x in kv)


def label_of(name, params=None):
    return PARAM_SEP.join([name] + [f"{k}={v}" for k, v in sorted((params or {}).items())])


def base_of(label, labels):
    """The algorithm a variant sets knobs of, if it is among labels (None
    for an algorithm run as it is)."""
    name = split_label(label)[0]
    return name if name != label and name in labels else None


def params_key(label):
    """What labels measured in one run share: their params, as text."""
    return label_of("", split_label(label)[1])


def same_alg(a, b):
    """Two labels of one algorithm (collbench's column ran under a rule
    names the algorithm, not the params collx applied)."""
    return split_label(a)[0] == split_label(b)[0]


def runs(labels):
    """labels split into runs that do not disturb each other: those without
    params together, those with the same params together (the knobs go to
    the run's environment, where they would change the others), each label
    that leaves work behind alone."""
    apart = [x for x in labels if x.startswith(APART_PREFIX)]
    groups = {}
    for x in labels:
        if x not in apart:
            groups.setdefault(params_key(x), []).append(x)
    return list(groups.values()) + [[x] for x in apart]


def interleaved(labels, reps, turn=0):
    """labels listed reps times, every other time reversed (starting
    reversed when turn is odd): times drift within a launch (emulated
    cluster, bcast of 12 B at 5 ranks: 105 us for the first 7 cases, 64
    after), so a label always listed first would be timed slower than the
    one after it, and an ABBA order cancels a steady drift."""
    return [x for r in range(reps)
            for x in (labels if (r + turn) % 2 == 0 else labels[::-1])]


def with_params(args, env, run):
    """Runs collbench args whose --algs may carry params (one set per run,
    as runs() groups them; native beside them, which collx's knobs do not
    touch): collbench gets the algorithm names and the knobs in its
    environment; the rows come back under the labels (column ran too,
    where the algorithm itself served)."""
    i = args.index("--algs")
    labels = args[i + 1].split(",")
    if not any(PARAM_SEP in x for x in labels):
        return run(args, env)
    keyed = {params_key(x) for x in labels if x != NATIVE}
    if len(keyed) > 1:
        raise ValueError(f"one set of params per collbench run: {args[i + 1]}")
    knobs = split_label(next(x for x in labels if x != NATIVE))[1]
    names = [split_label(x)[0] for x in labels]
    rows, out = run(args[:i + 1] + [",".join(names)] + args[i + 2:], {**(env or {}), **knobs})
    back = {n: x for n, x in zip(names, labels)}
    for r in rows:
        lab = back.get(r["alg"], r["alg"])
        if r["ran"] == r["alg"]:
            r["ran"] = lab
        r["alg"] = lab
    return rows, out
