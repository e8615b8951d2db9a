#!/usr/bin/env bash
# GPU check for the device machine (DESIGN §9): run from the repository root with a carried build
# directory holding `dctool` and `tests/test_kernels` (or `test_kernels`):
#
#   scripts/gpu-check.sh BUILD_DIR
#
# Phases (GPU_CHECK_PHASES, comma list, default "tests,bench2d,bench1d,block8,dct4,lot,jpeg,whole,batch,auto"):
#   tests    the gpu-labelled Catch2 tests, run from the binary directly (ctest's discovered paths are
#            absolute to the build machine); compact log with durations
#   bench2d  Table V layout: dct2/idct2, cuda-rowcol vs cuda-fft2d (x_fft = / cuFFT R2C or C2R), f64 and f32;
#            then the other routes at 2048^2..8192^2 into extra.log (cuda-fft2d DCTOOL_FFT2D=r2c and
#            DCTOOL_FFT2D_PITCH=tight, cuda-rowcol DCTOOL_ROW_FFT=cufft), and an ncu profile of the fft2d kernels
#            at 4096^2 f32 (ncu-fft2d.txt) when ncu is there
#   bench1d  Table IV layout: 1 x N, N = 2^14..2^18, --axis rows, the four 1-D algorithms
#   block8   cuda-8x8 and cuda-8x8-def, --block 8, f32, 2048^2..8192^2
#   dct4     seed 003 N = 17 (classical / 4-section / 8-section, single and 2^20 transforms) and
#            cuda-dct4-fft batched at N = 256, 1024, 4096 (2^24 elements; f32, f64; and N = 1023), then
#            the same through the three-pass route (DCTOOL_DCT4_THREE_PASS=1, csv in extra.log)
#   jpeg     fused GPU jpeg round trip of 4096x4096 RGB images, twice (device and transfer times from
#            --report), the copy of the same bytes (cuda-8x8 at 4096x3072 f32 = 50.3 MB: its x_copy gives the
#            copy time), and an ncu profile of the kernel when ncu is there (ncu-jpeg.txt)
#   whole    compress --mode threshold / keep of three 4096x4096 RGB images on the GPU (cuda-compress-whole, f32 and
#            f64; per-stage times from --report), keep with the full CUB sort (DCTOOL_KEEP_SELECT=sort), and the old
#            route (CPU compressor on cuda-fft2d) for comparison
#   batch    200 copies of one 1920x1080 RGB PNG: `compress --quality 50` (auto: cuda-jpeg-fused) and the same
#            with `--mode none` (decode + encode only); both summary lines (images/s) to extra.log
#   auto     `dctool --timing dct2 big.npy -o out.npy` picks cuda-fft2d and shows device and e2e times
#   ncu8k    (not in the default list) Nsight Compute durations of every kernel of cuda-fft2d dct2/idct2 at
#            8192^2 f32, the rows route and the r2c route (DCTOOL_FFT2D=rows|r2c): ncu-fft2d-8k.txt
# Everything goes to $OUT (at most 8 files): gpu-check.log, tests.log, bench-*.csv, extra.log.
# A short table is printed last.
# GPU_CHECK_REPS (default 20), GPU_CHECK_TEST_ARGS (extra Catch2 arguments, e.g. a test name),
# GPU_CHECK_BENCH2D_EXTRAS=0 (bench2d: the Table V sweep only, without the other routes and ncu),
# GPU_CHECK_TEST_TIMEOUT (seconds for the tests phase, default 330).
set -u -o pipefail

BUILD=${1:-build-gpu}
OUT=${OUT:-$PWD/gpu-check-out}
PHASES=${GPU_CHECK_PHASES:-tests,bench2d,bench1d,block8,dct4,lot,jpeg,whole,batch,auto}
REPS=${GPU_CHECK_REPS:-20}
mkdir -p "$OUT"
LOG=$OUT/gpu-check.log
: >"$LOG"
say() { echo "$@" | tee -a "$LOG"; }
has_phase() { [[ ",$PHASES," == *",$1,"* ]]; }

# cuFFT / CUDA runtime libraries: the toolkit's, plus wherever libcufft.so.12 lives.
libdirs=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
for f in $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' 2>/dev/null | head -5); do
  libdirs=$libdirs:$(dirname "$f")
done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Tests find data/ through the source path compiled in at build time (/work/main on the build machine).
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }

DCTOOL=$BUILD/dctool
TESTS=$BUILD/tests/test_kernels
[[ -x $TESTS ]] || TESTS=$BUILD/test_kernels

