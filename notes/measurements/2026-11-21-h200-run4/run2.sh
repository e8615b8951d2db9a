#!/usr/bin/env bash
# Device run 2 (session 4): gpu tests (no large sweeps), DCT-IV rows variants A/B, fused jpeg, GPU threshold/keep, fft2d.
set -u
B=carry/r2
L=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
for f in $(find /usr/local /usr/lib -maxdepth 6 -name 'libcufft.so.1*' 2>/dev/null | head -3); do L=$L:$(dirname $f); done
export LD_LIBRARY_PATH=$L
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
D=$B/dctool
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/info.log
t0=$(date +%s)
timeout 200 $B/tests/test_kernels -r compact "~*large shapes* ~[large]" > $OUT/tests.log 2>&1; echo "tests rc=$? $(( $(date +%s)-t0 ))s" | tee -a $OUT/info.log
tail -3 $OUT/tests.log
DCTOOL_DCT4_ROWS=v8 timeout 60 $B/tests/test_kernels -r compact "[dct4]~[large]" 2>&1 | tail -2 | sed 's/^/v8 dct4 tests: /' | tee -a $OUT/info.log
for v in v2 v6 v7 v8; do
  echo "== variant $v" >> $OUT/dct4-ab.log
  DCTOOL_DCT4_ROWS=$v timeout 60 $D bench --ops dct4,idct4 --axis rows --norm ortho --sizes 65536x256,16384x1024,4096x4096 \
    --backends cuda-dct4-fft --precision f32,f64 --reps 20 --warmup 3 --verify --format csv >> $OUT/dct4-ab.log 2>&1
done
echo "dct4 done $(( $(date +%s)-t0 ))s" | tee -a $OUT/info.log
# fused jpeg: 4 copies of a 4096x4096 RGB PNG; copy floor for 50.3 MB from cuda-8x8 at 4096x3072 f32 (same bytes)
mkdir -p /tmp/fj /tmp/fjo; python3 scripts/compress-bench-images.py /tmp/fj/big_1.png 4096 4096 >/dev/null 2>&1
for i in 2 3 4; do cp /tmp/fj/big_1.png /tmp/fj/big_$i.png; done
{ $D compress /tmp/fj/*.png -o /tmp/fjo --quality 50 --jobs 1 --report /tmp/fj/r.json; cat /tmp/fj/r.json
  $D compress /tmp/fj/*.png -o /tmp/fjo --quality 90 --jobs 1 --report /tmp/fj/r90.json; cat /tmp/fj/r90.json
  $D bench --ops dct2 --block 8 --norm ortho --sizes 4096x3072 --backends cuda-8x8 --precision f32 --reps 20 --format csv; } > $OUT/jpeg.log 2>&1
echo "jpeg done $(( $(date +%s)-t0 ))s" | tee -a $OUT/info.log
# threshold / keep on the GPU (cuda-compress-whole) vs the old route (-b cuda-fft2d: CPU compressor on a GPU transform)
{ for m in "--mode threshold --threshold 20" "--mode keep --keep 0.05"; do
    for p in f32 f64; do
      echo "## $m -p $p (auto)"; $D -p $p compress /tmp/fj/big_1.png /tmp/fj/big_2.png /tmp/fj/big_3.png -o /tmp/fjo $m --jobs 1 --report /tmp/fj/w.json; cat /tmp/fj/w.json
    done
    echo "## $m -b cuda-fft2d (old route)"; $D -b cuda-fft2d compress /tmp/fj/big_1.png /tmp/fj/big_2.png -o /tmp/fjo $m --jobs 1 --report /tmp/fj/w.json; cat /tmp/fj/w.json
  done
  echo "## keep sort"; DCTOOL_KEEP_SELECT=sort $D compress /tmp/fj/big_1.png /tmp/fj/big_2.png /tmp/fj/big_3.png -o /tmp/fjo --mode keep --keep 0.05 --jobs 1 --report /tmp/fj/w.json; cat /tmp/fj/w.json
  echo "## astronaut keep --timing"; $D --timing compress data/astronaut.png -o /tmp/a.png --mode keep --keep 0.05
} > $OUT/whole.log 2>&1
echo "whole done $(( $(date +%s)-t0 ))s" | tee -a $OUT/info.log
timeout 90 $D bench --ops dct2,idct2 --sizes 2048x2048,4096x4096,8192x8192 --backends cuda-fft2d,cuda-rowcol --precision f32,f64 --reps 20 --warmup 3 --verify --format csv > $OUT/fft2d.csv 2>&1
echo "all done $(( $(date +%s)-t0 ))s" | tee -a $OUT/info.log
