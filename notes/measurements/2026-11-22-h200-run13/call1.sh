#!/usr/bin/env bash
# Run 13, call 1: r1 (v6 with its output side in f16x2: rounding, clamps, inverse colour conversion, bytes; the L2
# prefetch distance a switch, DCTOOL_JPEG_TC_PREFETCH) against r0 (run12's final code) in the same run: the
# compress/block8 gpu tests of r1; both defaults and the CPU-exact kernel (gray v3, RGB v5) at 2048^2, 4096^2, 8192^2
# (quality 50, device ms per warm image, alternating twice) with the copy of the same bytes; prefetch distances and
# RGB with 2 pairs at 4096^2 / 8192^2; Nsight Compute of r1 at 4096^2; the main job by hand.
B=${1:?build}; A=${2:?other build}; O=${3:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$O/info.log" 2>&1
timeout 200 $B/tests/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
run() {  # label build dir [env...]
  local label=$1 b=$2 d=$3; shift 3
  env "$@" timeout 60 $b/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "$label: $(times $d/r.json)" | tee -a $O/ab.log
}
for gray in 1 0; do
  for n in 2048 4096 8192; do
    d=/tmp/c1_${gray}_$n; mkdir -p $d $d.o
    DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
    cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
    exact=v5; [[ $gray == 1 ]] && exact=v3
    for rep in 1 2; do
      run "$n gray=$gray r1" $B $d
      run "$n gray=$gray r0" $A $d
      run "$n gray=$gray $exact" $B $d DCTOOL_JPEG_FUSED=$exact
    done
    timeout 60 $B/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( (gray == 1 ? 1 : 3) * n / 4)) --backends cuda-8x8 \
      --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
  done
done
echo "--- prefetch distance (strips ahead; gray default 2, RGB 0) and RGB pairs" | tee -a $O/ab.log
for n in 4096 8192; do
  for rep in 1 2; do
    for pf in 0 2 3 4 6 8; do run "$n gray=1 r1 prefetch=$pf" $B /tmp/c1_1_$n DCTOOL_JPEG_TC_PREFETCH=$pf; done
    for pf in 0 2 4; do run "$n gray=0 r1 prefetch=$pf" $B /tmp/c1_0_$n DCTOOL_JPEG_TC_PREFETCH=$pf; done
    run "$n gray=0 r1 pairs=2" $B /tmp/c1_0_$n DCTOOL_JPEG_TC_PAIRS=2
  done
done
NCU=$(command -v ncu || find / -maxdepth 6 -name ncu -type f 2>/dev/null | head -1)
for gray in 0 1; do
  timeout 120 $NCU --kernel-name regex:fused_jpeg_kernel_tc --launch-count 1 --section SpeedOfLight --section LaunchStats \
    --section Occupancy --section WarpStateStats --section SchedulerStats --section InstructionStats \
    $B/dctool compress /tmp/c1_${gray}_4096/img_1.png -o /tmp/ncu_$gray.png --quality 50 >> $O/ncu.txt 2>&1
done
grep -E "Issued Warp|Warp Cycles Per Issued|Registers Per|Executed Ipc A|Duration|Stall|Achieved Occ" $O/ncu.txt | head -40
{ $B/dctool compress data/astronaut.png -o /tmp/astro50.png --quality 50 --report /tmp/astro50.json --timing; cat /tmp/astro50.json;
  $B/dctool compress data/camera.png -o /tmp/cam50.png --quality 50 --timing; } > $O/main-job.log 2>&1
tail -3 $O/main-job.log
echo done
