#!/usr/bin/env bash
# Run 13, call 3: every gpu test of r2 (the code to commit; call 2's build) in one call with a 560 s limit (run12's
# 300 s limit stopped the suite in a slow unrelated case).
B=${1:?build}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version --format=csv > "$O/info.log" 2>&1
start=$(date +%s)
timeout 560 $B/tests/test_kernels -r compact --durations yes > $O/tests.log 2>&1; echo "tests exit $? after $(( $(date +%s) - start )) s" >> $O/tests.log
tail -3 $O/tests.log
sort -t: -k1 -n -r <(grep -E "^[0-9.]+ s:" $O/tests.log) | head -8
