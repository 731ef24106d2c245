# Spack recipe for collx (a repository: `spack repo add packaging/spack`).
# Its variants are CMake's options one to one; tests/docs/spack.py checks
# that every option() and cache setting of the CMake build is a variant
# here or named in NOT_VARIANTS with the reason.
from spack.package import *


class Collx(CMakePackage):
    """Research collective algorithms for any MPI (Open MPI, MPICH):
    arrival-pattern-aware scatter/gather, linear-time Gatherv/Scatterv,
    one-sided binomial broadcast, hierarchical node-aware collectives and
    topology-aware reordering, through its own CX_ calls or an LD_PRELOAD
    interposer (collxrun), with benchmarks and a tuner."""

    homepage = "https://github.com/collx/collx"
    git = "https://github.com/collx/collx.git"

    license("BSD-3-Clause")

    version("main", branch="main")

    variant("smpi", default=False,
            description="Build for SimGrid SMPI (simulation) instead of a real MPI")
    variant("tests", default=False, description="Build the test suite")
    variant("asan", default=False, description="Build with AddressSanitizer")
    variant("python", default=True,
            description="Install the collx Python tools (tune, sweep, report, rules)")

    depends_on("c", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("mpi", when="~smpi")
    depends_on("simgrid", when="+smpi")
    depends_on("python@3.8:", type="run", when="+python")
    depends_on("py-numpy", type="run", when="+python")

    # CMake settings that are not variants, and why.
    NOT_VARIANTS = {
        "COLLX_MPIEXEC_FLAGS": "test launches only (set by ./run per MPI)",
        "COLLX_TEST_EACH_ALG": "test layout for developers (one launch per algorithm)",
        "COLLX_TEST_LARGE": "tests that move more than 2^31 bytes (./run test-large)",
        "COLLX_INSTALL_PYTHONDIR": "Spack's prefix layout decides",
        "COLLX_PYTHON_COMMAND": "set from the python dependency below",
        "COLLX_PHASES": "a build for measuring the engine (times every call): not for users",
        "COLLX_LTO": "on wherever the compiler can; off only to compare (engine_instructions.sh)",
    }

    def setup_build_environment(self, env):
        if self.spec.satisfies("+smpi"):
            env.set("CC", join_path(self.spec["simgrid"].prefix.bin, "smpicc"))

    def cmake_args(self):
        args = [
            self.define_from_variant("COLLX_SMPI", "smpi"),
            self.define_from_variant("COLLX_TESTS", "tests"),
            self.define_from_variant("COLLX_ASAN", "asan"),
            self.define_from_variant("COLLX_PYTHON", "python"),
        ]
        if self.spec.satisfies("+python"):
            args.append(self.define("COLLX_PYTHON_COMMAND", self.spec["python"].command.path))
        return args
