#!/usr/bin/env bash
# Run 12, call 4 (r4 = the final code: chunked resident CTAs, the L2 prefetch for gray only): the compress/block8 gpu
# tests; default against the CPU-exact kernels (gray v3, RGB v5) at 2048^2, 4096^2, 8192^2 (quality 50, device ms per
# warm image, alternating twice) with the copy of the same bytes; the main job by hand (compress --timing --report).
B=${1:?build}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$O/info.log" 2>&1
timeout 200 $B/tests/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
for gray in 1 0; do
  for n in 2048 4096 8192; do
    d=/tmp/c4_${gray}_$n; mkdir -p $d $d.o
    DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
    cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
    exact=v5; [[ $gray == 1 ]] && exact=v3
    for rep in 1 2; do
      for v in default $exact; do
        if [[ $v == default ]]; then env -u DCTOOL_JPEG_FUSED timeout 60 $B/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
        else DCTOOL_JPEG_FUSED=$v timeout 60 $B/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1; fi
        echo "$n gray=$gray $v: $(times $d/r.json)" | tee -a $O/ab.log
      done
    done
    timeout 60 $B/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( (gray == 1 ? 1 : 3) * n / 4)) --backends cuda-8x8 \
      --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
  done
done
{ $B/dctool compress data/astronaut.png -o /tmp/astro50.png --quality 50 --report /tmp/astro50.json --timing; cat /tmp/astro50.json;
  $B/dctool compress data/camera.png -o /tmp/cam50.png --quality 50 --timing; } > $O/main-job.log 2>&1
tail -3 $O/main-job.log
echo done
