#!/usr/bin/env bash
# A/B of cuda-fft2d's fused column stage (seventh session): default (ColumnFft at n1 = 4096, 8192 with post_2d /
# pre_2d fused into its passes), DCTOOL_FFT2D_POST=separate (the sixth session's route), DCTOOL_FFT2D_COLS=ours
# (ColumnFft, fused, also at n1 = 2048), DCTOOL_FFT2D_COLS=cufft, and cuda-rowcol, 2048^2..8192^2, f32 and f64,
# no --verify (timing only), all in one run.
# Usage (device, repo root): bash notes/measurements/2026-11-21-h200-run7/ab.sh BUILD_DIR > $OUT/ab.log
B=${1:?build dir}
libdirs=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
for f in $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' 2>/dev/null | head -5); do libdirs=$libdirs:$(dirname "$f"); done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
run() {  # label, env...
  local label=$1; shift
  echo "## $label"
  env "$@" timeout 200 "$B/dctool" bench --ops dct2,idct2 --sizes 2048x2048,4096x4096,8192x8192 --backends "$BK" \
    --precision f64,f32 --reps 20 --warmup 3 --effort estimate --format csv
  echo "exit $?"
}
BK=cuda-fft2d,cuda-rowcol run "default fft2d + rowcol" X=1
BK=cuda-fft2d run "fft2d DCTOOL_FFT2D_POST=separate" DCTOOL_FFT2D_POST=separate
BK=cuda-fft2d run "fft2d DCTOOL_FFT2D_COLS=ours (ColumnFft fused at every n1 it supports)" DCTOOL_FFT2D_COLS=ours
BK=cuda-fft2d run "fft2d DCTOOL_FFT2D_COLS=cufft" DCTOOL_FFT2D_COLS=cufft
BK=cuda-fft2d,cuda-rowcol run "default fft2d + rowcol (again, for the spread)" X=1
