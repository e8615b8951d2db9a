#!/usr/bin/env bash
# The CPU test suite under AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer.
#
#   scripts/sanitize.sh [CTEST ARGS...]
#
# Configures SANITIZE_BUILD_DIR (default build-sanitize/; CUDA off, -O1 -g, -fno-omit-frame-pointer,
# -fno-sanitize-recover=undefined) with clang when it is installed (the libFuzzer harnesses of scripts/fuzz.sh are
# built in the same tree) or else with the default compiler, builds it and runs `ctest -LE gpu` on it: every test
# except the GPU ones, the host emulators of the CUDA kernels (DCTOOL_BUILD_EMULATORS=OFF: long multi-threaded loops
# over the kernels' arithmetic, not the file or command-line code the sanitizers are here for, and the slowest
# targets to build and run under ASan) and
# the hostile-file suite (hostile:files: its 2 GB address-space limit cannot hold ASan's shadow memory; the fuzzers
# cover the same readers in-process), and the five large-size numeric checks (`10^6 rows`, `oracle at 1000x1000`:
# the same code paths as their small-size twins, 7.5 of the suite's 17 CPU-minutes under ASan). A sanitizer report
# fails the test that triggered it; dctool's one-line-error checks see it too. The tests under mpirun (label mpi) run
# last without LeakSanitizer: Open MPI keeps its start-up allocations (and those of plugins it unloads) to the end by
# design, which LeakSanitizer reports from every rank; memory errors and undefined behaviour are still caught.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${SANITIZE_BUILD_DIR:-build-sanitize}
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cc=()
  command -v clang++ >/dev/null && cc=(-DCMAKE_CXX_COMPILER=clang++ -DDCTOOL_BUILD_FUZZERS=ON)
  cmake -S . -B "$build_dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DDCTOOL_ENABLE_CUDA=OFF -DDCTOOL_SANITIZE=ON -DDCTOOL_BUILD_EMULATORS=OFF "${cc[@]}"
fi
cmake --build "$build_dir" -j "$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build_dir" -LE 'gpu|emulate|mpi' -E '^hostile:files$|10\^6 rows|oracle at 1000x1000' -j "$(nproc)" \
  --output-on-failure --timeout 900 "$@"
ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0} ctest --test-dir "$build_dir" -L mpi -j "$(nproc)" \
  --output-on-failure --timeout 900 "$@"
