#!/usr/bin/env bash
# Run 16, call 1: r16 (v6: step 1 takes the samples as 1024 + sample with its accumulator at -9216 for u = 0 instead of
# subtracting 1152 per two samples; Y's quotient without the +128; the inverse colour conversion as 3 f16-accumulating
# MMAs per pair with Y as the accumulator instead of 8 HFMA2) against base (run15's final code, 1ad38d0) in the same
# run: the device checks of the forward colour conversion (all 2^24 colours) and of step 1's two forms
# (scripts/tc-step1-probe.cu); r16's compress/block8 gpu tests; RGB r16 and base at 2048^2, 4096^2, 8192^2 (quality
# 50, device ms per warm image, alternating three times), the copy of the same bytes; gray r16 and base twice with
# their copy; r16's and base's images of the samples compared byte for byte (gray: step 1 only), PSNR(v5 = CPU-exact,
# r16 / base); SASS of both RGB kernels; the main job by hand.
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
export PATH=$PATH:/usr/local/cuda/bin
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$O/info.log" 2>&1; cat $O/info.log
for v in base r16; do mkdir -p /tmp/bin/$v && gunzip -c $C/$v/dctool.gz > /tmp/bin/$v/dctool && chmod +x /tmp/bin/$v/dctool; done
gunzip -c $C/r16/tests/test_kernels.gz > /tmp/bin/r16/test_kernels && chmod +x /tmp/bin/r16/test_kernels
{ $C/probe/tc-ycc-probe; $C/probe/tc-step1-probe; } > $O/probe.log 2>&1; cat $O/probe.log
timeout 200 /tmp/bin/r16/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
run() {  # label build [env...]
  local label=$1 b=$2; shift 2
  env "$@" timeout 60 /tmp/bin/$b/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "$label: $(times $d/r.json)" | tee -a $O/ab.log
}
copy() {  # n planes
  timeout 60 /tmp/bin/r16/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${1}x$(( $2 * $1 / 4)) \
    --backends cuda-8x8 --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
}
for n in 2048 4096 8192; do
  d=/tmp/c1_0_$n; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=0 python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
  for rep in 1 2 3; do run "$n rgb r16" r16; run "$n rgb base" base; done
  copy $n 3
done
for n in 2048 4096 8192; do
  d=/tmp/c1_1_$n; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=1 python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
  for rep in 1 2; do run "$n gray r16" r16; run "$n gray base" base; done
  copy $n 1
done
mkdir -p /tmp/pq; for f in camera astronaut; do for q in 10 50 90; do
  DCTOOL_JPEG_FUSED=v5 /tmp/bin/r16/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_v5.png --quality $q > /dev/null 2>&1
  for v in base r16; do /tmp/bin/$v/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_$v.png --quality $q > /dev/null 2>&1; done
  echo "$f q$q: PSNR(v5, r16) $(/tmp/bin/r16/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}_r16.png 2>&1) | PSNR(v5, base) $(/tmp/bin/r16/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}_base.png 2>&1) | PSNR(orig, r16) $(/tmp/bin/r16/dctool psnr data/$f.png /tmp/pq/${f}_${q}_r16.png 2>&1) base $(/tmp/bin/r16/dctool psnr data/$f.png /tmp/pq/${f}_${q}_base.png 2>&1) | r16 vs base: $(cmp -s /tmp/pq/${f}_${q}_base.png /tmp/pq/${f}_${q}_r16.png && echo identical || echo DIFFERENT)"
done; done | tee $O/psnr.log
for v in base r16; do cuobjdump -sass /tmp/bin/$v/dctool 2>/dev/null | python3 -c '
import sys
keep=False
for l in sys.stdin:
    if "Function :" in l: keep = "fused_jpeg_kernel_tcILi3" in l
    if keep: sys.stdout.write(l)' > $O/sass-$v.txt; done
wc -l $O/sass-*.txt
{ /tmp/bin/r16/dctool compress data/astronaut.png -o /tmp/astro50.png --quality 50 --report /tmp/astro50.json --timing; cat /tmp/astro50.json;
  /tmp/bin/r16/dctool compress data/camera.png -o /tmp/cam50.png --quality 50 --timing; } > $O/main-job.log 2>&1
tail -3 $O/main-job.log
echo done
