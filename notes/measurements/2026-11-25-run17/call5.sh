#!/usr/bin/env bash
# Run 17, call 5: call 4's profile put the RGB kernel at 84% of L2 throughput (hit rate 62%: the L2 prefetch and the
# cp.async each cost an L2 request per input sector). Builds with the input two strips ahead in two areas (as r17b)
# and no L2 prefetch: r17c (plain cp.async.cg), r17d (cp.async.cg.L2::128B), r17e (.L2::256B), against base (d53dc1d):
# RGB at 2048^2, 4096^2, 8192^2 and gray at 8192^2 (quality 50, device ms per warm image, alternating twice), the copy,
# each build's images against base's; r17d's [compress],[block8] gpu tests; ncu speed of light of r17d / base.
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
export PATH=$PATH:/usr/local/cuda/bin
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$O/info.log" 2>&1; cat "$O/info.log"
B="final r17c r17d r17e"
for v in $B; do mkdir -p /tmp/bin/$v && gunzip -c $C/$v/dctool.gz > /tmp/bin/$v/dctool && chmod +x /tmp/bin/$v/dctool; done
gunzip -c $C/r17d/tests/test_kernels.gz > /tmp/bin/r17d/test_kernels && chmod +x /tmp/bin/r17d/test_kernels
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
for c in "0 8192" "0 4096" "0 2048" "1 8192"; do
  set -- $c; gray=$1 n=$2; d=/tmp/c5_${gray}_$n; mkdir -p $d
  DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
  lab="$n $([[ $gray == 1 ]] && echo gray || echo rgb)"
  for rep in 1 2; do for v in $B; do run "$lab" $v; done; done
  copy $n $([[ $gray == 1 ]] && echo 1 || echo 3)
  for v in r17c r17d r17e; do
    /tmp/bin/final/dctool psnr $d.final/img_1.png $d.$v/img_1.png 2>&1 | head -1 | sed "s/^/$lab $v vs base: /" | tee -a "$O/ab.log"
  done
done
for v in final r17d; do
  echo "## $v" >> "$O/ncu.txt"
  timeout 60 ncu --clock-control none -k regex:fused_jpeg_kernel_tc --section SpeedOfLight --section MemoryWorkloadAnalysis \
    /tmp/bin/$v/dctool compress /tmp/c5_0_8192/img_1.png -o /tmp/c5_0_8192.final --quality 50 >> "$O/ncu.txt" 2>&1
done
grep -E "^## |Duration|L2 Cache Throughput|DRAM Throughput|L2 Hit Rate" "$O/ncu.txt"
timeout 200 /tmp/bin/r17d/test_kernels "[compress],[block8]" -r compact > "$O/tests.log" 2>&1
echo "tests exit $?" >> "$O/tests.log"; tail -2 "$O/tests.log"
echo done
