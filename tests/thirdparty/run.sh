#!/usr/bin/env bash
# Third-party MPI test suites, unmodified, through collx's PMPI interposer
# with every registered algorithm forced, on fake node layouts.
#
#   tests/thirdparty/run.sh setup  [--mpi M]   mpi4py from PyPI's source
#                       distribution, built against M into build/thirdparty/M/
#   tests/thirdparty/run.sh setup-hpcc        apt-get install hpcc (Open MPI)
#   tests/thirdparty/run.sh mpi4py [options]  the mpi4py collective tests
#   tests/thirdparty/run.sh hpcc   [options]  HPC Challenge (self-checking)
#   tests/thirdparty/run.sh setup-mpich-tests [--mpi M]  MPICH's test/mpi
#                       (Debian's mpich source package) built against M
#   tests/thirdparty/run.sh mpich  [options]  MPICH's test/mpi/coll programs
#   tests/thirdparty/run.sh quick             a short subset (Open MPI)
#
# Options (driver.py --help): --mpi openmpi|mpich (default $COLLX_MPI or
# openmpi), --colls a,b  --algs x,y  --family hier[,hier_ms]  --layouts
# p2,p3-rpn2,p4-cyclic2,p5-rpn3  --files vec,obj  --timeout s  --csv path
# --no-filter  --dry-run  --env VAR=value.
# Exit status: 0 when every run passed, 1 when any failed or timed out.
# Only package registries are used (PyPI's mpi4py sdist, Debian's hpcc and
# mpich source package); nothing here comes from a source-code snapshot.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TP="$ROOT/build/thirdparty"
PYTHON=/usr/bin/python3                # Debian's (3.11)
MPI4PY_VERSION="${MPI4PY_VERSION:-4.1.2}"
# shellcheck source=../../bench/mpi_env.sh
. "$ROOT/bench/mpi_env.sh"

log() { echo "[thirdparty] $*" >&2; }

mpi_of_args() {   # the --mpi value among "$@", else $COLLX_MPI, else openmpi
  local m="${COLLX_MPI:-openmpi}" prev=""
  for x in "$@"; do
    [ "$prev" = --mpi ] && m="$x"
    case "$x" in --mpi=*) m="${x#--mpi=}" ;; esac
    prev="$x"
  done
  echo "$m"
}

need_pkgs() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# mpi4py sdist -> build/thirdparty/downloads; its test/ -> build/thirdparty/src
fetch_mpi4py() {
  local sdist="$TP/downloads/mpi4py-$MPI4PY_VERSION.tar.gz"
  mkdir -p "$TP/downloads" "$TP/src"
  if [ ! -f "$sdist" ]; then
    log "pip download mpi4py==$MPI4PY_VERSION (source distribution from PyPI)"
    "$PYTHON" -m pip download --quiet --no-binary :all: --no-deps \
      "mpi4py==$MPI4PY_VERSION" -d "$TP/downloads"
  fi
  if [ ! -d "$TP/src/mpi4py-$MPI4PY_VERSION/test" ]; then
    tar xzf "$sdist" -C "$TP/src" "mpi4py-$MPI4PY_VERSION/test"
  fi
}

