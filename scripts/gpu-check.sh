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
#   batch     30 1920x1080 JPEG photos (scripts/bench/make_photos.py) to .jpg at quality 50 with -b auto (the CPU
#             compressor for a batch this small), -b cpu and -b cuda-jpeg-fused (the GPU), medians of 3; one-shot dct2 of a
#             4096x4096 .npy on the GPU and on cpu-fftw
#   sanitize  compute-sanitizer memcheck and racecheck over every gpu test case (one process per case and tool,
#             GPU_CHECK_SANITIZE_JOBS at a time, default half the cores, each bound to its own slice of the cores
#             (taskset: FFTW, OpenMP and racecheck's workers stay inside it) and spread over the host's GPUs, within
#             GPU_CHECK_SANITIZE_TIMEOUT seconds, default 480. racecheck first has to find the deliberate race of
#             tests/tools/race_canary (else the phase fails); it runs with DCTOOL_TEST_MAX_ELEMENTS =
#             GPU_CHECK_RACECHECK_MAX_ELEMENTS, default 524288, so the sweeps leave out larger arrays and say how
#             many. GPU_CHECK_SANITIZE_TOOLS, GPU_CHECK_SANITIZE_ONLY and GPU_CHECK_RACECHECK_SKIP (a regex of cases
#             racecheck leaves out) narrow it: sanitize.log, one line per case and tool with its error/hazard count
#             and seconds
#   oom       a dct2 that cannot fit the device (a sparse raw file of 60000x60000 f64, 28.8 GB): its exit code and
#             message
#   faults    a batch compress beside tests/tools/gpu_hold (most of the device memory taken): the input that does not
#             fit what is left falls back to the CPU with a note, the others run on the GPU; exit code and outputs;
#             then a real device fault (tests/tools/gpu_fault.cu preloaded: a trapping kernel at the 3rd cuFFT call)
#             in a dct2 batch: the input in flight fails, the rest finish on the CPU
#   scale     every GPU of the host (needs 2 or more): GPU_CHECK_SCALE_COUNT (default 256; 64 files and links to them) 8192x8192 f32 .npy matrices
#             on /dev/shm through dct2 and idct2 with --devices 0 and --devices all, 24 3840x2160 photos through
#             compress -b auto (.jpg and .png outputs), outputs compared; then the same matrices under
#             `mpirun -np 1` and `-np 2` when an Open MPI runtime is given (GPU_CHECK_MPI_DEBS: a folder of Debian
#             packages, unpacked under /tmp/mpi, as the device machine has none)
#   volume    a closed-form 3-D volume (GPU_CHECK_VOLUME, default 2048x2048x3072 f32, 48 GiB) through dct --type 2 on
#             one process and GPU, then under mpirun with one process per GPU, checked on sampled lines
#             (scripts/bench/big_volume.py); GPU_CHECK_VOLUME_ONE_TIMEOUT and GPU_CHECK_VOLUME_TIMEOUT bound the two runs
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

