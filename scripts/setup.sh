#!/usr/bin/env bash
# Installs what petsc-diag needs to build and test on Debian 12 (idempotent,
# quiet): PETSc 3.18 (real, double) with OpenMPI, its tutorial sources,
# Debian's other PETSc 3.18 configurations (complex scalars; 64-bit indices;
# installed beside the real one, which stays the default alternative),
# Boost.Test, SuiteSparse (CHOLMOD reads Matrix Market), CMake, Python's
# matplotlib for the plots, petsc4py (the Python example's test). CUDA (nvcc)
# is used when present at /usr/local/cuda.
# Trilinos 13.2 (Tpetra, Belos, Ifpack2, MueLu and what their CMake
# configurations need to link) for the Tpetra adapter in plugin/trilinos/; the
# Debian -dev packages do not depend on each other, and each package's CMake
# configuration includes those of the packages it was built with (Epetra,
# ShyLU, Teko, ... for Ifpack2 and MueLu), so all of them are listed.
set -euo pipefail
PKGS=(build-essential cmake pkg-config petsc-dev libpetsc3.18-dev-examples openmpi-bin libopenmpi-dev
      libpetsc-complex3.18-dev libpetsc64-real3.18-dev
      libboost-test-dev libsuitesparse-dev python3-matplotlib python3-numpy python3-petsc4py
      libtrilinos-teuchos-dev libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
      libtrilinos-tpetra-dev libtrilinos-belos-dev libtrilinos-ifpack2-dev libtrilinos-muelu-dev
      libtrilinos-xpetra-dev libtrilinos-amesos2-dev libtrilinos-zoltan2-dev libtrilinos-thyra-dev
      libtrilinos-galeri-dev libtrilinos-intrepid2-dev libtrilinos-anasazi-dev
      libtrilinos-shards-dev libtrilinos-sacado-dev libtrilinos-epetra-dev libtrilinos-epetraext-dev
      libtrilinos-amesos-dev libtrilinos-ifpack-dev libtrilinos-isorropia-dev libtrilinos-rtop-dev
      libtrilinos-stratimikos-dev libtrilinos-teko-dev libtrilinos-triutils-dev libtrilinos-shylu-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
