#!/usr/bin/env bash
# Reproduces seed 003's Tables 4-7 (classical vs 4-section vs 8-section DCT-IV, N = 17) and the
# cuda-dct4-fft throughput check of issue 5 with the generic `dctool bench`, on the device machine.
#   scripts/bench-dct4.sh [DCTOOL] [OUTDIR] [TEST_KERNELS]
# DCTOOL defaults to build-gpu/dctool, OUTDIR to . ; TEST_KERNELS (optional) prints the error figure
# (L2 error of the sectioned results against the classical kernel over 1000 random inputs in [-1, 1]).
#   single transform, transfers included (the paper's timing: H2D + kernel + D2H): --sizes 1x17, e2e_ms
#   batched throughput: 2^20 transforms of length 17 (--sizes 1048576x17), median_ms (CUDA events)
#   the paper works in double: f64 first, f32 beside it
#   cuda-dct4-fft batched f32 at N = 256, 1024, 4096 with 2^24 elements each: x_copy (issue: <= 1.5), by
#   the single-pass kernel (the default for these lengths) and by the three-pass route beside it
set -euo pipefail
dctool=${1:-build-gpu/dctool}
out=${2:-.}
tests=${3:-}
mkdir -p "$out"
reps=${REPS:-50}

"$dctool" backends | grep -E "dct4" || true
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>/dev/null || true
date -u

sec="cuda-dct4-direct,cuda-dct4-sec4,cuda-dct4-sec8,cuda-dct4-fft"
"$dctool" bench --ops dct4 --axis rows --norm none --sizes 1x17,1048576x17 --backends "$sec" \
  --precision f64,f32 --reps "$reps" --warmup 5 --verify --format csv -o "$out/dct4_n17.csv"
"$dctool" bench --ops dct4 --axis rows --norm ortho --sizes 65536x256,16384x1024,4096x4096 \
  --backends cuda-dct4-fft --precision f32,f64 --reps "$reps" --warmup 5 --verify --format csv -o "$out/dct4_fft.csv"
# The same through the three-pass route (DCTOOL_DCT4_THREE_PASS=1: pre kernel, cuFFT C2C, post kernel)
# instead of the single pass, and an odd length (signed permutation + R2C), for comparison.
DCTOOL_DCT4_THREE_PASS=1 "$dctool" bench --ops dct4 --axis rows --norm ortho --sizes 65536x256,16384x1024,4096x4096,16384x1023 \
  --backends cuda-dct4-fft --precision f32 --reps "$reps" --warmup 5 --format csv -o "$out/dct4_fft_three_pass.csv"

# Speedups over the classical kernel, as the paper's tables give them.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { key = $c["precision"] " " $c["shape"]; med[key, $c["backend"]] = $c["median_ms"]; e2e[key, $c["backend"]] = $c["e2e_ms"];
    err[key, $c["backend"]] = $c["max_rel_err"]; keys[key] = 1 }
  END {
    printf "\n| precision shape | backend | median_ms | speedup (device) | e2e_ms | speedup (e2e) | max_rel_err |\n|---|---|---|---|---|---|---|\n";
    n = split("cuda-dct4-direct cuda-dct4-sec4 cuda-dct4-sec8 cuda-dct4-fft", bs, " ");
    for (k in keys) for (j = 1; j <= n; j++) { b = bs[j]; if (!((k, b) in med)) continue;
      printf "| %s | %s | %.5f | %.2f | %.4f | %.2f | %s |\n", k, b, med[k, b], med[k, "cuda-dct4-direct"] / med[k, b],
             e2e[k, b], e2e[k, "cuda-dct4-direct"] / e2e[k, b], err[k, b] } }' "$out/dct4_n17.csv" | tee "$out/dct4_n17_speedups.md"
echo
for f in dct4_n17 dct4_fft dct4_fft_three_pass; do
  echo "== $f"; awk -F, '{ printf "%-6s %-17s %-5s %-11s %-11s %-9s %-7s %-7s %-10s %-10s\n", $1, $2, $3, $4, $7, $10, $11, $12, $13, $15 }' "$out/$f.csv"
done

if [[ -n "$tests" ]]; then
  "$tests" "[figure]" -s 2>&1 | grep -E "seed003-error|passed|failed" | tee "$out/dct4_error_figure.txt"
fi