say "== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) build=$BUILD phases=$PHASES"
nvidia-smi -L 2>&1 | tee -a "$LOG"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1 | tee -a "$LOG"
say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
[[ -x $DCTOOL ]] && "$DCTOOL" backends 2>&1 | grep -E '^(backend|cuda-)' | tee -a "$LOG"

status=0
if has_phase tests; then
  if [[ -x $TESTS ]]; then
    say "== tests: $TESTS"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    timeout "${GPU_CHECK_TEST_TIMEOUT:-330}" "$TESTS" -r compact --durations yes ${GPU_CHECK_TEST_ARGS:-} 2>&1 | tee "$OUT/tests.log" | cut -c1-400 | tail -n 60
    rc=${PIPESTATUS[0]}
    say "tests exit code $rc ($(($(date +%s) - t0)) s)"
    grep -E '^(Failed|Passed|All tests passed|test cases)' "$OUT/tests.log" | tail -n 3 | tee -a "$LOG"
    [[ $rc -eq 0 ]] || status=1
  else
    say "tests: no test binary under $BUILD"; status=1
  fi
fi

bench() {  # name, extra args...
  local name=$1; shift
  [[ -x $DCTOOL ]] || { say "bench: no $DCTOOL"; status=1; return; }
  say "== bench $name: $*"
  local t0; t0=$(date +%s)
  timeout 240 "$DCTOOL" bench "$@" --reps "$REPS" --warmup 3 --effort estimate --verify --format csv \
    -o "$OUT/bench-$name.csv" 2>>"$LOG"
  local rc=$?
  say "bench $name exit code $rc ($(($(date +%s) - t0)) s)"
  [[ $rc -eq 0 ]] || status=1
}

if has_phase bench2d; then
  bench 2d --ops dct2,idct2 --sizes 512x512,1024x1024,2048x2048,4096x4096,8192x8192,100x10000,10000x100 \
    --backends cuda-rowcol,cuda-fft2d --precision f64,f32 --axis both --batch 1
  # The other routes, in the same run (engines.cuh): cuda-fft2d with a reorder pass + cuFFT's 2-D plan (r2c), the
  # rows route with the spectrum's rows unpadded (tight), and cuda-rowcol with a reorder pass + cuFFT's batched
  # 1-D R2C/C2R for its row stages instead of the row kernels (DCTOOL_ROW_FFT=cufft, the baseline before them).
  [[ ${GPU_CHECK_BENCH2D_EXTRAS:-1} == 0 ]] || \
  for route in "r2c DCTOOL_FFT2D=r2c cuda-fft2d" "tight DCTOOL_FFT2D_PITCH=tight cuda-fft2d" \
               "rowcol-cufft DCTOOL_ROW_FFT=cufft cuda-rowcol"; do
    read -r label var backend <<<"$route"
    say "== bench 2d, $label: $var $backend (csv in extra.log)"
    { echo "## $label"; env "$var" timeout 120 "$DCTOOL" bench --ops dct2,idct2 \
        --sizes 2048x2048,4096x4096,8192x8192 --backends "$backend" --precision f64,f32 --reps "$REPS" --warmup 3 \
        --effort estimate --format csv; echo "exit $?"; } >>"$OUT/extra.log" 2>&1
  done
  if [[ ${GPU_CHECK_BENCH2D_EXTRAS:-1} != 0 ]] && command -v ncu >/dev/null; then
    timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section MemoryWorkloadAnalysis "$DCTOOL" bench --ops dct2,idct2 --sizes 4096x4096 --backends cuda-fft2d \
      --precision f32 --reps 1 --warmup 0 >"$OUT/ncu-fft2d.txt" 2>&1
  fi
fi
if has_phase bench1d; then
  bench 1d --ops dct2,idct2 --sizes 1x16384,1x32768,1x65536,1x131072,1x262144 \
    --backends cuda-1d-4n,cuda-1d-2n-mirror,cuda-1d-2n-pad,cuda-1d-n --precision f64,f32 --axis rows --batch 1
fi

if has_phase block8; then
  bench block8 --ops dct2,idct2 --block 8 --norm ortho --sizes 2048x2048,4096x4096,8192x8192 \
    --backends cuda-8x8,cuda-8x8-def --precision f32
