#!/bin/bash
# One array over the GPUs of one process (`--distributed --devices`, docs/distributed.md): `dctool bench --distributed`
# on one device and on every device of the host, the data kept on the devices, for 3-D volumes and a large matrix,
# dct2 and idct2 (f32; f64 at 1024^3). Writes the CSV (rows of both runs, column `gpus`) to stdout; the one-GPU plan
# of the whole array (`cuda-r2r`, `cuda-fft2d`) and VkFFT's 3-D DCT (VKBENCH_R2R, built by scripts/bench/peers/build.sh)
# of the same shapes go to stderr, for the comparison in docs/distributed.md.
# Usage: scripts/bench/distributed_gpus.sh DCTOOL [VKBENCH_R2R] > bench/results/distributed-<device>.csv
set -uo pipefail
B=$1
VK=${2:-}
R="--reps ${REPS:-10} --warmup 2 --format csv"
S3=1024x1024x1024,1000x1000x1000
# shellcheck source=scripts/bench/lib.sh
. "$(dirname "$0")/lib.sh"
device=$(device_of "$B" cuda-r2r)
echo "# command: dctool --devices 0|all bench --distributed --ops dct2,idct2 --sizes $S3,16384x16384 -b cuda-r2r -p f32 $R"
echo "# command: dctool --devices 0|all bench --distributed --ops dct2 --sizes 1024x1024x1024 -b cuda-r2r -p f64 $R"
echo "# device: $device"
echo "# host: $(nproc) cores, $(nvidia-smi -L 2>/dev/null | wc -l) GPUs"
echo "# date: $(date -u +%Y-%m-%d)"
header=1
for dv in 0 all; do
  for args in "--ops dct2,idct2 --sizes $S3,16384x16384 -p f32" "--ops dct2 --sizes 1024x1024x1024 -p f64"; do
    # shellcheck disable=SC2086
    out=$("$B" --devices $dv bench --distributed $args -b cuda-r2r $R) || { echo "failed: --devices $dv $args" >&2; continue; }
    if [ $header = 1 ]; then echo "$out"; header=0; else echo "$out" | tail -n +2; fi
  done
done
{
  echo "# one GPU, one plan of the whole array:"
  "$B" bench --ops r2r:dct2+dct2+dct2,r2r:dct3+dct3+dct3 --sizes $S3 -b cuda-r2r -p f32 $R
  "$B" bench --ops r2r:dct2+dct2+dct2 --sizes 1024x1024x1024 -b cuda-r2r -p f64 $R | tail -n +2
  "$B" bench --ops dct2,idct2 --sizes 16384x16384 -b cuda-fft2d -p f32 $R | tail -n +2
  if [ -n "$VK" ]; then
    echo "# VkFFT, one GPU:"
    "$VK" --only 3d --shapes3d $S3 --precision f32,f64 --reps 10 | grep -v '^#' | grep -E '1024x|1000x'
  fi
} >&2
