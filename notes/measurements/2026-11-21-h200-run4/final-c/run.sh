#!/usr/bin/env bash
set -u
B=carry/r5
L=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
for f in $(find /usr/local /usr/lib -maxdepth 6 -name 'libcufft.so.1*' 2>/dev/null | head -3); do L=$L:$(dirname $f); done
export LD_LIBRARY_PATH=$L
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
t0=$(date +%s)
timeout 240 $B/tests/test_kernels -r compact "cuda-fft2d*,cuda backends match the f64 oracle: small and odd shapes,cuda backends match the f64 oracle: long vectors,cuda backends match the f64 oracle: large shapes,compress whole*,block8 gpu: CPU and GPU compress*" > $OUT/tests.log 2>&1
echo "tests rc=$? $(( $(date +%s)-t0 ))s"; tail -2 $OUT/tests.log
timeout 200 $B/dctool bench --ops dct2,idct2 --sizes 2048x2048,4096x4096,8192x8192 --backends cuda-fft2d --precision f32,f64 --reps 20 --warmup 3 --effort estimate --verify --format csv > $OUT/fft2d.csv 2>&1
echo "bench rc=$? $(( $(date +%s)-t0 ))s"; cut -d, -f1-4,7,11,12,15 $OUT/fft2d.csv
