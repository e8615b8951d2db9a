#!/usr/bin/env bash
# Run 15, call 2: occupancy. occ = r15 with RGB's v6 kernels of 1 and 2 block pairs per warp compiled for 3 CTAs per
# SM (__launch_bounds__ 256, 3: at most 80 registers; ptxas: 1 pair 80 registers, no spills; 2 pairs 80 registers,
# 152 bytes spilled) instead of 2; RGB's default (4 pairs, 2 CTAs, 128 registers) unchanged. occ's compress/block8 gpu
# tests; RGB at 2048^2, 4096^2, 8192^2 (quality 50, device ms per warm image, alternating three times): r15's default,
# occ with 1, 2 and 4 pairs, the copy of the same bytes; occ's 1-pair images against r15's byte for byte; both RGB
# kernels' SASS (to $OUT, not kept).
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
export PATH=$PATH:/usr/local/cuda/bin
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$O/info.log" 2>&1; cat $O/info.log
for v in r15 occ; do mkdir -p /tmp/bin/$v && gunzip -c $C/$v/dctool.gz > /tmp/bin/$v/dctool && chmod +x /tmp/bin/$v/dctool; done
gunzip -c $C/occ/tests/test_kernels.gz > /tmp/bin/occ/test_kernels && chmod +x /tmp/bin/occ/test_kernels
timeout 200 /tmp/bin/occ/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
run() {  # label build [env...]
  local label=$1 b=$2; shift 2
  env "$@" timeout 60 /tmp/bin/$b/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "$label: $(times $d/r.json)" | tee -a $O/ab.log
}
for n in 2048 4096 8192; do
  d=/tmp/c2_$n; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=0 python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
  cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
  for rep in 1 2 3; do
    run "$n rgb r15" r15; run "$n rgb occ pairs=1" occ DCTOOL_JPEG_TC_PAIRS=1; run "$n rgb occ pairs=2" occ DCTOOL_JPEG_TC_PAIRS=2
    run "$n rgb occ pairs=4" occ
  done
  timeout 60 /tmp/bin/r15/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( 3 * n / 4)) \
    --backends cuda-8x8 --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
done
mkdir -p /tmp/pq; for f in camera astronaut; do for q in 10 50 90; do
  /tmp/bin/r15/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_r15.png --quality $q > /dev/null 2>&1
  DCTOOL_JPEG_TC_PAIRS=1 /tmp/bin/occ/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_occ1.png --quality $q > /dev/null 2>&1
  echo "$f q$q: occ pairs=1 vs r15: $(cmp -s /tmp/pq/${f}_${q}_r15.png /tmp/pq/${f}_${q}_occ1.png && echo identical || echo DIFFERENT)"
done; done | tee $O/identity.log
for v in r15 occ; do cuobjdump -sass /tmp/bin/$v/dctool 2>/dev/null | python3 -c '
import sys
keep=False
for l in sys.stdin:
    if "Function :" in l: keep = "fused_jpeg_kernel_tcILi3" in l
    if keep: sys.stdout.write(l)' > $O/sass-$v.txt; done
wc -l $O/sass-*.txt
echo done
