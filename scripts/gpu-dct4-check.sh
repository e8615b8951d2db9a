#!/usr/bin/env bash
# On the device machine: the DCT-IV GPU tests (label gpu, tag [dct4]) and scripts/bench-dct4.sh, logs to OUT.
#   scripts/gpu-dct4-check.sh BIN_DIR OUT     (BIN_DIR holds dctool and test_kernels)
set -uo pipefail
bin=${1:-carry/dct4}
out=${2:-${OUT:-out}}
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
timeout "${TEST_TIMEOUT:-180}" "$bin/test_kernels" "[dct4]" -r compact -d yes > "$out/tests.log" 2>&1
echo "tests exit $?"
grep -E "failed|FAILED|Passed|passed" "$out/tests.log" | tail -15
REPS=${REPS:-30} timeout "${BENCH_TIMEOUT:-190}" scripts/bench-dct4.sh "$bin/dctool" "$out" "$bin/test_kernels" > "$out/bench.log" 2>&1
echo "bench exit $?"
tail -60 "$out/bench.log"
