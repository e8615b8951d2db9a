#!/usr/bin/env bash
# Run 12, call 2: r2 (v6's CTAs all resident, each coding an equal chunk of (column, strip) units) against r1 (call 1's
# build: one CTA per strip group) in the same run: the compress/block8 gpu tests of r2; default v6 of both at 2048^2,
# 4096^2, 8192^2 gray and RGB (quality 50, device ms per warm image, alternating twice) with the copy of the same bytes.
B=${1:?build}; A=${2:?other build}; O=${3:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$O/info.log" 2>&1
timeout 200 $B/tests/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
for gray in 1 0; do
  for n in 2048 4096 8192; do
    d=/tmp/c2_${gray}_$n; mkdir -p $d $d.o
    DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
    cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
    for rep in 1 2; do
      for b in $B $A; do
        timeout 60 $b/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
        echo "$n gray=$gray $(basename $b): $(times $d/r.json)" | tee -a $O/ab.log
      done
    done
    timeout 60 $B/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( (gray == 1 ? 1 : 3) * n / 4)) --backends cuda-8x8 \
      --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
  done
done
echo done
