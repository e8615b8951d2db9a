#!/usr/bin/env bash
# Run 16, call 2: r16b (r16 plus: step 1's accumulator loaded as a register pair; R and B of the inverse colour
# conversion as m16n8k8 MMAs (no zero halves); the f16 dequantizer, one PRMT and one HFMA2 per two coefficients where
# every Q >= 2, with the f32 one kept for quality >= 93) against base (run15's final code, 1ad38d0) and r16 (call 1) in
# the same run: RGB at 2048^2, 4096^2, 8192^2 (quality 50, device ms per warm image, alternating twice) and gray
# twice, each with the copy of the same bytes; r16b's images against r16's (expected identical: the same arithmetic)
# and PSNR(v5 = CPU-exact, r16b); SASS of r16b's RGB kernels; then scripts/gpu-check.sh on r16b with the phases of
# issue 4 that the A/B does not cover: every gpu test, the cuda-8x8 / cuda-8x8-def benchmark, the 200-image batch.
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
export PATH=$PATH:/usr/local/cuda/bin
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$O/info.log" 2>&1; cat $O/info.log
for v in base r16 r16b; do mkdir -p /tmp/bin/$v && gunzip -c $C/$v/dctool.gz > /tmp/bin/$v/dctool && chmod +x /tmp/bin/$v/dctool; done
mkdir -p /tmp/bin/r16b/tests && gunzip -c $C/r16b/tests/test_kernels.gz > /tmp/bin/r16b/tests/test_kernels && chmod +x /tmp/bin/r16b/tests/test_kernels
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
for n in 2048 4096 8192; do
  d=/tmp/c2_0_$n; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=0 python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
  for rep in 1 2; do run "$n rgb r16b" r16b; run "$n rgb base" base; done
  run "$n rgb r16" r16; run "$n rgb r16b deq=f32" r16b DCTOOL_JPEG_TC_DEQ=f32
  copy $n 3
done
for n in 2048 4096 8192; do
  d=/tmp/c2_1_$n; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=1 python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
  for rep in 1 2; do run "$n gray r16b" r16b; run "$n gray base" base; done
  copy $n 1
done
mkdir -p /tmp/pq; for f in camera astronaut; do for q in 10 50 90 97; do
  DCTOOL_JPEG_FUSED=v5 /tmp/bin/r16b/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_v5.png --quality $q > /dev/null 2>&1
  for v in base r16 r16b; do /tmp/bin/$v/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_$v.png --quality $q > /dev/null 2>&1; done
  echo "$f q$q: PSNR(v5, r16b) $(/tmp/bin/r16b/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}_r16b.png 2>&1) | PSNR(v5, base) $(/tmp/bin/r16b/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}_base.png 2>&1) | PSNR(orig, r16b) $(/tmp/bin/r16b/dctool psnr data/$f.png /tmp/pq/${f}_${q}_r16b.png 2>&1) | r16b vs r16: $(cmp -s /tmp/pq/${f}_${q}_r16.png /tmp/pq/${f}_${q}_r16b.png && echo identical || echo DIFFERENT) | vs base: $(cmp -s /tmp/pq/${f}_${q}_base.png /tmp/pq/${f}_${q}_r16b.png && echo identical || echo DIFFERENT)"
done; done | tee $O/psnr.log
cuobjdump -sass /tmp/bin/r16b/dctool 2>/dev/null | python3 -c '
import sys
keep=False
for l in sys.stdin:
    if "Function :" in l: keep = "fused_jpeg_kernel_tcILi3ELi4" in l
    if keep: sys.stdout.write(l)' > $O/sass-r16b.txt
wc -l $O/sass-r16b.txt
OUT=$O/check GPU_CHECK_PHASES=tests,block8,batch timeout 340 bash scripts/gpu-check.sh /tmp/bin/r16b 2>&1 | tail -25
echo done
