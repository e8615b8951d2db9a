#!/usr/bin/env bash
# CPU side of the 8x8 family: cpu-8x8-flmad against FFTW's advanced-interface batched 8x8
# (cpu-fftw --block 8) in the same run, and a [4] Table 5.1-like sweep (naive, FFTW, AAN, FLMAD) at
# 1 thread and all threads. Usage: scripts/bench/block8_cpu.sh [BUILD_DIR] [OUT_DIR]
set -eu
B=${1:-build}; O=${2:-out/bench-block8-cpu}
mkdir -p "$O"
BACKENDS=cpu-8x8-naive,cpu-fftw,cpu-8x8-aan,cpu-8x8-flmad
for t in 1 0; do
  "$B/dctool" --threads "$t" bench --ops dct2,idct2 --block 8 --norm ortho --precision f32 \
    --sizes 512x512,1024x1024,2048x2048,4096x4096 --backends "$BACKENDS" --reps 15 --warmup 3 \
    --format csv -o "$O/cpu_threads$t.csv"
done
# Table 5.1 layout: one row per algorithm/thread count, one column per size (median ms, dct2 + idct2).
/usr/bin/python3 - "$O" <<'PY'
import csv, sys, collections
o = sys.argv[1]
sizes = ["512x512", "1024x1024", "2048x2048", "4096x4096"]
print("| algorithm | threads | " + " | ".join(sizes) + " |  (median ms, dct2 + idct2, f32)")
print("|---|---|" + "---|" * len(sizes))
for t, name in (("1", "1"), ("0", "all")):
    rows = list(csv.DictReader(open(f"{o}/cpu_threads{t}.csv")))
    acc = collections.defaultdict(float)
    for r in rows:
        acc[(r["backend"], r["shape"])] += float(r["median_ms"])
    for b in ("cpu-8x8-naive", "cpu-fftw", "cpu-8x8-aan", "cpu-8x8-flmad"):
        print(f"| {b} | {name} | " + " | ".join("%.3f" % acc[(b, s)] for s in sizes) + " |")
    for s in sizes:
        f, l = acc[("cpu-fftw", s)], acc[("cpu-8x8-flmad", s)]
        print(f"speedup flmad vs fftw, threads {name}, {s}: {f / l:.2f}x")
PY
