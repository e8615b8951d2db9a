#!/usr/bin/env bash
# The GPU check, run on the device machine from the repository root with a carried Release build for the GPU
# (README, Development):
#
#   scripts/gpu-check.sh BUILD_DIR [BASELINE_DIR]
#
# Phases (GPU_CHECK_PHASES, comma list; default "tests,sweeps,jpeg,batch"):
#   tests     every gpu-labelled test: tests/test_kernels and the [gpu] case of tests/test_conformance (every CUDA
#             backend of the table against the f64 oracle), run from the binaries (ctest's paths are the build
#             machine's); compact log with durations
#   sweeps    scripts/bench/sweeps.sh: the capability CSVs of bench/results/ (and VkFFT's with GPU_CHECK_VKBENCH=PATH)
#             into $OUT/results; with BASELINE_DIR (another build's dctool) the same sweeps with it into
#             $OUT/baseline, alternating capability by capability, and scripts/bench/compare.py's ratio table
#   jpeg      the fused jpeg round trip of 4096x4096 RGB images (device and transfer times from --report), twice, and
#             the copy of the same bytes (cuda-8x8 at 4096x3072 f32 = 50.3 MB: its x_copy gives the copy time)
#   batch     30 1920x1080 JPEG photos (scripts/bench/make_photos.py) to .jpg at quality 50 with -b auto (the GPU)
#             and -b cpu, medians of 3; one-shot dct2 of a 4096x4096 .npy on the GPU and on cpu-fftw
#   sanitize  compute-sanitizer memcheck and racecheck over every gpu test case (one process per case and tool,
#             GPU_CHECK_SANITIZE_JOBS at a time, default 4, within GPU_CHECK_SANITIZE_TIMEOUT seconds, default 480;
#             GPU_CHECK_SANITIZE_TOOLS and GPU_CHECK_SANITIZE_ONLY narrow it): sanitize.log, one line per case and
#             tool with its error/hazard count
#   oom       a dct2 that cannot fit the device (a sparse raw file of 60000x60000 f64, 28.8 GB): its exit code and
#             message
# Everything goes to $OUT: gpu-check.log, tests.log, extra.log and sweeps.tgz (results/*.csv, baseline/*.csv: one
# file, because the device machine hands back at most 8 files). A short table last.
# GPU_CHECK_REPS (default 20), GPU_CHECK_TEST_ARGS (extra Catch2 arguments for test_kernels), GPU_CHECK_TEST_TIMEOUT
# (seconds for the tests phase, default 450), GPU_CHECK_SWEEPS (the sweeps, default all of sweeps.sh's).
set -u -o pipefail

BUILD=${1:-build-gpu}
BASELINE=${2:-}
OUT=${OUT:-$PWD/gpu-check-out}
PHASES=${GPU_CHECK_PHASES:-tests,sweeps,jpeg,batch}
REPS=${GPU_CHECK_REPS:-20}
mkdir -p "$OUT"
LOG=$OUT/gpu-check.log
EXTRA=$OUT/extra.log
: >"$LOG"
say() { echo "$@" | tee -a "$LOG"; }
has_phase() { [[ ",$PHASES," == *",$1,"* ]]; }

# cuFFT / CUDA runtime libraries: the toolkit's, plus wherever libcufft.so.1x lives.
libdirs=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
for f in $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' 2>/dev/null | head -5); do
  libdirs=$libdirs:$(dirname "$f")
done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Tests find data/ through the source path compiled in at build time (/work/main on the build machine).
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }

DCTOOL=$BUILD/dctool
say "== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) build=$BUILD baseline=${BASELINE:-none} phases=$PHASES"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1 | tee -a "$LOG"
[[ -x $DCTOOL ]] && "$DCTOOL" --version 2>&1 | tee -a "$LOG"

status=0
if has_phase tests; then
  t0=$(date +%s)
  : >"$OUT/tests.log"
  for t in "$BUILD/tests/test_kernels" "$BUILD/tests/test_conformance [gpu]"; do
    read -r bin spec <<<"$t"
    if [[ ! -x $bin ]]; then
      say "tests: no $bin"; status=1; continue
    fi
    left=$(( ${GPU_CHECK_TEST_TIMEOUT:-450} - ($(date +%s) - t0) ))
    say "== tests: $bin ${spec:-} (${left} s left)"
    # shellcheck disable=SC2086
    timeout "$left" "$bin" ${spec:+"$spec"} -r compact --durations yes ${GPU_CHECK_TEST_ARGS:-} >>"$OUT/tests.log" 2>&1
    rc=$?
    say "$bin exit code $rc"
    [[ $rc -eq 0 ]] || status=1
  done
  grep -E '^conformance:' "$OUT/tests.log" | tee -a "$LOG"
  grep -E '^(Failed|Passed|All tests passed|test cases)' "$OUT/tests.log" | tee -a "$LOG"
  say "tests: $(($(date +%s) - t0)) s"
