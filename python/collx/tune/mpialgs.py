"""The MPI's own algorithms, read from the MPI itself at run time (no
table that ages): which MPI it is, its algorithms per collective with the
MPI's own ids, and the environment that forces one for a launch.

collx_info --mpi-cvars reads the MPI's control variables through MPI_T
(no MPI_Init, no launcher):

* Open MPI: coll_tuned_<coll>_algorithm, an enumeration of [id, name]
  (id 0 "ignore": the MPI's own decision); forced with
  OMPI_MCA_coll_tuned_use_dynamic_rules=1 and
  OMPI_MCA_coll_tuned_<coll>_algorithm=<id>.
* MPICH: MPIR_CVAR_<COLL>_INTRA_ALGORITHM, an int whose description lists
  the names ("auto - Internal algorithm selection ...nb - Force
  nonblocking algorithmsmp - Force smp algorithm..."); MPICH 4.0 joins the
  lines without a separator, so a name can be glued to the word before it.
  Each name is checked with the MPI: set in the environment, MPICH parses
  a name it knows to its index in that list and one it does not to 0
  (auto), and collx_info reads the value back. Forced with
  MPIR_CVAR_<COLL>_INTRA_ALGORITHM=<name>.

* SMPI (SimGrid): smpi/<coll>:<name>; SimGrid answers a name it does
  not know with its list ("Collective 'allreduce' has no algorithm
  'collx-list'! Valid algorithms: default, lr, ..."), and logs the
  algorithm each collective starts with (smpi_coll at info: "Switch to
  algorithm ompi for collective allreduce": sim/run's default). Forced
  with SMPI_FLAGS=--cfg=smpi/<coll>:<name> (sim/run). Left out: the
  name the default already is, and "automatic" (SimGrid runs every
  algorithm in each call and keeps the fastest: a benchmark of its own,
  no algorithm to force).

* Intel MPI: MPIR_CVAR_USE_<COLL>[_NODE], aliases of I_MPI_ADJUST_<COLL>
  and I_MPI_ADJUST_<COLL>_NODE, whose descriptions give the presets'
  range ("range: 0-14"); candidates node<N> and, where the ranks span
  nodes, preset<N> (mpifile_impi.py: on one node only the node presets
  change anything). Forced with I_MPI_ADJUST_<COLL>[_NODE]=<N>.

A candidate is the label native:<name> (labels.mpi_label)."""
import json
import os
import re
import subprocess

from collx import mpifile, mpifile_impi

OPENMPI, MPICH, SMPI, IMPI = "openmpi", "mpich", "smpi", mpifile_impi.IMPI

# MPICH: an entry of the description, "name<padding>- text"
ENTRY = re.compile(r"([a-z][a-z0-9_]*)(\s*)-\s")
PROBE_ROUNDS = 40   # at most this many candidate spellings per name
# SMPI: the answer to an unknown name, and the log of the algorithm set
SMPI_VALID = re.compile(r"Collective '([a-z_]+)' has no algorithm '[^']*'! "
                        r"Valid algorithms: ([^\n]*?)\.?\s*$", re.M)
SMPI_SWITCH = re.compile(r"Switch to algorithm (\S+) for collective ([a-z_]+)")
SMPI_UNKNOWN = "collx-list"
SMPI_SKIP = ("automatic",)


def cvars(info, part, env=None):
    """[{name, value, enum, description}] of the MPI's control variables
    whose names hold part (collx_info --mpi-cvars, run as one process)."""
    out = subprocess.run([info, "--mpi-cvars", part], capture_output=True, text=True,
                         timeout=120, env={**os.environ, **(env or {})})
    if out.returncode != 0:
        raise RuntimeError(f"{info} --mpi-cvars {part}: {out.stderr.strip() or out.returncode}")
    return json.loads(out.stdout)["cvars"]


def openmpi_cvar(coll):
    return f"coll_tuned_{coll}_algorithm"


def mpich_cvar(coll):
    return f"MPIR_CVAR_{coll.upper()}_INTRA_ALGORITHM"


def parse_openmpi(cvs, colls):
    """{coll: [(name, id)]} from Open MPI's enumerations (id 0, "ignore",
    is the MPI's own decision: native itself)."""
    by = {c["name"]: c for c in cvs}
    out = {}
    for coll in colls:
        cv = by.get(openmpi_cvar(coll))
        if cv and cv["enum"]:
            out[coll] = [(name, v) for v, name in cv["enum"] if v != 0]
    return out