# build mpi4py against one MPI into its own venv (nothing global is touched)
setup_mpi4py() {
  local mpi="$1" mpicc cflags="-O1" dir="$TP/$1"
  case "$mpi" in
    openmpi) mpicc=/usr/bin/mpicc.openmpi ;;
    mpich)   mpicc=/usr/bin/mpicc.mpich
      # mpi4py 4 calls MPI-4's large-count MPI_Bcast_c etc. when the MPI has
      # them (MPICH 4) and collx interposes only MPI_Bcast etc.: a config
      # header without the _c collectives makes mpi4py call MPI_<Coll>
      # (its own int-count wrappers, lib-mpi/largecnt.h).
      mkdir -p "$dir/pympiconf"
      { echo '/* collx: MPICH 4 config minus the large-count collectives */'
        echo '#include "lib-mpi/config/mpich.h"'
        for c in Bcast Gather Gatherv Scatter Scatterv Allgather Allgatherv \
                 Alltoall Alltoallv Alltoallw Reduce Allreduce Reduce_scatter \
                 Reduce_scatter_block Scan Exscan; do
          echo "#undef PyMPI_HAVE_MPI_${c}_c"
        done; } > "$dir/pympiconf/pympiconf.h"
      cflags="$cflags -DHAVE_PYMPICONF_H=1 -I$dir/pympiconf" ;;
    *) log "--mpi must be openmpi or mpich"; exit 2 ;;
  esac
  need_pkgs python3-venv python3-dev
  fetch_mpi4py
  local want="mpi4py $MPI4PY_VERSION $mpicc $cflags"
  # built = the stamp of these settings and a venv that imports mpi4py (a
  # build cut short leaves neither)
  if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$want" ] &&
     "$dir/venv/bin/python" -c "import mpi4py" 2>/dev/null; then
    log "mpi4py $MPI4PY_VERSION for $mpi: already built ($dir/venv)"
  else
    log "building mpi4py $MPI4PY_VERSION against $mpi ($mpicc) into $dir/venv"
    rm -rf "$dir/venv" "$dir/stamp"
    mkdir -p "$dir"
    "$PYTHON" -m venv "$dir/venv"
    # build requirements (setuptools, Cython) come from PyPI into pip's
    # isolated build environment
    if ! MPICC="$mpicc" CFLAGS="$cflags" "$dir/venv/bin/python" -m pip install \
         --no-cache-dir -v "$TP/downloads/mpi4py-$MPI4PY_VERSION.tar.gz" > "$dir/build.log" 2>&1; then
      tail -30 "$dir/build.log" >&2
      log "mpi4py build failed; full log: $dir/build.log"
      exit 1
    fi
    echo "$want" > "$dir/stamp"
  fi
  if [ "$mpi" = mpich ]; then
    if nm -D "$dir"/venv/lib/python3*/site-packages/mpi4py/MPI*.so | grep -q ' U MPI_Bcast_c$'; then
      log "mpi4py for MPICH still calls MPI_Bcast_c: collx would not see its collectives"
      exit 1
    fi
    # MPICH ch4 never yields while it waits: the project's test-only
    # yield-when-idle preload (tests/contract/yield_when_idle.c), as ./run test
    yield_lib
  fi
  "$dir/venv/bin/python" -c 'from mpi4py import MPI; print("[thirdparty]", MPI.Get_library_version().splitlines()[0])' >&2
}

setup_hpcc() {
  need_pkgs hpcc
  mkdir -p "$TP/hpcc"
  # Tiny problem sizes: every kernel runs and checks itself in seconds.
  # Lines 1-2 free text, then hpcc's fixed HPL.dat layout (hpcc's _hpccinf.txt).
  cat > "$TP/hpcc/hpccinf.txt" <<'EOF'
HPLinpack benchmark input file (collx thirdparty: tiny sizes)
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
200          Ns
1            # of NBs
40           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
EOF
  log "hpcc: $(command -v hpcc); input $TP/hpcc/hpccinf.txt"
}

