#!/usr/bin/env bash
# Run 13, call 2: r2 (the code to commit: v6 RGB with its output side in f16x2; gray as in run12, SASS identical but for
# names) against r0 (run12's final code) in the same run: the compress/block8 gpu tests of r2; both defaults and the
# CPU-exact kernel (gray v3, RGB v5) at 2048^2, 4096^2, 8192^2 (quality 50, device ms per warm image, alternating
# twice) with the copy of the same bytes; PSNR(v5 = CPU-exact, default) on the sample images for r2 and r0; the main
# job by hand.
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
for gray in 0 1; do
  for n in 2048 4096 8192; do
    d=/tmp/c2_${gray}_$n; mkdir -p $d $d.o
    DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
    cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
    exact=v5; [[ $gray == 1 ]] && exact=v3
    for rep in 1 2; do
      run "$n gray=$gray r2" $B $d
      run "$n gray=$gray r0" $A $d
      run "$n gray=$gray $exact" $B $d DCTOOL_JPEG_FUSED=$exact
    done
    timeout 60 $B/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( (gray == 1 ? 1 : 3) * n / 4)) --backends cuda-8x8 \
      --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
  done
done
mkdir -p /tmp/pq; for f in camera astronaut; do for q in 10 50 90; do
  DCTOOL_JPEG_FUSED=v5 $B/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_v5.png --quality $q > /dev/null 2>&1
  for b in $B $A; do $b/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_$(basename $b).png --quality $q > /dev/null 2>&1
    echo "$f q$q PSNR(v5=CPU-exact, $(basename $b) default): $($B/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}_$(basename $b).png 2>&1)"; done
done; done | tee $O/psnr-v6.log
{ $B/dctool compress data/astronaut.png -o /tmp/astro50.png --quality 50 --report /tmp/astro50.json --timing; cat /tmp/astro50.json;
  $B/dctool compress data/camera.png -o /tmp/cam50.png --quality 50 --timing; } > $O/main-job.log 2>&1
tail -3 $O/main-job.log
echo done
