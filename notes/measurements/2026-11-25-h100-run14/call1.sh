#!/usr/bin/env bash
# Run 14, call 1: four builds of dctool in one run (carried gzipped): base (run13's final code, 0afb3d0), va (v6
# with f16-accumulating MMAs for steps 1, 3 and RGB's step 4, and the interior loop's next strip copied into shared
# memory by cp.async, gray and RGB), vb (f16 accumulation only), vc (cp.async only). First the tensor core's f16
# rounding (scripts/tc-f16acc-probe.cu); then each default at 2048^2, 4096^2, 8192^2 gray and RGB (quality 50,
# device ms per warm image, alternating twice), the CPU-exact kernel (v5 / v3) once, the copy of the same bytes;
# PSNR(v5 = CPU-exact, default) and PSNR(original, default) on the sample images; the SASS of va's v6 kernels.
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
export PATH=$PATH:/usr/local/cuda/bin
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$O/info.log" 2>&1
V="base va vb vc"
for v in $V; do mkdir -p /tmp/bin/$v && gunzip -c $C/$v/dctool.gz > /tmp/bin/$v/dctool && chmod +x /tmp/bin/$v/dctool; done
$C/probe/tc-f16acc-probe > $O/probe.log 2>&1; cat $O/probe.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
run() {  # label build [env...]
  local label=$1 b=$2; shift 2
  env "$@" timeout 60 /tmp/bin/$b/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "$label: $(times $d/r.json)" | tee -a $O/ab.log
}
for gray in 0 1; do
  for n in 2048 4096 8192; do
    d=/tmp/c1_${gray}_$n; mkdir -p $d $d.o
    DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
    cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
    exact=v5; [[ $gray == 1 ]] && exact=v3
    for rep in 1 2; do for v in $V; do run "$n gray=$gray $v" $v; done; done
    run "$n gray=$gray $exact" base DCTOOL_JPEG_FUSED=$exact
    timeout 60 /tmp/bin/base/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( (gray == 1 ? 1 : 3) * n / 4)) \
      --backends cuda-8x8 --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
  done
done
mkdir -p /tmp/pq; for f in camera astronaut; do for q in 10 50 90; do
  DCTOOL_JPEG_FUSED=v5 /tmp/bin/base/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_v5.png --quality $q > /dev/null 2>&1
  for v in $V; do /tmp/bin/$v/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_$v.png --quality $q --report /tmp/pq/r.json > /dev/null 2>&1
    echo "$f q$q $v: PSNR(v5, default) $(/tmp/bin/base/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}_$v.png 2>&1) | PSNR(original) $(/tmp/bin/base/dctool psnr data/$f.png /tmp/pq/${f}_${q}_$v.png 2>&1) | $(python3 -c 'import json; r=json.load(open("/tmp/pq/r.json")); r=r[0] if isinstance(r,list) else r; print("nonzero %.6f entropy %.6f" % (r["nonzero_fraction"], r["entropy_bpp"]))')"; done
done; done | tee $O/psnr.log
cuobjdump -sass /tmp/bin/va/dctool 2>/dev/null | python3 -c '
import sys
keep=False
for l in sys.stdin:
    if "Function :" in l: keep = "fused_jpeg_tc" in l or "jpeg_kernel_tc" in l
    if keep: sys.stdout.write(l)' > $O/sass-va.txt
cuobjdump -sass /tmp/bin/base/dctool 2>/dev/null | python3 -c '
import sys
keep=False
for l in sys.stdin:
    if "Function :" in l: keep = "fused_jpeg_tc" in l or "jpeg_kernel_tc" in l
    if keep: sys.stdout.write(l)' > $O/sass-base.txt
wc -l $O/sass-*.txt
echo done