# MPICH's own test suite (test/mpi) from Debian's source package of the
# installed MPICH (deb-src read through a private apt configuration: the
# machine's sources are not touched), configured against one MPI's mpicc;
# util/, dtpools/ and coll/ built. Programs that do not build against an
# MPI (MPI-4 persistent calls under Open MPI 4.1) are listed in
# coll/not-built.txt and skipped.
setup_mpich_tests() {
  local mpi="$1" mpicc cppflags=""
  case "$mpi" in
    # dtpools calls MPI-1 functions that Open MPI 4.1's mpi.h hides (the
    # library still has them)
    openmpi) mpicc=/usr/bin/mpicc.openmpi; cppflags="-DOMPI_OMIT_MPI1_COMPAT_DECLS=0" ;;
    mpich)   mpicc=/usr/bin/mpicc.mpich ;;
    *) log "--mpi must be openmpi or mpich"; exit 2 ;;
  esac
  need_pkgs libmpich-dev
  local ver; ver="$(dpkg-query -W -f='${Version}' libmpich-dev)"
  local up="${ver%-*}" apt="$TP/apt" src="$TP/src/mpich-${ver%-*}"
  if [ ! -f "$TP/downloads/mpich_$up.orig.tar.xz" ]; then
    log "apt-get source mpich=$ver (Debian's source package; private apt lists in $apt)"
    mkdir -p "$apt/lists/partial" "$TP/downloads"
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$(. /etc/os-release && echo "$VERSION_CODENAME")" > "$apt/src.sources"
    local o=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt"
             -o "Dir::State::Lists=$apt/lists" -o APT::Sandbox::User=root)
    apt-get "${o[@]}" update -qq
    (cd "$TP/downloads" && apt-get "${o[@]}" source --download-only -qq "mpich=${ver%+b*}")
  fi
  if [ ! -d "$src/test/mpi/coll" ]; then
    mkdir -p "$TP/src"
    tar xJf "$TP/downloads/mpich_$up.orig.tar.xz" -C "$TP/src" "mpich-$up/test/mpi"
  fi
  local dir="$TP/$mpi/mpich-tests" want="mpich-tests $ver $mpicc $cppflags"
  if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$want" ]; then
    log "MPICH $up tests for $mpi: already built ($dir/coll)"
    return
  fi
  log "building MPICH $up's test/mpi/coll against $mpi ($mpicc) in $dir (2 min)"
  rm -rf "$dir"; mkdir -p "$dir/mpi/bin"
  ln -s "$mpicc" "$dir/mpi/bin/mpicc"     # configure --with-mpi wants DIR/bin/mpicc
  ( cd "$dir" && "$src/test/mpi/configure" --with-mpi="$dir/mpi" --disable-fortran \
      --disable-cxx --disable-romio --disable-spawn CPPFLAGS="$cppflags" > configure.log 2>&1 ) ||
    { tail -20 "$dir/configure.log" >&2; log "configure failed: $dir/configure.log"; exit 1; }
  make -C "$dir/util" -j2 > "$dir/make.log" 2>&1 && make -C "$dir/dtpools" -j2 >> "$dir/make.log" 2>&1 ||
    { tail -20 "$dir/make.log" >&2; log "build failed: $dir/make.log"; exit 1; }
  make -C "$dir/coll" -j2 -k >> "$dir/make.log" 2>&1 || true
  local prog; : > "$dir/coll/not-built.txt"
  for prog in $(sed 's/#.*//' "$dir/coll/testlist" | awk 'NF{print $1}' | sort -u); do
    [ -x "$dir/coll/$prog" ] || echo "$prog" >> "$dir/coll/not-built.txt"
  done
  log "built $(sed 's/#.*//' "$dir/coll/testlist" | awk 'NF{print $1}' | sort -u | wc -l) programs," \
      "$(wc -l < "$dir/coll/not-built.txt") not buildable against $mpi ($dir/coll/not-built.txt)"
  echo "$want" > "$dir/stamp"
}

yield_lib() {   # MPICH ch4 never yields while it waits (see setup_mpi4py)
  mkdir -p "$TP/mpich"
  cc -O2 -shared -fPIC -o "$TP/mpich/libcollx_test_yield.so" \
     "$ROOT/tests/contract/yield_when_idle.c" -ldl
}

sub="${1:-}"; shift || true
case "$sub" in
  setup)
    setup_mpi4py "$(mpi_of_args "$@")" ;;
  setup-hpcc)
    setup_hpcc ;;
  mpi4py)
    mpi="$(mpi_of_args "$@")"
    setup_mpi4py "$mpi"
    extra=()
    [ "$mpi" = mpich ] && extra=(--yield-lib "$TP/mpich/libcollx_test_yield.so")
    exec "$PYTHON" "$HERE/driver.py" --suite mpi4py \
      --mpi4py-test-dir "$TP/src/mpi4py-$MPI4PY_VERSION/test" "${extra[@]}" "$@" ;;
  setup-mpich-tests)
    setup_mpich_tests "$(mpi_of_args "$@")" ;;
  mpich)
    mpi="$(mpi_of_args "$@")"
    setup_mpich_tests "$mpi"
    extra=()
    [ "$mpi" = mpich ] && { yield_lib; extra=(--yield-lib "$TP/mpich/libcollx_test_yield.so"); }
    exec "$PYTHON" "$HERE/driver.py" --suite mpich --mpich-dir "$TP/$mpi/mpich-tests/coll" \
      --mpich-src "$(ls -d "$TP"/src/mpich-*/test/mpi/coll | tail -1)" "${extra[@]}" "$@" ;;
  hpcc)
    setup_hpcc
    exec "$PYTHON" "$HERE/driver.py" --suite hpcc --mpi openmpi \
      --hpcc-dir "$TP/hpcc" "$@" ;;
  quick)
    rc=0
    "$0" mpi4py --colls allgatherv,alltoallw --layouts p3-rpn2,p4-cyclic2 "$@" || rc=1
    "$0" mpi4py --colls bcast,allreduce --algs hier --layouts p3-rpn2,p4-cyclic2 "$@" || rc=1
    exit $rc ;;
  *) sed -n '2,22p' "$0"; exit 2 ;;
esac
