#!/usr/bin/env bash
# Run 17, call 2: the committed code (d53dc1d): its [compress],[block8] gpu tests; the fused jpeg round trip on RGB at
# 2048^2, 4096^2, 8192^2 and gray at 8192^2 (quality 50, device ms per warm image from --report, twice), the copy of
# the same bytes (cuda-8x8 dct2 in the same run); the main job.
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$O/info.log" 2>&1; cat "$O/info.log"
mkdir -p /tmp/bin/final
gunzip -c "$C/final/dctool.gz" > /tmp/bin/final/dctool
gunzip -c "$C/final/tests/test_kernels.gz" > /tmp/bin/final/test_kernels
chmod +x /tmp/bin/final/dctool /tmp/bin/final/test_kernels
timeout 240 /tmp/bin/final/test_kernels "[compress],[block8]" -r compact > "$O/tests.log" 2>&1
echo "tests exit $?" >> "$O/tests.log"; tail -2 "$O/tests.log"
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
run() {  # label
  timeout 60 /tmp/bin/final/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "$1: $(times $d/r.json)" | tee -a "$O/ab.log"
}
copy() {  # n planes
  timeout 60 /tmp/bin/final/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${1}x$(( $2 * $1 / 4)) \
    --backends cuda-8x8 --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a "$O/ab.log"
}
for n in 2048 4096 8192; do
  d=/tmp/c2_0_$n; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=0 python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
  run "$n rgb"; copy $n 3; run "$n rgb"; copy $n 3
done
d=/tmp/c2_1_8192; mkdir -p $d $d.o
DCTOOL_BENCH_GRAY=1 python3 scripts/compress-bench-images.py $d/img_1.png 8192 8192 > /dev/null; cp $d/img_1.png $d/img_2.png
run "8192 gray"; copy 8192 1; run "8192 gray"; copy 8192 1
{ /tmp/bin/final/dctool compress data/astronaut.png -o /tmp/astro50.png --quality 50 --timing;
  /tmp/bin/final/dctool compress data/camera.png -o /tmp/cam50.png --quality 50 --timing; } > "$O/main-job.log" 2>&1
grep PSNR "$O/main-job.log"
echo done
