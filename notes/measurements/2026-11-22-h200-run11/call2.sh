#!/usr/bin/env bash
# Run 11, call 2 (r2: as r1 and the output staged per warp in shared memory, rows stored as whole sectors;
# for >= 4 CTAs per SM): gpu tests; gray v3 / RGB v5 against v6 with 1, 2, 4 pairs at 2048^2, 4096^2, 8192^2
# (quality 50, device ms per warm image from --report, alternating twice) with the copy of the same bytes;
# PSNR(v5 = CPU-exact, v6 default); a bad DCTOOL_JPEG_TC_PAIRS; Nsight Compute of gray v6:2 / v6:4 and RGB v6:1 / v6:2 at 4096^2.
B=${1:?build}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$O/info.log" 2>&1
timeout 240 $B/tests/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
for gray in 1 0; do
  for n in 2048 4096 8192; do
    d=/tmp/c1_${gray}_$n; mkdir -p $d $d.o
    DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
    cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
    base=v5; [[ $gray == 1 ]] && base=v3
    for rep in 1 2; do
      for c in $base:1 v6:1 v6:2 v6:4; do
        DCTOOL_JPEG_FUSED=${c%:*} DCTOOL_JPEG_TC_PAIRS=${c#*:} timeout 60 $B/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
        echo "$n gray=$gray $c: $(times $d/r.json)" | tee -a $O/ab.log
      done
    done
    timeout 60 $B/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( (gray == 1 ? 1 : 3) * n / 4)) --backends cuda-8x8 \
      --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
  done
done
mkdir -p /tmp/pq; for f in camera astronaut; do for q in 10 50 90; do for v in v5 v6; do DCTOOL_JPEG_FUSED=$v $B/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_$v.png --quality $q > /dev/null 2>&1; done; echo "$f q$q PSNR(v5=CPU-exact, v6): $($B/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}_v6.png 2>&1)"; done; done | tee $O/psnr-v6.log
{ DCTOOL_JPEG_FUSED=v6 DCTOOL_JPEG_TC_PAIRS=3 $B/dctool compress data/camera.png -o /tmp/pq/bad.png; echo "exit $? output exists: $([[ -e /tmp/pq/bad.png ]] && echo yes || echo no)"; } > $O/bad-env.log 2>&1
if command -v ncu > /dev/null; then
  for c in 1:v6:2 1:v6:4 0:v6:1 0:v6:2; do
    IFS=: read gray v pairs <<< "$c"
    echo "## gray=$gray DCTOOL_JPEG_FUSED=$v DCTOOL_JPEG_TC_PAIRS=$pairs" >> $O/ncu.txt
    DCTOOL_JPEG_FUSED=$v DCTOOL_JPEG_TC_PAIRS=$pairs timeout 100 ncu --clock-control none --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis \
      -k regex:fused_jpeg --launch-count 1 $B/dctool compress /tmp/c1_${gray}_4096/img_1.png -o /tmp/pq/ncu.png --quality 50 >> $O/ncu.txt 2>&1
  done
fi
echo done