def mpich_entries(desc):
    """[(token, spaces)] of the entries of an MPICH description, in order:
    token is the name, possibly with the end of the previous entry's text
    glued before it; spaces the padding between name and dash."""
    return [(m.group(1), len(m.group(2))) for m in ENTRY.finditer(desc)]


def spellings(token, spaces, width):
    """The suffixes of a glued token that may be the name, likeliest first:
    the names of one list are padded to one width (name + spaces), so the
    suffix of length width - spaces first, then by distance from it."""
    want = width - spaces if width else len(token)
    cands = [token[i:] for i in range(len(token)) if token[i].isalpha()]
    return sorted(cands, key=lambda s: (abs(len(s) - want), -len(s)))


def pad_width(entries):
    """The width the names of a list are padded to: the second entry's (the
    first after auto, whose text ends in ')': nothing glued to it)."""
    return entries[1][0].__len__() + entries[1][1] if len(entries) > 1 else None


def parse_mpich(cvs, colls, probe):
    """{coll: [(name, index)]} from MPICH's descriptions, every name checked
    with the MPI (probe({cvar: spelling}) -> {cvar: value read back}): a
    spelling MPICH knows reads back as its index, one it does not as 0 (or
    not at all: MPICH 5 refuses it).
    Names it confirms at no spelling are left out (said in the result's
    "unconfirmed")."""
    by = {c["name"]: c for c in cvs}
    todo = {}   # cvar -> [(index, [spellings])]
    for coll in colls:
        cv = by.get(mpich_cvar(coll))
        if not cv:
            continue
        ents = mpich_entries(cv["description"])
        width = pad_width(ents)
        todo[cv["name"]] = [(k, spellings(tok, sp, width if k else None))
                            for k, (tok, sp) in enumerate(ents) if k]   # 0: auto
    found, unconfirmed = {}, []
    for _ in range(PROBE_ROUNDS):
        ask = {cv: items[0][1][0] for cv, items in todo.items() if items}
        if not ask:
            break
        got = probe(ask)
        for cv, spelled in ask.items():
            k, cands = todo[cv][0]
            if got.get(cv) == k:
                found.setdefault(cv, []).append((spelled, k))
                todo[cv].pop(0)
            elif len(cands) > 1:
                cands.pop(0)
            else:
                unconfirmed.append(f"{cv} entry {k}")
                todo[cv].pop(0)
    unconfirmed += [f"{cv} entry {k}" for cv, items in todo.items() for k, _ in items]
    out = {coll: found[mpich_cvar(coll)] for coll in colls if found.get(mpich_cvar(coll))}
    return out, unconfirmed


class MpiAlgs:
    """The host MPI's algorithms: kind (OPENMPI or MPICH), version text,
    {coll: [(name, id)]}, and what could not be read."""

    def __init__(self, kind, version, algs, unconfirmed=(), defaults=None):
        self.kind, self.version, self.algs = kind, version, algs
        self.unconfirmed = list(unconfirmed)
        self.defaults = dict(defaults or {})   # SMPI: {coll: the algorithm set now}

    def names(self, coll):
        return [name for name, _ in self.algs.get(coll, [])]

    def id_of(self, coll, name):
        return dict(self.algs.get(coll, [])).get(name)

    def force_env(self, coll, name):
        """The environment that forces the MPI's algorithm name for coll in
        a launch."""
        if self.kind == OPENMPI:
            return {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                    f"OMPI_MCA_{openmpi_cvar(coll)}": str(self.id_of(coll, name))}
        if self.kind == IMPI:
            level, preset = mpifile_impi.parse_candidate(name)
            return {mpifile_impi.variable(coll, level): str(preset)}
        if self.kind == SMPI:
            return {"SMPI_FLAGS": " ".join(
                x for x in (os.environ.get("SMPI_FLAGS", ""), smpi_cfg(coll, name)) if x)}
        return {mpich_cvar(coll): name}

    def to_json(self):
        return {"kind": self.kind, "version": self.version,
                "algorithms": {c: [[n, i] for n, i in v] for c, v in self.algs.items()},
                "unconfirmed": self.unconfirmed,
                **({"defaults": self.defaults} if self.defaults else {})}

    @classmethod
    def from_json(cls, d):
        return cls(d["kind"], d["version"],
                   {c: [(n, i) for n, i in v] for c, v in d["algorithms"].items()},
                   d.get("unconfirmed", ()), d.get("defaults"))


