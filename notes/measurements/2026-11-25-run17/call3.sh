#!/usr/bin/env bash
# Run 17, call 3: r17b (the interior loop's input copied two strips ahead into two alternating shared-memory areas,
# cp.async.wait_group 1; L2 prefetch three strips ahead) against base (d53dc1d): r17b's [compress],[block8] gpu tests;
# RGB at 2048^2, 4096^2, 8192^2 and gray at 2048^2 and 8192^2 (quality 50, device ms per warm image, alternating three
# times), the copy of the same bytes; PSNR of r17b's images against base's (the same bytes expected); SASS of the RGB
# 4-pair kernels of both builds (gzipped, loop analysed on the build machine).
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
export PATH=$PATH:/usr/local/cuda/bin
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$O/info.log" 2>&1; cat "$O/info.log"
for v in final r17b; do mkdir -p /tmp/bin/$v && gunzip -c $C/$v/dctool.gz > /tmp/bin/$v/dctool && chmod +x /tmp/bin/$v/dctool; done
gunzip -c $C/r17b/tests/test_kernels.gz > /tmp/bin/r17b/test_kernels && chmod +x /tmp/bin/r17b/test_kernels
timeout 200 /tmp/bin/r17b/test_kernels "[compress],[block8]" -r compact > "$O/tests.log" 2>&1
echo "tests exit $?" >> "$O/tests.log"; tail -2 "$O/tests.log"
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
run() {  # label build
  mkdir -p $d.$2
  timeout 60 /tmp/bin/$2/dctool compress $d/img_*.png -o $d.$2 --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "$1 $2: $(times $d/r.json)" | tee -a "$O/ab.log"
}
copy() {  # n planes
  timeout 60 /tmp/bin/final/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${1}x$(( $2 * $1 / 4)) \
    --backends cuda-8x8 --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a "$O/ab.log"
}
same() { /tmp/bin/final/dctool psnr $d.final/img_1.png $d.r17b/img_1.png 2>&1 | head -1 | sed "s/^/$1 r17b vs base: /" | tee -a "$O/ab.log"; }
for c in "0 2048" "0 4096" "0 8192" "1 2048" "1 8192"; do
  set -- $c; gray=$1 n=$2; d=/tmp/c3_${gray}_$n; mkdir -p $d
  DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
  lab="$n $([[ $gray == 1 ]] && echo gray || echo rgb)"
  for rep in 1 2 3; do run "$lab" r17b; run "$lab" final; done
  copy $n $([[ $gray == 1 ]] && echo 1 || echo 3); same "$lab"
done
for v in final r17b; do
  cuobjdump -sass /tmp/bin/$v/dctool 2>/dev/null | python3 -c '
import sys
keep=False
for l in sys.stdin:
    if "Function :" in l: keep = "fused_jpeg_kernel_tcILi3ELi4ELb1" in l
    if keep: sys.stdout.write(l)' | gzip > "$O/sass-$v.txt.gz"
done
ls -la "$O"; echo done
