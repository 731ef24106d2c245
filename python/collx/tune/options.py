"""What `collx tune` and `collx validate` share: the options that name
the target (where to measure, with which limits), the target they make,
and the algorithms to measure there (the registry, with the variants the
knob table gives). Below main.py and validate.py, so that neither imports
the other."""
from collx.tune import limits
from collx.tune.labels import ACROSS_NODES, label_of
from collx.tune.target import Real, Replay, Smpi


def target_args(ap):
    """Options every subcommand shares: where to measure and its limits."""
    t = ap.add_argument_group("target (one of --platform, --launch, --real)")
    t.add_argument("--platform", help="SMPI platform (a source checkout with SimGrid): a "
                   "NAME of sim/platforms or the path of a platform XML with NAME.hostfile "
                   "and NAME.cfg beside it")
    t.add_argument("--hostfile", help="SMPI placement: NAME (PLATFORM.NAME.hostfile) or a path")
    t.add_argument("--launch", help="real MPI: the launcher command that starts P ranks, "
                   "e.g. \"mpirun -np 4\" (collbench and its arguments are appended)")
    t.add_argument("--real", action="store_true",
                   help="real MPI with a source checkout's launcher for COLLX_MPI "
                   "(bench/mpi_env.sh); installed: --launch")
    t.add_argument("--replay", help="no measuring: answer from the tune.json of an earlier "
                   "--grid report (to study the sampling against a known grid)")
    t.add_argument("-n", type=int, dest="p", help="ranks (the largest communicator)")
    t.add_argument("--ranks-per-node", type=int,
                   help="real MPI on several nodes: ranks per node (block placement)")
    t.add_argument("--collbench", help="collbench binary (default: $COLLX_BENCH_DIR, "
                   "beside this collx (an install's bin, a checkout's build), PATH)")
    t.add_argument("--collx-info", dest="collx_info",
                   help="collx_info binary (looked for as collbench is)")
    t.add_argument("--colls", default="all", help="collectives, comma-separated (default all)")
    t.add_argument("--algs", help="only these algorithms (and native), comma-separated names; "
                   "their variants with per-call knobs included (default every registered one; "
                   "validate --algs native: the rules against native alone)")
    t.add_argument("--timeout", type=float, default=300,
                   help="seconds one run may take before it is killed: host CPU seconds in "
                   "SMPI (and 20 times that on the wall clock), wall seconds on a real MPI "
                   "(default 300)")
    t.add_argument("--mem-limit", type=float,
                   help="GiB one run may hold resident before it is killed "
                   "(default a third of this machine's memory)")
    t.add_argument("--reps", type=int, help="samples per point (default 1 in SMPI, whose "
                   "runs are deterministic; 3 on a real MPI)")
    t.add_argument("--iters", type=int, help="timed repetitions per sample (collbench -i; "
                   "default 3 SMPI, 20 real)")
    t.add_argument("--warmup", type=int,
                   help="warm-up calls (collbench -x; default 1 SMPI, 5 real)")


def make_target(a):
    if sum(bool(x) for x in (a.platform, a.launch, a.real, a.replay)) != 1:
        raise SystemExit("tune: give exactly one of --platform, --launch, --real, --replay")
    if a.platform and not a.p:
        raise SystemExit("tune: --platform needs -n P")
    try:
        if a.replay:
            t = Replay(a.replay)
        elif a.platform:
            t = Smpi(a.platform, a.p, hostfile=a.hostfile, collbench=a.collbench,
                     info=a.collx_info)
        else:
            t = Real(a.p, launch_cmd=a.launch, node=a.ranks_per_node, collbench=a.collbench,
                     info=a.collx_info)
    except ValueError as e:   # a target the user named wrong: one line, no traceback
        raise SystemExit(f"tune: {e}")
    smpi = t.kind != "real"
    a.reps = a.reps or (1 if smpi else 3)
    a.iters = a.iters or (3 if smpi else 20)
    a.warmup = a.warmup if a.warmup is not None else (1 if smpi else 5)
    a.mem_limit = int(a.mem_limit * 2**30) if a.mem_limit else limits.default_mem_limit()
    return t


def registry(t, colls, params=True, only=None):
    """{coll: [algorithms, native first]} of the collectives asked for; with
    params, after each algorithm its variants: every value the knob table
    gives a per-call knob that algorithm reads to try (labels.label_of:
    NAME@KNOB=VALUE), one knob at a time."""
    try:
        reg = dict(t.registry())
    except (RuntimeError, OSError) as e:   # collx_info did not run: say so, no traceback
        raise SystemExit(f"tune: {e}")
    want = list(reg) if colls == "all" else colls.split(",")
    bad = [c for c in want if c not in reg]
    if bad:
        raise SystemExit(f"tune: unknown collective(s) {', '.join(bad)}; known: "
                         f"{', '.join(reg)}")
    space = t.tune_space() if params else []
    named = set(only.split(",")) if only else set()
    keep = named | {"native"} if only else None
    if only and not named & {x for c in want for x in reg[c]}:
        raise SystemExit(f"tune: --algs {only}: none is an algorithm of "
                         f"{', '.join(want)}")
    # on one node a knob that matters only between nodes makes no variant
    # (labels.ACROSS_NODES: it would be its algorithm measured apart)
    space = [x for x in space if t.node or x[0] not in ACROSS_NODES]
    out = {}
    for c in want:
        algs = ["native"] + [x for x in reg[c] if x != "native" and (not keep or x in keep)]
        out[c] = [lab for a in algs for lab in [a] + [
            label_of(a, {k: v}) for k, values, readers in space if a in readers
            for v in values.get(c, values.get("*", []))]]
    return out
