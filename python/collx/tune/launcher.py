"""The user's own launch (`--launch "CMD"`): the launcher words as the user
writes them (Open MPI's mpirun/mpiexec, MPICH's Hydra mpiexec, Slurm's
srun, or any command that starts the ranks, e.g. `./run cluster run -n P
--`), and what the tuner adds to them: nothing of this repository's test
settings, only what its own runs need.

* The ranks P and ranks per node: read from the words (-n/-np/--np/-c and
  --npernode/-N/--map-by ppr:K:node for Open MPI; -n/-np and -ppn/-perhost
  for Hydra; -n/--ntasks and --ntasks-per-node, or -N nodes, for srun)
  where -n and --ranks-per-node do not say them.
* The variables a run sets (COLLX_RULES for the check, a variant's
  per-call knobs): passed to every rank the launcher's way (Open MPI
  `-x NAME`, Hydra `-genvlist A,B`; srun passes its environment unless
  the words say --export otherwise, which is left as the user wrote it).
  Another launcher gets nothing added: it must pass them itself (./run
  cluster run passes every COLLX_ variable).
* collx_info: one rank (the rank count in the words set to 1), or run
  directly where the words give none: it prints on every rank it runs on.
* This repository's test settings (bench/mpi_env.sh: Open MPI allowed as
  root, single-copy off, oversubscription, yield when idle), which `./run`
  exports before it starts the tuner, are left out of the runs'
  environment where they have mpi_env.sh's values (test_settings): the
  application runs without them, and native measured with them is
  another MPI configuration. `--real` keeps them (it measures this
  machine the way the tests do).

Nothing here runs a launcher but kind_of (`LAUNCHER --version`, to tell
Open MPI's mpirun from MPICH's)."""
import functools
import os
import shlex
import subprocess

KINDS = ("openmpi", "hydra", "slurm", "other")


@functools.lru_cache(maxsize=16)
def version_text(launcher):
    """`launcher --version` (stdout and stderr), or "" where it does not
    answer."""
    try:
        p = subprocess.run([launcher, "--version"], capture_output=True, text=True,
                           timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return ""
    return p.stdout + p.stderr


def kind_of(words, version=None):
    """Which launcher the words start with: "openmpi", "hydra" (MPICH,
    Intel MPI), "slurm" (srun) or "other". version: the text of
    `LAUNCHER --version` (asked for when None)."""
    name = os.path.basename(words[0]) if words else ""
    if name == "srun":
        return "slurm"
    if not name.startswith(("mpirun", "mpiexec", "orterun")):
        return "other"
    text = version_text(words[0]) if version is None else version
    if "Open MPI" in text or "OpenRTE" in text:
        return "openmpi"
    if "HYDRA" in text or "Hydra" in text or "MPICH" in text or "Intel" in text:
        return "hydra"
    if name.endswith((".openmpi", ".ompi")):
        return "openmpi"
    if name.endswith((".mpich", ".hydra")):
        return "hydra"
    return "other"


# flags that give the rank count, per launcher ("other": the common ones)
RANK_FLAGS = {"openmpi": ("-n", "-np", "--np", "--n", "-c"),
              "hydra": ("-n", "-np"),
              "slurm": ("-n", "--ntasks"),
              "other": ("-n", "-np", "--np")}
PER_NODE_FLAGS = {"openmpi": ("--npernode", "-npernode", "-N"),
                  "hydra": ("-ppn", "-perhost", "--ppn"),
                  "slurm": ("--ntasks-per-node",),
                  "other": ()}


def flag_value(words, flags):
    """(index of the word holding the value, the value) of the first of
    flags in words (-n 4, -n4 for short flags, --np=4), or None."""
    for i, w in enumerate(words[1:], 1):
        for f in flags:
            if w == f and i + 1 < len(words):
                return i + 1, words[i + 1]
            if f.startswith("--") and w.startswith(f + "="):
                return i, w[len(f) + 1:]
            if not f.startswith("--") and len(f) == 2 and w.startswith(f) and \
                    w[2:].isdigit():
                return i, w[2:]
    return None


def ranks(words, kind):
    """The rank count the words start, or None."""
    got = flag_value(words, RANK_FLAGS[kind])
    if got and got[1].isdigit():
        return int(got[1])
    return None


def ranks_per_node(words, kind):
    """Ranks per node the words ask for, or None: Open MPI --npernode K,
    -N K or --map-by ppr:K:node; Hydra -ppn K; srun --ntasks-per-node K,
    or its ranks over -N nodes where they divide."""
    got = flag_value(words, PER_NODE_FLAGS[kind])
    if got and got[1].isdigit():
        return int(got[1])
    if kind == "openmpi":
        m = flag_value(words, ("--map-by", "-map-by"))
        if m:
            parts = m[1].split(":")
            if len(parts) >= 3 and parts[0].lower() == "ppr" and parts[1].isdigit() and \
                    parts[2].lower().startswith("node"):
                return int(parts[1])
    if kind == "slurm":
        nodes = flag_value(words, ("-N", "--nodes"))
        n = ranks(words, kind)
        if nodes and nodes[1].isdigit() and n and n % int(nodes[1]) == 0:
            return n // int(nodes[1])
    return None


def with_ranks(words, kind, n):
    """The words with their rank count set to n, or None where they give
    none."""
    got = flag_value(words, RANK_FLAGS[kind])
    if got is None:
        return None
    i, value = got
    out = list(words)
    w = out[i]
    out[i] = str(n) if w == value else w[:len(w) - len(value)] + str(n)
    return out


def env_flags(kind, names, words=()):
    """Flags that pass the variables names to every rank, the launcher's
    way (nothing where it passes its environment itself or cannot be
    told: srun, other launchers)."""
    names = sorted(names)
    if not names:
        return []
    if kind == "openmpi":
        return [x for n in names for x in ("-x", n)]
    if kind == "hydra":
        return ["-genvlist", ",".join(names)]
    return []


def command(words, kind, program, args, env_names=()):
    """The launch of program with args: the user's words, then what passes
    env_names to the ranks (env_flags), then the program."""
    return list(words) + env_flags(kind, env_names, words) + [program] + list(args)


def info_command(words, kind, program, args):
    """collx_info's command: on one rank (with_ranks), or directly where
    the words give no rank count (it prints on every rank it runs on)."""
    one = with_ranks(words, kind, 1)
    return (one + [program] if one else [program]) + list(args)


@functools.lru_cache(maxsize=4)
def mpi_env_settings(root):
    """{name: value} that bench/mpi_env.sh of the checkout root exports
    (this repository's test settings), from a shell with an empty
    environment; {} without a checkout."""
    if not root:
        return {}
    script = os.path.join(root, "bench", "mpi_env.sh")
    if not os.path.exists(script):
        return {}
    try:
        out = subprocess.run(["env", "-i", "bash", "-c", '. "$1" && env -0', "_", script],
                             capture_output=True, text=True, timeout=30, check=True).stdout
        base = subprocess.run(["env", "-i", "bash", "-c", "env -0"], capture_output=True,
                              text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}

    def pairs(text):
        return dict(x.split("=", 1) for x in text.split("\0") if "=" in x)
    was = pairs(base)
    return {k: v for k, v in pairs(out).items() if was.get(k) != v}


def test_settings(environ, settings):
    """The names in environ holding this repository's test settings
    (settings: mpi_env_settings), as ./run exports them: to leave out of
    a --launch run's environment."""
    return sorted(k for k, v in settings.items() if environ.get(k) == v)


def describe(words):
    return shlex.join(words)