def smpi_cfg(coll, name):
    return f"--cfg=smpi/{coll}:{name}"


def parse_smpi_valid(text):
    """{coll: [names]} from SimGrid's answers to an unknown name."""
    return {m.group(1): [n.strip() for n in m.group(2).split(",") if n.strip()]
            for m in SMPI_VALID.finditer(text)}


def parse_smpi_switch(text):
    """{coll: the algorithm SimGrid set} from its smpi_coll log (the last
    line per collective)."""
    return {c: name for name, c in SMPI_SWITCH.findall(text)}


def smpi_candidates(valid, defaults, colls):
    """{coll: [(name, its index in SimGrid's list)]}: every name but the
    default's and SMPI_SKIP."""
    out = {}
    for c in colls:
        names = valid.get(c, [])
        keep = [(n, i) for i, n in enumerate(names)
                if n not in SMPI_SKIP and n != defaults.get(c)]
        if keep:
            out[c] = keep
    return out


def smpi_runner(target):
    """run(flags) for read_smpi: collx_info --list on one rank the way
    the SMPI target runs programs (sim/run), SMPI_FLAGS=flags."""
    argv, env = target.command(1, ["--list"], program=target.info)

    def run(flags):
        out = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                             env={**os.environ, **env, "SMPI_FLAGS": flags})
        return out.stdout + out.stderr
    return run


def read_smpi(run, colls, version=None):
    """MpiAlgs of SMPI (SimGrid) for colls; run(flags) runs a program
    under sim/run with SMPI_FLAGS=flags and returns its output (stdout and
    stderr). One run logs the algorithms set (the defaults), one per
    collective asks for an unknown name (SimGrid aborts with its list)."""
    from_files = [c for c in colls if c in mpifile.SMPI_COLLS]
    defaults = parse_smpi_switch(run("--log=smpi_coll.thres:info"))
    if not defaults:
        raise ValueError("SimGrid logged no collective algorithm (smpi_coll at info): is "
                         "this an SMPI build?")
    valid = {}
    for c in from_files:
        valid.update(parse_smpi_valid(run(smpi_cfg(c, SMPI_UNKNOWN))))
    unconfirmed = [f"smpi/{c}: SimGrid listed no algorithm" for c in from_files
                   if c not in valid]
    algs = smpi_candidates(valid, defaults, colls)
    return MpiAlgs(SMPI, version, algs, unconfirmed,
                   {c: defaults[c] for c in colls if c in defaults})



def read(info, colls, version=None, one_node=True, alone_on_nodes=False):
    """MpiAlgs of the MPI collx_info (path info) was built with, for the
    collectives colls (one_node: every rank on one node; alone_on_nodes:
    one rank on each); ValueError
    where the MPI is neither Open MPI, MPICH nor Intel MPI (no
    coll_tuned, MPIR_CVAR algorithm nor I_MPI_ADJUST variables)."""
    use = cvars(info, "MPIR_CVAR_USE_")
    if mpifile_impi.is_impi(use):   # before MPICH's: Intel MPI is built from it
        return MpiAlgs(IMPI, version, mpifile_impi.presets(use, colls, one_node,
                                                           alone_on_nodes))
    ompi = cvars(info, "coll_tuned_")
    if any(c["name"].startswith("coll_tuned_") for c in ompi):
        return MpiAlgs(OPENMPI, version, parse_openmpi(ompi, colls))
    mp = cvars(info, "_INTRA_ALGORITHM")
    if any(c["name"].startswith("MPIR_CVAR_") for c in mp):
        def probe(settings):
            try:
                return {c["name"]: c["value"]
                        for c in cvars(info, "_INTRA_ALGORITHM", settings)
                        if c["name"] in settings}
            except RuntimeError:
                # MPICH 5 refuses a spelling it does not know at MPI_T's
                # start (MPICH 4 reads it back as 0): one at a time, the
                # one refused is unknown.
                if len(settings) == 1:
                    return {}
                got = {}
                for name, spelled in settings.items():
                    got.update(probe({name: spelled}))
                return got
        algs, unconfirmed = parse_mpich(mp, colls, probe)
        return MpiAlgs(MPICH, version, algs, unconfirmed)
    raise ValueError("this MPI names no collective algorithms through MPI_T (neither Open "
                     "MPI's coll_tuned_<coll>_algorithm, MPICH's "
                     "MPIR_CVAR_<COLL>_INTRA_ALGORITHM nor Intel MPI's I_MPI_ADJUST_<COLL>)")
