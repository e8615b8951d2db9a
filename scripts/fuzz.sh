#!/usr/bin/env bash
# The libFuzzer harnesses of tests/fuzz (one per reader: npy txt csv raw png jpeg bmp tga pgm ppm).
#
#   scripts/fuzz.sh [SECONDS]          build them (clang, ASan+UBSan, CPU only, in SANITIZE_BUILD_DIR, default
#                                      build-sanitize/, shared with scripts/sanitize.sh) and run each for SECONDS
#                                      (default 20) from its seed corpus, FUZZ_JOBS (default nproc) at a time;
#                                      fails on any crash, sanitizer report, leak, timeout (20 s) or allocation over
#                                      2 GB. Crashing inputs are kept in FUZZ_ARTIFACTS (default <build>/fuzz-artifacts/).
#   scripts/fuzz.sh --build-only DIR   build them for another machine into DIR: libjpeg, libpng, zlib, FFTW and
#                                      libstdc++ linked statically, LLVM's libomp.so.5 (Debian ships no static one)
#                                      copied beside them and found through RPATH $ORIGIN; DIR/build is the build
#                                      tree; the seed corpora and DIR/run.sh SECONDS [JOBS] (every reader in parallel).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
readers=(npy txt csv raw png jpeg bmp tga pgm ppm)
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
command -v clang++ >/dev/null || { echo "fuzz: clang++ is needed (apt-get install clang)" >&2; exit 1; }

if [ "${1:-}" = "--build-only" ]; then
  [ $# -eq 2 ] || { echo "usage: scripts/fuzz.sh --build-only DIR" >&2; exit 2; }
  out=$(mkdir -p "$2" && cd "$2" && pwd)
  lib=/usr/lib/x86_64-linux-gnu
  omp=$(clang++ -print-file-name=libomp.so.5)
  cmake -S . -B "$out/build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DDCTOOL_ENABLE_CUDA=OFF -DDCTOOL_BUILD_TESTS=OFF -DDCTOOL_BUILD_FUZZERS=ON -DDCTOOL_STATIC_LIBS=ON \
    -DJPEG_LIBRARY="$lib/libjpeg.a" -DPNG_LIBRARY="$lib/libpng16.a" -DPNG_LIBRARY_RELEASE="$lib/libpng16.a" \
    -DZLIB_LIBRARY="$lib/libz.a" -DZLIB_LIBRARY_RELEASE="$lib/libz.a" \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" -DCMAKE_BUILD_RPATH='$ORIGIN' --no-warn-unused-cli
  cmake --build "$out/build" -j "$(nproc)" --target fuzzers
  cp -L "$(readlink -f "$omp")" "$out/libomp.so.5"
  for r in "${readers[@]}"; do
    cp "$out/build/tests/fuzz/fuzz_$r" "$out/"
    mkdir -p "$out/corpus/$r"
    cp tests/fuzz/corpus/"$r"/* "$out/corpus/$r/"
  done
  cat >"$out/run.sh" <<'EOF'
#!/usr/bin/env bash
# run.sh SECONDS [JOBS]: every fuzzer for SECONDS in fork mode with JOBS workers each (default: the cores shared out),
# going on after a finding; grows corpus/<reader>/, keeps findings in findings/<reader>/ and logs in logs/.
# Prints the executions and findings per reader.
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
readers=(npy txt csv raw png jpeg bmp tga pgm ppm)
jobs=${2:-$(( ($(nproc) + ${#readers[@]} - 1) / ${#readers[@]} ))}
mkdir -p logs
for r in "${readers[@]}"; do
  mkdir -p "findings/$r"
  ./fuzz_$r -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$secs" \
    -rss_limit_mb=2048 -timeout=20 -artifact_prefix="findings/$r/" "corpus/$r" >"logs/$r.log" 2>&1 &
done
wait
for r in "${readers[@]}"; do
  execs=$(grep -E '^#[0-9]+:' "logs/$r.log" | tail -1 | sed -E 's/^#([0-9]+):.*/\1/')
  echo "$r: ${execs:-0} executions, $(ls "findings/$r" | wc -l) findings"
done
EOF
  chmod +x "$out/run.sh"
  echo "fuzz: binaries in $out (ldd of fuzz_png:)"
  ldd "$out/fuzz_png" || true
  exit 0
fi

secs=${1:-20}
build_dir=${SANITIZE_BUILD_DIR:-build-sanitize}
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S . -B "$build_dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCMAKE_CXX_COMPILER=clang++ -DDCTOOL_ENABLE_CUDA=OFF -DDCTOOL_SANITIZE=ON -DDCTOOL_BUILD_FUZZERS=ON
fi
cmake --build "$build_dir" -j "$(nproc)" --target fuzzers
artifacts=${FUZZ_ARTIFACTS:-$root/$build_dir/fuzz-artifacts}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fuzz_one() {
  local r=$1
  mkdir -p "$work/$r"
  if "$build_dir/tests/fuzz/fuzz_$r" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
       -artifact_prefix="$artifacts/$r-" "$work/$r" "tests/fuzz/corpus/$r" >"$work/$r.log" 2>&1; then
    echo "fuzz: $r: $(awk '/stat::number_of_executed_units/ {print $2}' "$work/$r.log") executions, no crash"
  else
    echo "fuzz: $r: FAILED (input kept in $artifacts)"
    grep -E "ERROR|SUMMARY|runtime error|dctool fuzz|Test unit written" "$work/$r.log" | head -20
    return 1
  fi
}
export -f fuzz_one
export build_dir secs artifacts work
# FUZZ_JOBS fuzzers at a time (default nproc).
printf '%s\n' "${readers[@]}" | xargs -P "${FUZZ_JOBS:-$(nproc)}" -I{} bash -c 'fuzz_one {}'
