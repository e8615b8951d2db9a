#!/usr/bin/env bash
# The 8x8 family on the device machine (issue 4): gpu-labelled block8/compress tests, the cuda-8x8 /
# cuda-8x8-def sweep, the fused jpeg kernel's device time, and batch compress throughput.
# Usage: scripts/bench-block8.sh BIN_DIR IMG_DIR OUT_DIR
#   BIN_DIR holds dctool and test_kernels (a Release sm_90 build), IMG_DIR hd.png (1920x1080 RGB) and
#   big.png (4096x4096 RGB) from scripts/compress-bench-images.py.
set -u
B=${1:?bin dir}; I=${2:?image dir}; O=${3:?out dir}
mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# The tests find data/ through the source path compiled in (/work/main).
[ -e /work/main/data ] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1 | tee "$O/device.txt"

echo "== tests"
"$B/test_kernels" "block8 gpu*" 2>&1 | tee "$O/tests.log" | tail -4

echo "== bench f32"
"$B/dctool" bench --ops dct2,idct2 --block 8 --norm ortho --sizes 2048x2048,4096x4096,8192x8192 \
  --backends cuda-8x8,cuda-8x8-def --precision f32 --reps 50 --warmup 5 --format csv -o "$O/bench_f32.csv" 2>&1 | tail -2
cat "$O/bench_f32.csv"
echo "== bench f64 + verify"
"$B/dctool" bench --ops dct2,idct2 --block 8 --norm ortho --sizes 4096x4096 --backends cuda-8x8,cuda-8x8-def \
  --precision f64 --reps 20 --warmup 3 --format csv -o "$O/bench_f64.csv" 2>&1 | tail -2
"$B/dctool" bench --ops dct2,idct2 --block 8 --norm ortho --sizes 2048x2048 --backends cuda-8x8,cuda-8x8-def \
  --precision f32 --reps 5 --warmup 1 --verify --format csv 2>&1 | cut -d, -f1-3,6,15
cat "$O/bench_f64.csv"

echo "== fused jpeg: device time per 4096x4096 RGB image (8-bit in, 8-bit out; first file includes module load)"
mkdir -p /tmp/fj /tmp/fjo
for i in 1 2 3 4 5 6; do cp "$I/big.png" /tmp/fj/big_$i.png; done
"$B/dctool" compress /tmp/fj/*.png -o /tmp/fjo --quality 50 --jobs 1 --report "$O/fused.json" 2>&1 | tail -1
grep -o '"psnr_db": [0-9.]*\|"backend": "[a-z0-9-]*"\|"h2d": [0-9.]*\|"device": [0-9.]*\|"d2h": [0-9.]*' "$O/fused.json" | paste - - - - - | head -6
"$B/dctool" -b cpu-8x8-flmad --timing compress "$I/big.png" -o /tmp/cpu_big.png --quality 50 2>&1 | tail -12

echo "== batch: 200 x 1920x1080 RGB PNG"
mkdir -p /tmp/hd /tmp/hdo /tmp/hdo2
for i in $(seq -w 1 200); do cp "$I/hd.png" /tmp/hd/hd_$i.png; done
"$B/dctool" compress /tmp/hd/*.png -o /tmp/hdo --quality 50 2>&1 | tail -1
"$B/dctool" -b cpu-8x8-flmad compress /tmp/hd/*.png -o /tmp/hdo2 --quality 50 2>&1 | tail -1