fi
if has_phase dct4; then
  bench dct4-n17 --ops dct4 --axis rows --sizes 1x17,1048576x17 \
    --backends cuda-dct4-direct,cuda-dct4-sec4,cuda-dct4-sec8,cuda-dct4-fft --precision f64,f32
  bench dct4-fft --ops dct4,idct4 --axis rows --norm ortho --sizes 65536x256,16384x1024,4096x4096,16384x1023 \
    --backends cuda-dct4-fft --precision f32,f64
  # The same lengths through the three-pass route (pre kernel, cuFFT C2C, post kernel), in the same run.
  say "== bench dct4-fft, DCTOOL_DCT4_THREE_PASS=1 (csv in extra.log)"
  { DCTOOL_DCT4_THREE_PASS=1 timeout 120 "$DCTOOL" bench --ops dct4 --axis rows --norm ortho \
      --sizes 65536x256,16384x1024,4096x4096 --backends cuda-dct4-fft --precision f32 --reps "$REPS" --warmup 3 \
      --effort estimate --verify --format csv; echo "exit $?"; } >>"$OUT/extra.log" 2>&1
fi
EXTRA=$OUT/extra.log
if has_phase lot && [[ -x $DCTOOL ]]; then
  # cuda-lot forward and inverse beside cpu-lot on the host's cores; csv rows go to extra.log (8-file limit).
  say "== bench lot"
  { timeout 240 "$DCTOOL" bench --ops lot,ilot --sizes 2048x2048,4096x4096,8192x8192 --backends cuda-lot,cpu-lot \
      --precision f32 --reps "$REPS" --warmup 3 --effort estimate --verify --format csv; echo "exit $?"; } >>"$EXTRA" 2>&1
  { timeout 200 "$DCTOOL" --threads 1 bench --ops lot,ilot --sizes 2048x2048,4096x4096,8192x8192 --backends cpu-lot \
      --precision f32 --reps 5 --warmup 1 --format csv; echo "exit $?"; } >>"$EXTRA" 2>&1
