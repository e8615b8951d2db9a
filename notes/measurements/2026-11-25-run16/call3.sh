#!/usr/bin/env bash
# Run 16, call 3: the compress/block8 gpu tests of r16b (call 2's gpu-check ran out of the call's time inside the
# tests, before these), then RGB at 4096^2 and 8192^2: r16b, r16p (r16b plus the L2 prefetch of the strip after next
# for RGB too, as gray has it) and base (1ad38d0) alternating twice, the copy of the same bytes; the main job.
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
export PATH=$PATH:/usr/local/cuda/bin
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$O/info.log" 2>&1; cat $O/info.log
for v in base r16b r16p; do mkdir -p /tmp/bin/$v && gunzip -c $C/$v/dctool.gz > /tmp/bin/$v/dctool && chmod +x /tmp/bin/$v/dctool; done
gunzip -c $C/r16b/tests/test_kernels.gz > /tmp/bin/r16b/test_kernels && chmod +x /tmp/bin/r16b/test_kernels
timeout 200 /tmp/bin/r16b/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
run() {  # label build [env...]
  local label=$1 b=$2; shift 2
  env "$@" timeout 60 /tmp/bin/$b/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "$label: $(times $d/r.json)" | tee -a $O/ab.log
}
copy() {  # n planes
  timeout 60 /tmp/bin/r16b/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${1}x$(( $2 * $1 / 4)) \
    --backends cuda-8x8 --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
}
for n in 4096 8192; do
  d=/tmp/c3_0_$n; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=0 python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
  for rep in 1 2; do run "$n rgb r16b" r16b; run "$n rgb r16p" r16p; run "$n rgb base" base; done
  copy $n 3
done
{ /tmp/bin/r16b/dctool compress data/astronaut.png -o /tmp/astro50.png --quality 50 --report /tmp/astro50.json --timing; cat /tmp/astro50.json;
  /tmp/bin/r16b/dctool compress data/camera.png -o /tmp/cam50.png --quality 50 --timing; } > $O/main-job.log 2>&1
tail -3 $O/main-job.log
echo done