fi

if has_phase sweeps; then
  caps=${GPU_CHECK_SWEEPS:-dct2d,dct1d,block8,dct4,lot,peer-vkfft}
  for cap in ${caps//,/ }; do  # capability by capability, the baseline right after, so that drift hits both alike
    SWEEPS=$cap REPS=$REPS bash scripts/bench/sweeps.sh "$BUILD" "$OUT/results" ${GPU_CHECK_VKBENCH:-} \
      >>"$EXTRA" 2>&1 || { say "sweeps $cap failed"; status=1; }
    if [[ -n $BASELINE && $cap != peer-vkfft ]]; then
      SWEEPS=$cap REPS=$REPS bash scripts/bench/sweeps.sh "$BASELINE" "$OUT/baseline" >>"$EXTRA" 2>&1 ||
        { say "baseline sweeps $cap failed"; status=1; }
    fi
    say "sweeps $cap done"
  done
  [[ -n $BASELINE ]] && /usr/bin/env python3 scripts/bench/compare.py "$OUT/results" "$OUT/baseline" | tee -a "$LOG"
  (cd "$OUT" && tar czf sweeps.tgz results $([[ -d baseline ]] && echo baseline) && rm -rf results baseline)
fi

if has_phase jpeg && [[ -x $DCTOOL ]]; then
  say "== fused jpeg: 4096x4096 RGB, quality 50 (the first file includes module load)"
  mkdir -p /tmp/fj /tmp/fjo
  /usr/bin/env python3 scripts/bench/make_images.py /tmp/fj/big_1.png 4096 4096 >>"$EXTRA" 2>&1
  for i in 2 3 4; do cp /tmp/fj/big_1.png /tmp/fj/big_$i.png; done
  for pass in 1 2; do  # twice: drift check
    echo "## fused jpeg, pass $pass" >>"$EXTRA"
    "$DCTOOL" compress /tmp/fj/*.png -o /tmp/fjo --format png --quality 50 --jobs 1 --report /tmp/fj/report.json >>"$EXTRA" 2>&1
    cat /tmp/fj/report.json >>"$EXTRA"
  done
  { timeout 60 "$DCTOOL" bench --ops dct2 --block 8 --norm ortho --sizes 4096x3072 --backends cuda-8x8 --precision f32 \
      --reps "$REPS" --warmup 3 --format csv; echo "exit $?"; } >>"$EXTRA" 2>&1
fi

if has_phase batch && [[ -x $DCTOOL ]]; then
  say "== batch: 30 1920x1080 JPEG photos to .jpg at quality 50, -b auto (GPU) beside -b cpu, medians of 3"
  rm -rf /tmp/ph /tmp/pho && /usr/bin/env python3 scripts/bench/make_photos.py /tmp/ph 30 >>"$EXTRA" 2>&1
  : >"$OUT/.batch"
  for rep in 1 2 3; do
    for b in auto cpu; do
      rm -rf /tmp/pho
      s=$(date +%s.%N)
      timeout 120 "$DCTOOL" -q -b "$b" compress /tmp/ph/*.jpg -o /tmp/pho --quality 50 >>"$EXTRA" 2>&1
      e=$(date +%s.%N)
      echo "$b $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", 30 / (e - s) }')" >>"$OUT/.batch"
    done
  done
  for b in auto cpu; do
    say "batch -b $b: images/s $(awk -v b="$b" '$1 == b { print $2 }' "$OUT/.batch" | sort -n | tr '\n' ' ')(median $(awk -v b="$b" '$1 == b { print $2 }' "$OUT/.batch" | sort -n | sed -n 2p))"
    rm -rf /tmp/pho
    "$DCTOOL" --timing -b "$b" compress /tmp/ph/*.jpg -o /tmp/pho --quality 50 --report "/tmp/batch-$b.json" >>"$EXTRA" 2>&1
    grep -m1 '"backend"' "/tmp/batch-$b.json" | sed 's/.*"backend": \("[^"]*"\).*/backend \1/' | tee -a "$LOG"
  done
  say "== one-shot dct2 of a 4096x4096 f32 .npy: auto (GPU) and cpu-fftw, --timing"
  /usr/bin/env python3 -c "import numpy as np; np.save('/tmp/big.npy', np.random.default_rng(1).random((4096, 4096), dtype=np.float32))"
  for b in auto cpu-fftw auto; do
    s=$(date +%s.%N)
    "$DCTOOL" --timing -b "$b" dct2 /tmp/big.npy -o /tmp/big-out.npy >>"$EXTRA" 2>&1
    e=$(date +%s.%N)
    say "dct2 4096^2 -b $b: $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", 1000 * (e - s) }') ms wall"
  done
  s=$(date +%s.%N); cat /tmp/big.npy >/tmp/copy.npy; e=$(date +%s.%N)
  say "cat big.npy > copy.npy (read + write of the same bytes): $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", 1000 * (e - s) }') ms"
