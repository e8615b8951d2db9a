# Call 5 (r5: review mend, the launch shapes of v3 / v5 / v6 in one table, C' made only for v6; kernels unchanged):
# the compress and block8 gpu tests,
# the default and v6 at 4096^2 RGB, and a bad DCTOOL_JPEG_TC_STRIPS.
B=${1:?build}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
timeout 240 $B/tests/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
d=/tmp/c5; mkdir -p $d $d.o; python3 scripts/compress-bench-images.py $d/img_1.png 4096 4096 > /dev/null; cp $d/img_1.png $d/img_2.png; cp $d/img_1.png $d/img_3.png
for v in default v3 v5 v6 default v3 v5 v6; do
  env $([[ $v != default ]] && echo DCTOOL_JPEG_FUSED=$v) $B/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 1 --report $d/r.json > /dev/null 2>&1
  echo "4096 RGB $v: $(times $d/r.json)" | tee -a $O/ab.log
done
DCTOOL_JPEG_TC_STRIPS=abc DCTOOL_JPEG_FUSED=v6 $B/dctool compress data/camera.png -o /tmp/c5bad.png 2>&1 | tee -a $O/ab.log; echo "exit $? (pipe); file: $(ls /tmp/c5bad.png 2>&1)" | tee -a $O/ab.log