# An Open MPI runtime from Debian packages (a dctool built with MPI needs its libraries even without mpirun).
if [[ -n ${GPU_CHECK_MPI_DEBS:-} && -d ${GPU_CHECK_MPI_DEBS:-} ]]; then
  mkdir -p /tmp/mpi && for d in "$GPU_CHECK_MPI_DEBS"/*.deb; do dpkg -x "$d" /tmp/mpi; done
  ln -sf orterun /tmp/mpi/usr/bin/mpirun  # Debian's alternatives link is not in the package
  export OPAL_PREFIX=/tmp/mpi/usr PMIX_INSTALL_PREFIX=/tmp/mpi/usr/lib/x86_64-linux-gnu/pmix2 PATH=/tmp/mpi/usr/bin:$PATH
  export LD_LIBRARY_PATH=/tmp/mpi/usr/lib/x86_64-linux-gnu:/tmp/mpi/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
fi

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
  say "== batch: 30 1920x1080 JPEG photos to .jpg at quality 50, -b auto, cpu and cuda-jpeg-fused, medians of 3"
  rm -rf /tmp/ph /tmp/pho && /usr/bin/env python3 scripts/bench/make_photos.py /tmp/ph 30 >>"$EXTRA" 2>&1
  : >"$OUT/.batch"
  for rep in 1 2 3; do
    for b in auto cpu cuda-jpeg-fused; do
      rm -rf /tmp/pho
      s=$(date +%s.%N)
      timeout 120 "$DCTOOL" -q -b "$b" compress /tmp/ph/*.jpg -o /tmp/pho --quality 50 >>"$EXTRA" 2>&1
      e=$(date +%s.%N)
      echo "$b $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", 30 / (e - s) }')" >>"$OUT/.batch"
    done
  done
  for b in auto cpu cuda-jpeg-fused; do
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
  one_case() {  # BIN NAME TOOL SLOT
    local left=$((deadline - $(date +%s)))
    ((left > 5)) || { printf '%s\t%s\tnot run (out of time)\n' "$3" "$2"; return; }
    local spec=${2//\\/\\\\}; spec=${spec//,/\\,}; spec=${spec//[/\\[}
    local log; log=$(mktemp)
    # This job's cores and GPU; racecheck with the size cap and as many analysis workers as cores.
    local first=$(($4 * slice)) extra=() cap=()
    [[ $3 == racecheck ]] && extra=(--racecheck-num-workers "$slice") cap=(DCTOOL_TEST_MAX_ELEMENTS="$race_cap")
    local s0; s0=$(date +%s)
    env CUDA_VISIBLE_DEVICES=$(($4 % ngpu)) "${cap[@]}" timeout "$left" taskset -c "$first-$((first + slice - 1))" \
      compute-sanitizer --tool "$3" "${extra[@]}" --error-exitcode 97 --print-limit 10 "$1" "$spec" -w NoTests >"$log" 2>&1
    local rc=$? summary
    summary=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | tail -n 1)
    # A case that makes no CUDA call (refusals checked on the host) passes with nothing to check.
    if [[ $rc -ne 0 ]] && grep -q 'terminated before first instrumented API call' "$log" &&
      grep -q '^All tests passed' "$log"; then
      rc=0 summary="no CUDA call to check"
    fi
    local left_out; left_out=$(grep -oE '[0-9]+ arrays above DCTOOL_TEST_MAX_ELEMENTS=[0-9]+ elements left out' "$log" |
      awk '{ n += $1; cap = $4 } END { if (n) printf "; %d arrays above %s left out", n, cap }')
    printf '%s\t%s\texit %s\t%s%s\t%s s\n' "$3" "$2" "$rc" "${summary:-no summary}" "$left_out" "$(($(date +%s) - s0))"
    [[ $rc -eq 0 ]] || { echo "---- $3 $2"; grep -vE '^(=+ *$|\s*$)' "$log" | head -n 40; } >>"$OUT/sanitize-detail.log"
    rm -f "$log"
  }
  cores=$(nproc)
  jobs=${GPU_CHECK_SANITIZE_JOBS:-$((cores / 2 > 0 ? cores / 2 : 1))}
  slice=$((cores / jobs > 0 ? cores / jobs : 1))
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); ((ngpu > 0)) || ngpu=1
  race_cap=${GPU_CHECK_RACECHECK_MAX_ELEMENTS:-524288}
  # A positive control: racecheck must report the canary's race, else its clean lines below would prove nothing.
  canary=$(compute-sanitizer --tool racecheck --error-exitcode 97 "$BUILD/tests/race_canary" 2>&1)
  if [[ $? -eq 97 ]] && grep -q 'RACECHECK SUMMARY: [1-9]' <<<"$canary"; then
    say "sanitize: racecheck finds the canary's race: $(grep -o 'RACECHECK SUMMARY.*' <<<"$canary")"
  else
    say "sanitize: racecheck did not find the canary's race (or there is no $BUILD/tests/race_canary)"
    tail -n 5 <<<"$canary" | tee -a "$LOG"
    status=1
  fi
  say "sanitize: $jobs jobs of $slice cores over $ngpu GPU(s); racecheck with DCTOOL_TEST_MAX_ELEMENTS=$race_cap"
  export -f one_case; export OUT slice ngpu race_cap
  # Every (tool, case) pair in one pool, each with the whole time budget; GPU_CHECK_SANITIZE_TOOLS (default
  # memcheck,racecheck) and GPU_CHECK_SANITIZE_ONLY (an extended regex over the case names) narrow it.
  deadline=$((t0 + budget))
  export deadline
  # The slowest cases (large shapes, smooth sizes) first; xargs' process slot picks the job's cores and GPU.
  tools=${GPU_CHECK_SANITIZE_TOOLS:-memcheck,racecheck}
  for tool in ${tools//,/ }; do
    skip='^$'
    [[ $tool == racecheck ]] && skip=${GPU_CHECK_RACECHECK_SKIP:-^$}
    grep -E -- "${GPU_CHECK_SANITIZE_ONLY:-.}" "$cases" | grep -vE -- "$skip" | sed "s/^/$tool\t/"
  done | awk '/large shapes|smooth|r2r|compress whole/ { print; next } { rest[n++] = $0 }
    END { for (i = 0; i < n; i++) print rest[i] }' | tr '\n' '\0' |
    xargs -0 -P "$jobs" --process-slot-var=SLOT -I{} bash -c \
      'IFS=$'"'"'\t'"'"' read -r t b n <<<"$1"; one_case "$b" "$n" "$t" "$SLOT"' _ {} >>"$SLOG"
  bad=$(grep -cvE 'exit 0' "$SLOG")
  say "sanitize: $(grep -c 'exit 0' "$SLOG") clean, $bad not clean or not run, $(($(date +%s) - t0)) s"
  grep -vE 'exit 0' "$SLOG" | head -n 20 | tee -a "$LOG"
  ((bad == 0)) || status=1
fi

if has_phase oom && [[ -x $DCTOOL ]]; then
  say "== oom: dct2 of a 60000x60000 f64 raw file (28.8 GB, sparse) on the device"
  truncate -s $((60000 * 60000 * 8)) /tmp/oom.f64
  # On a card larger than 80 GB, tests/tools/gpu_hold leaves 60 GB of it free.
  if [[ -x $BUILD/tests/gpu_hold ]] && (($(nvidia-smi --id=0 --query-gpu=memory.total --format=csv,noheader,nounits) > 90000)); then
    rm -f /tmp/hold.fifo && mkfifo /tmp/hold.fifo
    "$BUILD/tests/gpu_hold" 61440 </tmp/hold.fifo >/tmp/hold.log 2>&1 &
    exec 9>/tmp/hold.fifo
    for _ in $(seq 60); do [[ -s /tmp/hold.log ]] && break; sleep 1; done
    say "gpu_hold: $(cat /tmp/hold.log)"
  fi
  { timeout 120 "$DCTOOL" -p f64 -b cuda-fft2d dct2 /tmp/oom.f64 --shape 60000x60000 -o /tmp/oom-out.npy; echo "exit $?"; } 2>&1 |
    tail -n 3 | tee -a "$LOG"
  exec 9>&-
  wait
  ls /tmp/oom-out.npy* /tmp/.oom-out* 2>/dev/null | tee -a "$LOG"
  rm -f /tmp/oom.f64
fi

if has_phase faults && [[ -x $DCTOOL && -x $BUILD/tests/gpu_hold ]]; then
  say "== faults: batch compress beside gpu_hold (1500 MiB left free): 8 1080p photos and one 16000x16000 RGB .bmp"
  rm -rf /tmp/fa /tmp/fao && /usr/bin/env python3 scripts/bench/make_photos.py /tmp/fa 8 >>"$EXTRA" 2>&1
  /usr/bin/env python3 -c "
import numpy as np; from PIL import Image
y, x = np.mgrid[0:16000, 0:16000]
a = np.stack([(x % 251), (y % 241), ((x + y) % 239)], axis=-1).astype(np.uint8)
Image.fromarray(a).save('/tmp/fa/huge.bmp')" >>"$EXTRA" 2>&1
  for f in /tmp/fa/*.jpg; do /usr/bin/env python3 -c "from PIL import Image; import sys; Image.open(sys.argv[1]).save(sys.argv[1][:-4] + '.bmp')" "$f"; done
  rm -f /tmp/fa/*.jpg /tmp/hold.fifo && mkfifo /tmp/hold.fifo
  "$BUILD/tests/gpu_hold" 1500 </tmp/hold.fifo >/tmp/hold.log 2>&1 &
  exec 9>/tmp/hold.fifo
  for _ in $(seq 60); do [[ -s /tmp/hold.log ]] && break; sleep 1; done
  say "gpu_hold: $(cat /tmp/hold.log)"
  { timeout 300 "$DCTOOL" -b auto compress /tmp/fa/*.bmp -o /tmp/fao --format same --quality 50 --jobs 4 \
      --report /tmp/fa-report.json; echo "exit $?"; } 2>&1 | tail -n 5 | tee -a "$LOG"
  exec 9>&-
  wait
  say "outputs: $(ls /tmp/fao | wc -l) files, $(ls -a /tmp/fao | grep -c '\.tmp\.') temporaries"
  grep -o '"backend": "[^"]*"' /tmp/fa-report.json | sort | uniq -c | tee -a "$LOG"
fi

if has_phase faults && [[ -x $DCTOOL && -f $BUILD/tests/libgpu_fault.so ]]; then
  say "== faults: a device fault (a trapping kernel, tests/tools/gpu_fault.cu) at the 3rd cuFFT execution of a batch"
  say "   of 8 1000x1000 f32 .npy through dct2 -b auto --jobs 2; then the outputs against -b cpu-fftw"
  rm -rf /tmp/fd /tmp/fdo /tmp/fdc && mkdir -p /tmp/fd
  /usr/bin/env python3 -c "
import numpy as np
for i in range(8): np.save('/tmp/fd/m%d.npy' % i, np.random.default_rng(i).random((1000, 1000), dtype=np.float32))"
  { LD_PRELOAD=$BUILD/tests/libgpu_fault.so GPU_FAULT_AT=3 timeout 300 "$DCTOOL" -b auto dct2 /tmp/fd/*.npy -o /tmp/fdo \
      --jobs 2 --report /tmp/fd-report.json; echo "exit $?"; } 2>&1 | tail -n 8 | tee -a "$LOG"
  say "outputs: $(ls /tmp/fdo | wc -l) files, $(ls -a /tmp/fdo | grep -c '\.tmp\.') temporaries"
  grep -o '"backend": "[^"]*"\|"error": "[^"]*"' /tmp/fd-report.json | sort | uniq -c | tee -a "$LOG"
  "$DCTOOL" -q -b cpu-fftw dct2 /tmp/fd/*.npy -o /tmp/fdc >>"$EXTRA" 2>&1
  /usr/bin/env python3 -c "
import glob, os, numpy as np
worst = 0.0
for f in sorted(glob.glob('/tmp/fdo/*.npy')):
    a = np.load(f).astype(np.float64); c = np.load('/tmp/fdc/' + os.path.basename(f)).astype(np.float64)
    worst = max(worst, np.linalg.norm(a - c) / np.linalg.norm(c))
print('written outputs against cpu-fftw: worst relative l2 %.2e' % worst)" 2>&1 | tee -a "$LOG"
fi

# Throughput (items/s) of one command over COUNT items: secs_rate COUNT CMD...
rate_of() {
  local n=$1 s e
  shift
  s=$(date +%s.%N)
  "$@" >>"$EXTRA" 2>&1 || echo "exit $? from: $*" >>"$LOG"
  e=$(date +%s.%N)
  awk -v n="$n" -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", n / (e - s) }'
}

if has_phase scale && [[ -x $DCTOOL ]]; then
  ngpu=$(nvidia-smi -L | grep -c '^GPU')
  n=${GPU_CHECK_SCALE_COUNT:-256}
  say "== scale: $ngpu GPUs, $(nproc) cores; $n 8192x8192 f32 .npy on /dev/shm"
  rm -rf /dev/shm/sc && mkdir -p /dev/shm/sc/in
  /usr/bin/env python3 -c "import numpy as np; np.save('/dev/shm/sc/in/m000.npy', np.random.default_rng(3).random((8192, 8192), dtype=np.float32))"
  # 64 files, the rest symbolic links to them (a long batch without 256 MB more of RAM disk per input)
  for i in $(seq 1 $((n - 1))); do
    if ((i < 64)); then cp /dev/shm/sc/in/m000.npy "$(printf '/dev/shm/sc/in/m%03d.npy' "$i")"
    else ln -s "$(printf '/dev/shm/sc/in/m%03d.npy' $((i % 64)))" "$(printf '/dev/shm/sc/in/m%03d.npy' "$i")"; fi
  done
  "$DCTOOL" -q dct2 /dev/shm/sc/in/m000.npy -o /dev/shm/sc/warm.npy  # page cache, module load
  # --jobs 8: eight workers, each with its plan made once (no pinned staging: the batch's tensors are page-locked and
  # reused); --jobs $(nproc): the default.
  for run in "dct2 8" "dct2 8" "dct2 $(nproc)" "idct2 8"; do
    read -r op jobs <<<"$run"
    for devs in 0 all; do
      rm -rf /dev/shm/sc/out
      r=$(rate_of "$n" "$DCTOOL" -q --devices "$devs" "$op" /dev/shm/sc/in/*.npy -o /dev/shm/sc/out --jobs "$jobs")
      say "scale $op --jobs $jobs --devices $devs: $r matrices/s"
      [[ $devs == 0 ]] && { rm -rf /dev/shm/sc/ref && mkdir -p /dev/shm/sc/ref && cp /dev/shm/sc/out/m017.npy /dev/shm/sc/ref/; }
      [[ $devs == 0 && $op == dct2 && ! -e /dev/shm/sc/dct2-m017.npy ]] && cp /dev/shm/sc/out/m017.npy /dev/shm/sc/dct2-m017.npy
    done
    cmp -s /dev/shm/sc/ref/m017.npy /dev/shm/sc/out/m017.npy && say "  outputs of --devices 0 and all: identical" ||
      say "  outputs of --devices 0 and all: DIFFER"
  done
  for devs in 0 all; do
    echo "## --timing --devices $devs dct2 --jobs 8" >>"$EXTRA"
    rm -rf /dev/shm/sc/out && "$DCTOOL" --timing --devices "$devs" dct2 /dev/shm/sc/in/*.npy -o /dev/shm/sc/out --jobs 8 >>"$EXTRA" 2>&1
  done
  if command -v mpirun >/dev/null; then
    for np in 1 2 1 2; do
      rm -rf /dev/shm/sc/out
      r=$(rate_of "$n" timeout 300 mpirun --bind-to none -np "$np" "$DCTOOL" -q dct2 /dev/shm/sc/in/*.npy -o /dev/shm/sc/out --jobs 8)
      say "scale dct2 --jobs 8 mpirun -np $np: $r matrices/s"
    done
    # Against the one-process batch's output (a one-shot dct2 of one file may take the CPU under -b auto).
    cmp -s /dev/shm/sc/dct2-m017.npy /dev/shm/sc/out/m017.npy && say "  mpirun output: identical to one process" ||
      say "  mpirun output: DIFFERS from one process"
  else
    say "scale: no mpirun (GPU_CHECK_MPI_DEBS not given)"
  fi
  rm -rf /dev/shm/sc
  rm -rf /dev/shm/ph4k && /usr/bin/env python3 scripts/bench/make_photos.py /dev/shm/ph4k 24 3840x2160 >>"$EXTRA" 2>&1
  for fmt in jpg png; do
    for devs in 0 all; do
      rm -rf /dev/shm/ph4k-out
      r=$(rate_of 24 "$DCTOOL" -q -b auto --devices "$devs" compress /dev/shm/ph4k/*.jpg -o /dev/shm/ph4k-out \
        --format "$fmt" --quality 50)
      say "scale compress 4K -> .$fmt --devices $devs: $r images/s"
    done
  done
  rm -rf /dev/shm/ph4k /dev/shm/ph4k-out
  "$DCTOOL" -b cuda-fft2d bench --devices all --ops dct2 --sizes 2048x2048,4096x4096 --precision f32 --reps "$REPS" \
    --format csv 2>&1 | tee -a "$LOG"
fi

if has_phase volume && [[ -x $DCTOOL ]]; then
  # One array larger than one GPU with its work area (issue: distributed DCT): a closed-form 3-D volume
  # (scripts/bench/big_volume.py), its DCT-II f32 on one process and GPU (what happens), then one process per GPU
  # under mpirun, checked on sampled lines against the closed form in f64.
  dims=${GPU_CHECK_VOLUME:-2048x2048x3072}
  read -r d0 d1 d2 <<<"${dims//x/ }"
  gib=$(awk -v n="$((d0 * d1 * d2))" 'BEGIN { printf "%.1f", n * 4 / 2^30 }')
  vdir=/dev/shm/vol
  (($(df -B1 --output=avail /dev/shm | tail -n 1) > d0 * d1 * d2 * 9)) || vdir=/tmp/vol
  rm -rf "$vdir" && mkdir -p "$vdir"
  say "== volume: dct --type 2 of a $dims f32 .npy ($gib GiB) in $vdir; GPU memory: $(nvidia-smi --query-gpu=memory.total --format=csv,noheader | paste -sd' ')"
  s=$(date +%s)
  /usr/bin/env python3 scripts/bench/big_volume.py make "$vdir/v.npy" "$d0" "$d1" "$d2" 2>&1 | tail -n 3 | tee -a "$LOG"
  say "volume: written in $(($(date +%s) - s)) s"
  s=$(date +%s.%N)
  timeout "${GPU_CHECK_VOLUME_ONE_TIMEOUT:-150}" "$DCTOOL" --timing dct "$vdir/v.npy" -o "$vdir/one.npy" --type 2 \
    >"$OUT/volume-one.log" 2>&1
  rc=$?
  say "volume: one process, one GPU (-b auto): exit $rc after $(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s: $(grep -m1 'error' "$OUT/volume-one.log")"
  rm -f "$vdir/one.npy"
  np=$(nvidia-smi -L | grep -c '^GPU')
  if command -v mpirun >/dev/null && ((np > 1)); then
    s=$(date +%s.%N)
    timeout "${GPU_CHECK_VOLUME_TIMEOUT:-400}" mpirun --bind-to none -np "$np" "$DCTOOL" --timing -v dct "$vdir/v.npy" -o "$vdir/out.npy" --type 2 \
      >"$OUT/volume-mpi.log" 2>&1
    rc=$?
    say "volume: mpirun -np $np: exit $rc after $(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
    tail -n 14 "$OUT/volume-mpi.log" | tee -a "$LOG"
    ((rc == 0)) && /usr/bin/env python3 scripts/bench/big_volume.py check "$vdir/v.npy" "$vdir/out.npy" 32 2>&1 |
      tee -a "$LOG"
    [[ ${PIPESTATUS[0]} -eq 0 && $rc -eq 0 ]] || status=1
  else
    say "volume: needs mpirun (GPU_CHECK_MPI_DEBS) and two or more GPUs"
  fi
  rm -rf "$vdir"
fi

say "== gpu-check done: status $status"
exit $status