fi

if has_phase sanitize; then
  t0=$(date +%s)
  SLOG=$OUT/sanitize.log
  : >"$SLOG"
  cases=$OUT/.cases
  : >"$cases"
  for bin in "$BUILD/tests/test_kernels" "$BUILD/tests/test_conformance"; do
    [[ -x $bin ]] || { say "sanitize: no $bin"; status=1; continue; }
    "$bin" "[gpu]" --list-test-names-only 2>/dev/null | sed -e '/^$/d' -e '/test case/d' -e '/^ /d' |
      while IFS= read -r name; do printf '%s\t%s\n' "$bin" "$name"; done >>"$cases"
  done
  say "== sanitize: $(wc -l <"$cases") gpu test cases, memcheck then racecheck"
  budget=${GPU_CHECK_SANITIZE_TIMEOUT:-480}
  one_case() {  # BIN NAME TOOL
    local left=$((deadline - $(date +%s)))
    ((left > 5)) || { printf '%s\t%s\tnot run (out of time)\n' "$3" "$2"; return; }
    local spec=${2//\\/\\\\}; spec=${spec//,/\\,}; spec=${spec//[/\\[}
    local log; log=$(mktemp)
    timeout "$left" compute-sanitizer --tool "$3" --error-exitcode 97 --print-limit 10 "$1" "$spec" -w NoTests >"$log" 2>&1
    local rc=$? summary
    summary=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | tail -n 1)
    # A case that makes no CUDA call (refusals checked on the host) passes with nothing to check.
    if [[ $rc -ne 0 ]] && grep -q 'terminated before first instrumented API call' "$log" &&
      grep -q '^All tests passed' "$log"; then
      rc=0 summary="no CUDA call to check"
    fi
    printf '%s\t%s\texit %s\t%s\n' "$3" "$2" "$rc" "${summary:-no summary}"
    [[ $rc -eq 0 ]] || { echo "---- $3 $2"; grep -vE '^(=+ *$|\s*$)' "$log" | head -n 40; } >>"$OUT/sanitize-detail.log"
    rm -f "$log"
  }
  export -f one_case; export OUT
  # Every (tool, case) pair in one pool, each with the whole time budget; GPU_CHECK_SANITIZE_TOOLS (default
  # memcheck,racecheck) and GPU_CHECK_SANITIZE_ONLY (an extended regex over the case names) narrow it.
  deadline=$((t0 + budget))
  export deadline
  tools=${GPU_CHECK_SANITIZE_TOOLS:-memcheck,racecheck}
  for tool in ${tools//,/ }; do
    grep -E -- "${GPU_CHECK_SANITIZE_ONLY:-.}" "$cases" | sed "s/^/$tool\t/"
  done | tr '\n' '\0' | xargs -0 -P "${GPU_CHECK_SANITIZE_JOBS:-4}" -I{} bash -c \
    'IFS=$'"'"'\t'"'"' read -r t b n <<<"$1"; one_case "$b" "$n" "$t"' _ {} >>"$SLOG"
  bad=$(grep -cvE 'exit 0' "$SLOG")
  say "sanitize: $(grep -c 'exit 0' "$SLOG") clean, $bad not clean or not run, $(($(date +%s) - t0)) s"
  grep -vE 'exit 0' "$SLOG" | head -n 20 | tee -a "$LOG"
  ((bad == 0)) || status=1
fi

if has_phase oom && [[ -x $DCTOOL ]]; then
  say "== oom: dct2 of a 60000x60000 f64 raw file (28.8 GB, sparse) on the device"
  truncate -s $((60000 * 60000 * 8)) /tmp/oom.f64
  { timeout 120 "$DCTOOL" -p f64 -b cuda-fft2d dct2 /tmp/oom.f64 --shape 60000x60000 -o /tmp/oom-out.npy; echo "exit $?"; } 2>&1 |
    tail -n 3 | tee -a "$LOG"
  ls /tmp/oom-out.npy* /tmp/.oom-out* 2>/dev/null | tee -a "$LOG"
  rm -f /tmp/oom.f64
fi

say "== gpu-check done: status $status"
exit $status
