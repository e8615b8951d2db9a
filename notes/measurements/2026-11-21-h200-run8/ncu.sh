#!/usr/bin/env bash
# Nsight Compute of every kernel of one bench configuration (eighth session): durations, DRAM/L2 throughput,
# occupancy and launch statistics. Usage (device, repo root):
#   bash notes/measurements/2026-11-21-h200-run8/ncu.sh BUILD_DIR BACKEND PRECISION SIZE [OPS] > $OUT/ncu-....txt
B=${1:?build dir}; BACKEND=${2:?backend}; PREC=${3:?precision}; SIZE=${4:?size}; OPS=${5:-dct2,idct2}
libdirs=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
for f in $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' 2>/dev/null | head -5); do libdirs=$libdirs:$(dirname "$f"); done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
timeout 150 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
  "$B/dctool" bench --ops "$OPS" --sizes "$SIZE" --backends "$BACKEND" --precision "$PREC" --reps 1 --warmup 0 2>&1 |
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput|Registers Per Thread|Theoretical Occupancy|Achieved Occupancy|Grid Size|Block Size|^dct2|^idct2|^op"
