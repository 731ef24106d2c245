#!/usr/bin/env bash
# The contract and PAP suites, hier's band tests, the RMA drop-in and the unit tests under AddressSanitizer with Open MPI
# (build/openmpi-asan); part of CI (.ci/run).
#   tests/contract/asan.sh [ctest args...]
# Collective tests run with leak detection off (Open MPI's own leaks at exit
# would drown everything); the tests that create and free collx state
# (errors, lifecycle, nodes, interposer) run with LeakSanitizer, Open MPI's
# leaks suppressed by module (lsan.supp). Components stay loaded
# (disable_dlclose) and malloc stacks are unwound fully so that the
# suppressions can see libmpi & co in every stack.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$ROOT/build/openmpi-asan"
JOBS="$(nproc 2>/dev/null || echo 2)"
. "$ROOT/bench/mpi_env.sh"

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMPI_C_COMPILER=/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi \
    -DCOLLX_MPIEXEC_FLAGS=--oversubscribe -DCOLLX_ASAN=ON >/dev/null
fi
cmake --build "$BUILD" -j "$JOBS"
cd "$BUILD"
# The contract tests at the uneven (p3) and interleaved (p5) layouts and
# the sequences, but those whose code the others run too (label
# asan_skip, tests/contract/CMakeLists.txt says which) and the sequences of
# one name at p = 1, 2, 4, 6, 8 (sequence.NAME.pN).
SKIP="^contract\\.sequence\\.[a-z_0-9]+\\.p[12468]\$"
LEAKY='contract\.(errors|lifecycle|nodes|interpose)'
rc=0
ASAN_OPTIONS=detect_leaks=0 \
  ctest -j "$JOBS" -R '^(contract|pap|hier\.bands|rma\.dropin)\.' -E "$LEAKY|$SKIP" -LE asan_skip \
    --output-on-failure "$@" || rc=1
# the unit tests (no MPI; they set their own LeakSanitizer options)
ctest -L unit --output-on-failure "$@" || rc=1
OMPI_MCA_mca_base_component_disable_dlclose=1 \
ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
LSAN_OPTIONS="suppressions=$ROOT/tests/contract/lsan.supp" \
  ctest -j "$JOBS" -R "$LEAKY" --output-on-failure "$@" || rc=1
exit $rc
