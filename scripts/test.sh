#!/usr/bin/env bash
# The test command: installs, builds, and runs every test through ctest.
# GPU tests report themselves skipped on a machine without a CUDA device.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bash "$ROOT/scripts/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "${BUILD_DIR:-$ROOT/build}"
ctest --output-on-failure -j"$(nproc)" "$@"
