#!/usr/bin/env bash
# One command: install what is missing, build, run every test except the GPU ones (ctest label gpu),
# print the summary. GPU tests run on a machine with a GPU through scripts/gpu-check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" -LE gpu -j "$(nproc)" --output-on-failure --timeout 900
