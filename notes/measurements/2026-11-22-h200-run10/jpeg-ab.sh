#!/usr/bin/env bash
# Fused jpeg kernels A/B in one device run (tenth session): VARIANTS (default "v5 v6"; v3 one thread per block, v5 eight threads per
# block, v6 tensor cores), alternating, on RGB PNGs from scripts/compress-bench-images.py at 2048^2, 4096^2 and 8192^2, quality 50
# (4096^2 also 90 with Q90=1); the device time of each image from `compress --report` (timing_ms.device: CUDA events around
# the one kernel), and the copy time of the same bytes (cuda-8x8 dct2 at H x 3W/4 f32 = 3 H W bytes each way:
# median_ms / x_copy). Optional: gpu tests first (TESTS=1), Nsight Compute of both kernels at 4096^2 (NCU=1),
# gray images instead of RGB (GRAY=1: 8-bit gray PNGs; the copy reference then H x W/4 f32 = H W bytes).
# Usage (device, repo root): [VARIANTS="v5 v6"] [TESTS=1] [NCU=1] [NCU_VARIANTS=v6] bash notes/measurements/2026-11-22-h200-run10/jpeg-ab.sh BUILD OUT
B=${1:?build dir}; OUT=${2:?out dir}; mkdir -p "$OUT"
libdirs=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
for f in $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' 2>/dev/null | head -5); do libdirs=$libdirs:$(dirname "$f"); done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/info.log" 2>&1
if [[ ${TESTS:-0} == 1 ]]; then
  timeout 240 "$B/tests/test_kernels" "[compress],[block8]" -r compact > "$OUT/tests.log" 2>&1
  echo "tests exit $?" >> "$OUT/tests.log"; tail -3 "$OUT/tests.log"
fi
times() {  # report.json -> device ms per image
  python3 -c 'import json,sys; print(" ".join("%.4f" % r["timing_ms"]["device"] for r in json.load(open(sys.argv[1]))), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(json.load(open(sys.argv[1]))[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"
}
GRAY=${GRAY:-0}
for n in ${SIZES:-2048 4096 8192}; do
  d=/tmp/fj$n; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=${GRAY:-0} python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  k=3; [[ $n == 8192 ]] && k=2
  for i in $(seq 2 $k); do cp $d/img_1.png $d/img_$i.png; done
  qs="50"; [[ $n == 4096 && ${Q90:-0} == 1 ]] && qs="50 90"
  for q in $qs; do
    for v in ${VARIANTS:-v5 v6} ${VARIANTS:-v5 v6}; do
      DCTOOL_JPEG_FUSED=$v "$B/dctool" compress $d/img_*.png -o $d.o --quality $q --jobs 1 --report $d/r.json > /dev/null 2>&1
      echo "jpeg ${n}x${n} $([[ ${GRAY:-0} == 1 ]] && echo gray || echo RGB) q$q $v device_ms: $(times $d/r.json)" | tee -a "$OUT/jpeg-ab.log"
    done
  done
  timeout 60 "$B/dctool" bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( (GRAY == 1 ? 1 : 3) * n / 4)) --backends cuda-8x8 \
    --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tee -a "$OUT/jpeg-ab.log"
done
if [[ ${NCU:-0} == 1 ]] && command -v ncu > /dev/null; then
  for v in ${NCU_VARIANTS:-v6}; do
    echo "## DCTOOL_JPEG_FUSED=$v" >> "$OUT/ncu-jpeg.txt"
    DCTOOL_JPEG_FUSED=$v timeout 100 ncu --clock-control none --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats \
      --section ComputeWorkloadAnalysis -k regex:fused_jpeg --launch-count 1 "$B/dctool" compress /tmp/fj4096/img_1.png \
      -o /tmp/fj4096.o/ncu.png --quality 50 >> "$OUT/ncu-jpeg.txt" 2>&1
  done
fi
