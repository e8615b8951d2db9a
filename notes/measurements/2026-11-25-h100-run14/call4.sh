#!/usr/bin/env bash
# Run 14, call 4 (call 3 ran out of time in the unchanged dct4 gpu tests, after the RGB benchmark): r14's
# compress/block8 gpu tests; gray defaults of r14 and base at 2048^2, 4096^2, 8192^2 (quality 50, device ms per warm
# image, alternating twice) and v3 once, with the copy of the same bytes; PSNR(v5 / v3 = CPU-exact, default); the
# main job by hand.
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version --format=csv > "$O/info.log" 2>&1
for v in base r14; do mkdir -p /tmp/bin/$v && gunzip -c $C/$v/dctool.gz > /tmp/bin/$v/dctool && chmod +x /tmp/bin/$v/dctool; done
gunzip -c $C/r14/tests/test_kernels.gz > /tmp/bin/r14/test_kernels && chmod +x /tmp/bin/r14/test_kernels
timeout 200 /tmp/bin/r14/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
run() {  # label build [env...]
  local label=$1 b=$2; shift 2
  env "$@" timeout 60 /tmp/bin/$b/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "$label: $(times $d/r.json)" | tee -a $O/ab.log
}
for n in 2048 4096 8192; do
  d=/tmp/c4_$n; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=1 python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
  for rep in 1 2; do for v in r14 base; do run "$n gray=1 $v" $v; done; done
  run "$n gray=1 v3" r14 DCTOOL_JPEG_FUSED=v3
  timeout 60 /tmp/bin/r14/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( n / 4)) \
    --backends cuda-8x8 --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
done
mkdir -p /tmp/pq; for f in camera astronaut; do for q in 10 50 90; do
  DCTOOL_JPEG_FUSED=v5 /tmp/bin/r14/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_v5.png --quality $q > /dev/null 2>&1
  /tmp/bin/r14/dctool compress data/$f.png -o /tmp/pq/${f}_${q}.png --quality $q > /dev/null 2>&1
  echo "$f q$q: PSNR(v5 = CPU-exact, r14 default) $(/tmp/bin/r14/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}.png 2>&1)"
done; done | tee $O/psnr-v6.log
{ /tmp/bin/r14/dctool compress data/astronaut.png -o /tmp/astro50.png --quality 50 --report /tmp/astro50.json --timing; cat /tmp/astro50.json;
  /tmp/bin/r14/dctool compress data/camera.png -o /tmp/cam50.png --quality 50 --timing; } > $O/main-job.log 2>&1
tail -3 $O/main-job.log
echo done
