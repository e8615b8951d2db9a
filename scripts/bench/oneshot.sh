#!/bin/bash
# One input on its own, end to end: `dctool dct2 IN.npy -o OUT.npy` for matrices of photo and square shapes, beside
# `cat IN > OUT` (the time to read and write the same files) in the same run, each command a new process, medians of
# REPS runs with the commands interleaved. Columns: auto (dctool's choice), the GPU (`-b cuda-fft2d`, streamed), the
# GPU through whole host arrays (a `.raw` output, which is not streamed: the route before streaming), the CPU
# (`-b cpu-fftw`, streamed).
# Usage: scripts/bench/oneshot.sh DCTOOL [DIR] [REPS] > bench/results/oneshot-<device>.csv
#   DIR: where the inputs and outputs go (default /dev/shm/dctool-oneshot: a RAM disk); needs python3 with numpy.
set -euo pipefail
B=$1
D=${2:-/dev/shm/dctool-oneshot}
REPS=${3:-3}
mkdir -p "$D"
python3 - "$D" <<'PY'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(5)
for name, shape, dtype in [("1080x1920", (1080, 1920), np.float32), ("2160x3840", (2160, 3840), np.float32),
                           ("4096x4096", (4096, 4096), np.float32), ("8192x8192", (8192, 8192), np.float32),
                           ("16384x16384", (16384, 16384), np.float32), ("8192x8192-f64", (8192, 8192), np.float64)]:
    np.save(f"{d}/{name}.npy", rng.standard_normal(shape).astype(dtype))
PY
ms() {  # wall milliseconds of a command (its output discarded); exits on failure
  local s e
  s=$(date +%s%N)
  "$@" > /dev/null
  e=$(date +%s%N)
  echo $(( (e - s) / 1000 ))
}
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1000 }'; }
# shellcheck source=scripts/bench/lib.sh
. "$(dirname "$0")/lib.sh"
device=$(device_of "$B" cuda-fft2d)
echo "# command: scripts/bench/oneshot.sh build/dctool /dev/shm/dctool-oneshot $REPS"
echo "# command: cat IN > OUT; dctool [-p f64] [-b cuda-fft2d|cpu-fftw] dct2 IN.npy -o OUT.npy (OUT.raw: whole arrays)"
echo "# device: $device"
echo "# host: $(nproc) cores"
echo "# date: $(date -u +%Y-%m-%d)"
echo "shape,precision,cat_ms,auto_ms,gpu_ms,gpu_whole_arrays_ms,cpu_ms,auto_backend"
for name in 1080x1920 2160x3840 4096x4096 8192x8192 16384x16384 8192x8192-f64; do
  f=$D/$name.npy
  p=(); prec=f32
  [[ $name == *-f64 ]] && p=(-p f64) && prec=f64
  declare -A t=()
  for rep in $(seq "$REPS"); do
    t[cat]+="$(ms sh -c "cat '$f' > '$D/out.cat'") "; rm -f "$D"/out.*
    t[auto]+="$(ms "$B" "${p[@]}" dct2 "$f" -o "$D/out.npy") "; rm -f "$D"/out.*
    t[gpu]+="$(ms "$B" "${p[@]}" -b cuda-fft2d dct2 "$f" -o "$D/out.npy") "; rm -f "$D"/out.*
    t[whole]+="$(ms "$B" "${p[@]}" -b cuda-fft2d dct2 "$f" -o "$D/out.raw") "; rm -f "$D"/out.*
    t[cpu]+="$(ms "$B" "${p[@]}" -b cpu-fftw dct2 "$f" -o "$D/out.npy") "; rm -f "$D"/out.*
  done
  chosen=$("$B" "${p[@]}" --json dct2 "$f" -o "$D/out.npy" | python3 -c "import json, sys; print(json.load(sys.stdin)['backend'])")
  rm -f "$D"/out.*
  row="${name%-f64},$prec"
  for k in cat auto gpu whole cpu; do row+=",$(tr ' ' '\n' <<< "${t[$k]}" | grep . | median)"; done
  echo "$row,$chosen"
  unset t
done
rm -rf "$D"
