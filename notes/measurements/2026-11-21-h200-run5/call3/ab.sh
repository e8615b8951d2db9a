#!/usr/bin/env bash
# A/B of the fft2d routes and the rowcol row stages (no --verify; the default rows are verified by bench2d).
D=${1:-carry/r2}/dctool
b() { echo "## $1"; env "$2" timeout 100 "$D" bench --ops dct2,idct2 --sizes 2048x2048,4096x4096,8192x8192 \
  --backends "$3" --precision f64,f32 --reps 20 --warmup 3 --effort estimate --format csv; echo "exit $?"; }
b "default fft2d + rowcol" DCTOOL_X=1 cuda-fft2d,cuda-rowcol
b "fft2d r2c" DCTOOL_FFT2D=r2c cuda-fft2d
b "fft2d rows tight pitch" DCTOOL_FFT2D_PITCH=tight cuda-fft2d
b "rowcol cufft rows" DCTOOL_ROW_FFT=cufft cuda-rowcol
