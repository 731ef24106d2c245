"""Where collx's programs are: collbench, collx_info (and the other bench
programs the sweeps run) and the interposer libcollx_pmpi.so, for the
Python tools wherever they run: installed (`cmake --install`: bin/collx),
pip-installed, or from a checkout (./run).

A program is looked for, in this order:

  1. the path given on the command line (--collbench, --collx-info);
  2. the folder $COLLX_BENCH_DIR (the interposer: the file $COLLX_PMPI_LIB);
  3. the tools of this copy of collx: installed, PREFIX/bin (the
     interposer PREFIX/lib/collx/<mpi>/, then PREFIX/lib); run from a
     checkout, its build of the MPI asked for, build/<mpi>/bench (./run
     builds it);
  4. PATH (programs only).

Step 3 comes before PATH so that a checkout's tools never mix with
another collx's found on PATH. SMPI programs (build/smpi, run by sim/run)
come from a checkout only: steps 2-4 hold real-MPI builds. When nothing
is found, ToolNotFound says what was looked for and where."""
import os
import shutil

try:   # written by `cmake --install` only (python/CMakeLists.txt)
    from collx import _install
except ImportError:   # a checkout or pip: no prefix of programs beside the package
    _install = None

PKG = os.path.dirname(os.path.abspath(__file__))

# name -> its path in a build tree (build/<mpi>/...)
BUILT = {"collbench": "bench/collbench", "collx_info": "bench/collx_info",
         "rma_loggp": "bench/rma_loggp", "topo_cost": "bench/topo_cost",
         "overhead": "bench/overhead", "fft": "apps/fft/fft",
         "calibench": "bench/calibench", "node_sync": "bench/node_sync",
         "collxrun": "bin/collxrun", "libcollx_pmpi.so": "libcollx_pmpi.so"}
INTERPOSER = "libcollx_pmpi.so"
# the command-line option that names each (for the message)
OPTIONS = {"collbench": "--collbench", "collx_info": "--collx-info"}
DIR_ENV, LIB_ENV = "COLLX_BENCH_DIR", "COLLX_PMPI_LIB"


class ToolNotFound(ValueError):
    """A program collx needs is nowhere; the text says where it looked."""


def checkout():
    """The collx checkout this package runs from (its root), or None
    (installed, pip-installed)."""
    root = os.path.dirname(os.path.dirname(PKG))
    marks = ("CMakeLists.txt", os.path.join("src", "core"), os.path.join("bench", "mpi_env.sh"))
    return root if all(os.path.exists(os.path.join(root, m)) for m in marks) else None


def installed():
    """{"bindir", "libdir", "datadir"} of the `cmake --install` prefix this
    package was installed into (python/CMakeLists.txt writes _install.py
    with paths relative to the package), or None."""
    if _install is None:
        return None
    return {k: os.path.normpath(os.path.join(PKG, getattr(_install, k)))
            for k in ("bindir", "libdir", "datadir")}


def default_mpi():
    return os.environ.get("COLLX_MPI", "openmpi")


def usable(path, program=True):
    return os.path.isfile(path) and (not program or os.access(path, os.X_OK))


def find(name, mpi=None, given=None):
    """The path of program (or interposer) name for MPI mpi (openmpi, mpich;
    "smpi": a SimGrid build, from a checkout only; default $COLLX_MPI);
    given: the path the user named. ToolNotFound if none is usable."""
    mpi = mpi or default_mpi()
    program = name != INTERPOSER
    tried = []
    option = OPTIONS.get(name)
    if given:
        if usable(given, program):
            return os.path.abspath(given)
        why = "not an executable file" if os.path.exists(given) else "no such file"
        raise ToolNotFound(f"{option or name} {given}: {why}")
    if option:
        tried.append(f"{option}: not given")
    if mpi != "smpi":
        path = find_env_or_installed(name, mpi, program, tried)
        if path:
            return path
    root = checkout()
    if root:
        path = os.path.join(root, "build", mpi, BUILT.get(name, name))
        if usable(path, program):
            return path
        tried.append(f"this checkout's build ({path}): missing (./run build"
                     + (" builds it" if mpi != "smpi" else ", SimGrid part") + ")")
    elif mpi == "smpi":
        tried.append("a collx checkout's build/smpi: this collx is not a checkout "
                     f"({PKG})")
    if program and mpi != "smpi":
        path = shutil.which(name)
        if path:
            return path
        tried.append("PATH: not on it")
    raise not_found(name, mpi, option, program, tried)


def find_env_or_installed(name, mpi, program, tried):
    """find's look at $COLLX_BENCH_DIR ($COLLX_PMPI_LIB for the
    interposer), then beside this collx's install: the path, or None with
    where it looked added to tried."""
    var = DIR_ENV if program else LIB_ENV
    env = os.environ.get(var)
    if env:
        path = os.path.join(env, name) if program else env
        if usable(path, program):
            return os.path.abspath(path)
        why = "not executable" if os.path.exists(path) else "missing"
        tried.append(f"${var} ({path}): {why}")
    else:
        tried.append(f"${var}: not set")
    inst = installed()
    if inst:   # the interposer: the one for this MPI (lib/collx/<mpi>/), then lib/
        paths = [os.path.join(inst["bindir"], name)] if program else \
            [os.path.join(inst["libdir"], "collx", mpi, name),
             os.path.join(inst["libdir"], name)]
        for path in paths:
            if usable(path, program):
                return path
        tried.append(f"beside this collx ({' or '.join(paths)}): missing")
    return None


def not_found(name, mpi, option, program, tried):
    """find's ToolNotFound: where it looked (tried) and how to fix it."""
    how = [f"give {option} PATH"] if option else []
    if mpi == "smpi":
        how.append("run from a collx checkout after ./run build")
    else:
        how += [f"set {LIB_ENV} to its path" if not program else
                f"set {DIR_ENV} to the folder holding it",
                "install collx (cmake --install BUILD --prefix PREFIX) and run PREFIX/bin/collx"]
    what = "the interposer" if not program else name
    return ToolNotFound(f"cannot find {what}" + (f" ({mpi} build)" if mpi == "smpi" else "")
                        + "; looked at:\n  " + "\n  ".join(tried)
                        + "\nTo fix: " + "; or ".join(how) + ".")
