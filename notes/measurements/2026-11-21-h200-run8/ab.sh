#!/usr/bin/env bash
# A/B of cuda-fft2d routes in one run (eighth session): each configuration is `label ENV=VALUE ...`, run twice,
# alternating, plus cuda-rowcol once per round; bench dct2/idct2, f64 and f32, no --verify (timing only).
# Usage (device, repo root): SIZES=2048x2048 bash notes/measurements/2026-11-21-h200-run8/ab.sh BUILD_DIR \
#   "one-pass" "two-kernel DCTOOL_FFT2D_ONEPASS=0" ... > $OUT/ab.log
B=${1:?build dir}; shift
SIZES=${SIZES:-2048x2048,4096x4096,8192x8192}
libdirs=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
for f in $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' 2>/dev/null | head -5); do libdirs=$libdirs:$(dirname "$f"); done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bench() {  # backends, env...
  local bk=$1; shift
  env "$@" timeout 200 "$B/dctool" bench --ops dct2,idct2 --sizes "$SIZES" --backends "$bk" --precision f64,f32 \
    --reps 20 --warmup 3 --effort estimate --format csv | grep -v '^op,'
}
for round in 1 2; do
  for cfg in "$@"; do
    read -r label envs <<<"$cfg"
    echo "## $label ($envs) round $round"
    bench cuda-fft2d $envs
  done
  echo "## rowcol round $round"
  bench cuda-rowcol
done
