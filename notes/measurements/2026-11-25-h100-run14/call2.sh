#!/usr/bin/env bash
# Run 14, call 2: three builds of dctool in one run (carried gzipped): base (run13's final code, 0afb3d0), fin (call1's
# va without its experiment switches: f16-accumulating MMAs for steps 1, 3 and RGB's step 4, the interior loop's next
# strip by cp.async), vd (fin + gray's step 4 in f16 too, bytes by byte_pair). First vd's compress/block8 gpu tests;
# then each default at 2048^2, 4096^2, 8192^2 gray and RGB (quality 50, device ms per warm image, alternating three
# times), the copy of the same bytes; PSNR(v5 / v3 = CPU-exact, default) and PSNR(original, default) on the samples.
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version --format=csv > "$O/info.log" 2>&1
V="base fin vd"
for v in $V; do mkdir -p /tmp/bin/$v && gunzip -c $C/$v/dctool.gz > /tmp/bin/$v/dctool && chmod +x /tmp/bin/$v/dctool; done
gunzip -c $C/vdt/test_kernels.gz > /tmp/bin/vd/test_kernels && chmod +x /tmp/bin/vd/test_kernels
timeout 200 /tmp/bin/vd/test_kernels "[compress],[block8]" -r compact > $O/tests-vd.log 2>&1; echo "tests exit $?" >> $O/tests-vd.log; tail -2 $O/tests-vd.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
run() {  # label build [env...]
  local label=$1 b=$2; shift 2
  env "$@" timeout 60 /tmp/bin/$b/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 4 --report $d/r.json > /dev/null 2>&1
  echo "$label: $(times $d/r.json)" | tee -a $O/ab.log
}
for gray in 1 0; do
  for n in 2048 4096 8192; do
    d=/tmp/c2_${gray}_$n; mkdir -p $d $d.o
    DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png $n $n > /dev/null
    cp $d/img_1.png $d/img_2.png; [[ $n != 8192 ]] && cp $d/img_1.png $d/img_3.png
    V2=$V; [[ $gray == 0 ]] && V2="base fin"  # vd's RGB kernel is fin's
    for rep in 1 2 3; do for v in $V2; do run "$n gray=$gray $v" $v; done; done
    timeout 60 /tmp/bin/base/dctool bench --ops dct2 --block 8 --norm ortho --sizes ${n}x$(( (gray == 1 ? 1 : 3) * n / 4)) \
      --backends cuda-8x8 --precision f32 --reps 30 --warmup 3 --format csv 2>&1 | tail -1 | tee -a $O/ab.log
  done
done
mkdir -p /tmp/pq; for f in camera astronaut; do for q in 10 50 90; do
  DCTOOL_JPEG_FUSED=v5 /tmp/bin/base/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_v5.png --quality $q > /dev/null 2>&1
  for v in fin vd; do /tmp/bin/$v/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_$v.png --quality $q --report /tmp/pq/r.json > /dev/null 2>&1
    echo "$f q$q $v: PSNR(v5, default) $(/tmp/bin/base/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}_$v.png 2>&1) | PSNR(original) $(/tmp/bin/base/dctool psnr data/$f.png /tmp/pq/${f}_${q}_$v.png 2>&1) | $(python3 -c 'import json; r=json.load(open("/tmp/pq/r.json")); r=r[0] if isinstance(r,list) else r; print("nonzero %.6f entropy %.6f" % (r["nonzero_fraction"], r["entropy_bpp"]))')"; done
done; done | tee $O/psnr.log
echo done
