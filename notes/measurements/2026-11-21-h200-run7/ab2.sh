#!/usr/bin/env bash
# A/B of two builds of the fused column passes (seventh session), e.g. OLD = the first fused kernels (unit loops not
# unrolled) vs NEW = unrolled unit loops, or OLD = those vs NEW = the post kernel's tables fetched first; cuda-fft2d
# with DCTOOL_FFT2D_COLS=ours (ColumnFft at 2048, 4096, 8192 in both builds), cuda-rowcol from NEW, alternating,
# 2048^2..8192^2, f32 and f64, no --verify (timing only).
# Usage (device, repo root): bash notes/measurements/2026-11-21-h200-run7/ab2.sh OLD_DIR NEW_DIR > $OUT/ab2.log
OLD=${1:?old build dir}; NEW=${2:?new build dir}
libdirs=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
for f in $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' 2>/dev/null | head -5); do libdirs=$libdirs:$(dirname "$f"); done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
run() {  # label, dctool, backends
  echo "## $1"
  DCTOOL_FFT2D_COLS=ours timeout 200 "$2/dctool" bench --ops dct2,idct2 --sizes 2048x2048,4096x4096,8192x8192 \
    --backends "$3" --precision f64,f32 --reps 20 --warmup 3 --effort estimate --format csv
  echo "exit $?"
}
for i in 1 2; do
  run "old $i" "$OLD" cuda-fft2d
  run "new $i" "$NEW" cuda-fft2d,cuda-rowcol
done
