#!/usr/bin/env bash
# Run 17, call 1: the committed code (d53dc1d): every gpu test but [compress] and [block8] (call 2 runs those),
# the block8 bench (cuda-8x8, cuda-8x8-def; dct2, idct2; f32; 2048^2..8192^2) and the batch throughput phase
# (200 x 1920x1080 RGB PNG, compress against --mode none), through scripts/gpu-check.sh.
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$O/info.log" 2>&1; cat "$O/info.log"
mkdir -p /tmp/bin/final/tests
gunzip -c "$C/final/dctool.gz" > /tmp/bin/final/dctool
gunzip -c "$C/final/tests/test_kernels.gz" > /tmp/bin/final/tests/test_kernels
chmod +x /tmp/bin/final/dctool /tmp/bin/final/tests/test_kernels
OUT=$O GPU_CHECK_PHASES=tests,block8,batch GPU_CHECK_TEST_TIMEOUT=420 \
  GPU_CHECK_TEST_ARGS='[gpu]~[compress]~[block8]' bash scripts/gpu-check.sh /tmp/bin/final