fi
if has_phase jpeg && [[ -x $DCTOOL ]]; then
  say "== fused jpeg: 4096x4096 RGB, quality 50 (first file includes module load)"
  mkdir -p /tmp/fj /tmp/fjo
  /usr/bin/env python3 scripts/compress-bench-images.py /tmp/fj/big_1.png 4096 4096 >>"$EXTRA" 2>&1
  for i in 2 3 4; do cp /tmp/fj/big_1.png /tmp/fj/big_$i.png; done
  for run in 1 2; do  # twice: drift check
    echo "## fused jpeg, run $run" >>"$EXTRA"
    "$DCTOOL" compress /tmp/fj/*.png -o /tmp/fjo --quality 50 --jobs 1 \
      --report /tmp/fj/report.json >>"$EXTRA" 2>&1
    cat /tmp/fj/report.json >>"$EXTRA"
  done
  { timeout 60 "$DCTOOL" bench --ops dct2 --block 8 --norm ortho --sizes 4096x3072 --backends cuda-8x8 --precision f32 \
      --reps "$REPS" --warmup 3 --format csv; echo "exit $?"; } >>"$EXTRA" 2>&1
  if command -v ncu >/dev/null; then
    timeout 100 ncu --clock-control none --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats \
      -k regex:fused_jpeg --launch-count 1 "$DCTOOL" compress /tmp/fj/big_1.png -o /tmp/fjo/ncu.png --quality 50 \
      >"$OUT/ncu-jpeg.txt" 2>&1
  fi
fi
if has_phase whole && [[ -x $DCTOOL ]]; then
  say "== whole-image threshold / keep on the GPU (reports in extra.log)"
  mkdir -p /tmp/fj /tmp/fjo
  [[ -s /tmp/fj/big_1.png ]] || /usr/bin/env python3 scripts/compress-bench-images.py /tmp/fj/big_1.png 4096 4096 >>"$EXTRA" 2>&1
  for i in 2 3; do cp /tmp/fj/big_1.png /tmp/fj/big_$i.png; done
  whole() {  # label, env, dctool arguments...
    local label=$1 env=$2; shift 2
    echo "## whole $label" >>"$EXTRA"
    env $env timeout 120 "$DCTOOL" "$@" --jobs 1 --report /tmp/fj/whole.json >>"$EXTRA" 2>&1
    cat /tmp/fj/whole.json >>"$EXTRA"; echo >>"$EXTRA"
  }
  three=(/tmp/fj/big_1.png /tmp/fj/big_2.png /tmp/fj/big_3.png)
  for p in f32 f64; do
    whole "threshold 20 $p" "" -p "$p" compress "${three[@]}" -o /tmp/fjo --mode threshold --threshold 20
    whole "keep 0.05 $p" "" -p "$p" compress "${three[@]}" -o /tmp/fjo --mode keep --keep 0.05
  done
  whole "keep 0.05 f32 sort" "DCTOOL_KEEP_SELECT=sort" compress "${three[@]}" -o /tmp/fjo --mode keep --keep 0.05
  whole "keep 0.05 f32 old route" "" -b cuda-fft2d compress /tmp/fj/big_1.png /tmp/fj/big_2.png -o /tmp/fjo --mode keep --keep 0.05
fi
if has_phase batch && [[ -x $DCTOOL ]]; then
  say "== batch: 200 x 1920x1080 RGB PNG, quality 50, default --jobs, then --mode none (decode + encode only)"
  rm -rf /tmp/hd /tmp/hdo /tmp/hdn && mkdir -p /tmp/hd /tmp/hdo /tmp/hdn
  /usr/bin/env python3 scripts/compress-bench-images.py /tmp/hd/hd_000.png 1080 1920 >>"$EXTRA" 2>&1
  for i in $(seq -w 1 199); do cp /tmp/hd/hd_000.png "/tmp/hd/hd_$i.png"; done
  for m in jpeg none; do
    dir=/tmp/hdo; [[ $m == none ]] && dir=/tmp/hdn
    echo "batch --mode $m:" >>"$EXTRA"
    { timeout 120 "$DCTOOL" compress /tmp/hd/*.png -o "$dir" --mode "$m" --quality 50; echo "exit $?"; } 2>&1 |
      tail -n 3 | tee -a "$EXTRA" | tee -a "$LOG"
  done
fi
if has_phase ncu8k && [[ -x $DCTOOL ]] && command -v ncu >/dev/null; then
  say "== ncu: cuda-fft2d at 8192^2 f32, rows and r2c routes (ncu-fft2d-8k.txt)"
  : >"$OUT/ncu-fft2d-8k.txt"
  for route in rows r2c; do
    echo "## DCTOOL_FFT2D=$route" >>"$OUT/ncu-fft2d-8k.txt"
    DCTOOL_FFT2D=$route timeout 150 ncu --clock-control none --section SpeedOfLight "$DCTOOL" bench --ops dct2,idct2 \
      --sizes 8192x8192 --backends cuda-fft2d --precision f32 --reps 1 --warmup 0 >>"$OUT/ncu-fft2d-8k.txt" 2>&1
  done
fi
if has_phase auto && [[ -x $DCTOOL ]]; then
  say "== auto: dctool --timing dct2 big.npy (4096x4096 f32)"
  python3 -c "import numpy as np; np.save('/tmp/big.npy', np.random.default_rng(1).uniform(-1, 1, (4096, 4096)).astype(np.float32))"
  { "$DCTOOL" --timing --json dct2 /tmp/big.npy -o /tmp/big.dct.npy; echo "exit $?"; } >>"$EXTRA" 2>&1
  { "$DCTOOL" --timing --json idct2 /tmp/big.dct.npy -o /tmp/big.back.npy; echo "exit $?"; } >>"$EXTRA" 2>&1
  python3 -c "import numpy as np; a=np.load('/tmp/big.npy'); b=np.load('/tmp/big.back.npy'); print('round trip rel L2', float(np.linalg.norm(a-b)/np.linalg.norm(a)))" >>"$EXTRA" 2>&1
  tail -n 40 "$EXTRA"
fi

# The short table last: op, backend, precision, shape, median, x_fft, e2e, error.
for f in "$OUT"/bench-*.csv; do
  [[ -s $f ]] || continue
  echo "== $(basename "$f")"
  python3 - "$f" <<'PY' || column -s, -t <"$f"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("%-6s %-18s %-4s %-11s %10s %8s %8s %10s %9s" % ("op", "backend", "prec", "shape", "median_ms", "x_copy", "x_fft", "e2e_ms", "rel_err"))
for r in rows:
    g = lambda k: r.get(k, "") or ""
    print("%-6s %-18s %-4s %-11s %10s %8s %8s %10s %9s" % (g("op"), g("backend"), g("precision"), g("shape"), g("median_ms"), g("x_copy"), g("x_fft"), g("e2e_ms"), g("max_rel_err")))
PY
done
[[ -n $(nvidia-smi -L 2>/dev/null) ]] && echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
echo "gpu-check status $status (logs in $OUT)"
exit $status
