#!/usr/bin/env bash
# Installs what petsc-diag needs to build and test on Debian 12 (idempotent,
# quiet): PETSc 3.18 (real, double) with OpenMPI, its tutorial sources,
# Boost.Test, SuiteSparse (CHOLMOD reads Matrix Market), CMake, Python's
# matplotlib for the plots. CUDA (nvcc) is used when present at /usr/local/cuda.
set -euo pipefail
PKGS=(build-essential cmake pkg-config petsc-dev libpetsc3.18-dev-examples openmpi-bin libopenmpi-dev
      libboost-test-dev libsuitesparse-dev python3-matplotlib python3-numpy)
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
