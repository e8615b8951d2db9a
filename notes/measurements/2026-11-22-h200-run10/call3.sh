# Call 3 (r3: loads of a strip under one branch, 16 strips per CTA by default): gpu tests, v6 against v5 (RGB) / v3
# (gray) at 2048^2, 4096^2, 8192^2 with 8 / 16 / 32 strips per CTA at 4096^2, and PSNR(v5 = CPU-exact, v6).
B=${1:?build}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
timeout 240 $B/tests/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
for gray in 0 1; do
  for n in 2048 4096 8192; do
    [[ $gray == 1 && $n != 4096 ]] && continue
    d=/tmp/c3_${gray}_$n; mkdir -p $d $d.o
    DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
    cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
    base=v5; [[ $gray == 1 ]] && base=v3
    cfgs="$base:16 v6:16"; [[ $n == 4096 ]] && cfgs="$base:16 v6:8 v6:16 v6:32"
    for rep in 1 2; do
      for c in $cfgs; do
        DCTOOL_JPEG_FUSED=${c%:*} DCTOOL_JPEG_TC_STRIPS=${c#*:} $B/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 1 --report $d/r.json > /dev/null 2>&1
        echo "$n gray=$gray $c: $(times $d/r.json)" | tee -a $O/ab.log
      done
    done
    timeout 60 $B/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( (gray == 1 ? 1 : 3) * n / 4)) --backends cuda-8x8 \
      --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
  done
done
mkdir -p /tmp/pq; for f in camera astronaut; do for q in 10 50 90; do for v in v5 v6; do DCTOOL_JPEG_FUSED=$v $B/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_$v.png --quality $q > /dev/null 2>&1; done; echo "$f q$q PSNR(v5=CPU-exact, v6): $($B/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}_v6.png 2>&1)"; done; done | tee $O/psnr-v6.log
