#!/usr/bin/env bash
# One command: install what is missing, build, run every test except the GPU ones (ctest label gpu),
# print the summary. GPU tests run on a machine with a GPU through scripts/gpu-check.sh.
# With CI=true (.ci/run) it then runs the suite again under ASan+UBSan (scripts/sanitize.sh) and each libFuzzer
# harness for 20 s (scripts/fuzz.sh); every stage runs, and the script fails if any did.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
status=0
ctest --test-dir "${BUILD_DIR:-build}" -LE gpu -j "$(nproc)" --output-on-failure --timeout 900 || status=1
if [ "${CI:-}" = "true" ]; then
  bash scripts/sanitize.sh || status=1
  bash scripts/fuzz.sh 20 || status=1
fi
exit $status
