#!/usr/bin/env bash
# Run 11, call 4 (r4 = review mend: the strips-per-CTA rule on the launch shape; host code only): compress tests and
# the default against the exact kernels at 4096^2 RGB and gray (call3.sh's loop, one size).
B=${1:?build}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
timeout 240 $B/tests/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f" % r[0]["psnr_db"])' "$1"; }
for gray in 1 0; do
  d=/tmp/c4_$gray; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png 4096 4096 > /dev/null
  cp $d/img_1.png $d/img_2.png; cp $d/img_1.png $d/img_3.png
  exact=v5; [[ $gray == 1 ]] && exact=v3
  env -u DCTOOL_JPEG_FUSED $B/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "4096 gray=$gray default: $(times $d/r.json)" | tee -a $O/ab.log
  DCTOOL_JPEG_FUSED=$exact $B/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "4096 gray=$gray $exact: $(times $d/r.json)" | tee -a $O/ab.log
done
