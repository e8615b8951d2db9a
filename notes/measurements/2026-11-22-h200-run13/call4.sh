#!/usr/bin/env bash
# Run 13, call 4: r3 = the review mend (host code only: v6's occupancy query and lane set-up cached per kernel /
# quality and planes): the compress/block8 gpu tests; a batch at two qualities, RGB and gray alternating (the cache
# must follow quality and planes): PSNR against the CPU-exact v5/v3 per image; the main job.
B=${1:?build}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
timeout 200 $B/tests/test_kernels "[compress],[block8]" -r compact > $O/tests.log 2>&1; echo "tests exit $?" >> $O/tests.log; tail -2 $O/tests.log
mkdir -p /tmp/m/in /tmp/m/o6 /tmp/m/ox
cp data/astronaut.png /tmp/m/in/a.png; cp data/camera.png /tmp/m/in/b.png; cp data/astronaut.png /tmp/m/in/c.png; cp data/camera.png /tmp/m/in/d.png
for q in 10 90; do
  $B/dctool compress /tmp/m/in/*.png -o /tmp/m/o6 --quality $q --jobs 1 > /dev/null 2>&1
  for f in a b c d; do
    x=v5; [[ $f == b || $f == d ]] && x=v3
    DCTOOL_JPEG_FUSED=$x $B/dctool compress /tmp/m/in/$f.png -o /tmp/m/ox/$f.png --quality $q > /dev/null 2>&1
    echo "q$q $f PSNR($x, default in a batch): $($B/dctool psnr /tmp/m/ox/$f.png /tmp/m/o6/$f.png 2>&1)"
  done
done | tee $O/batch.log
$B/dctool compress data/camera.png -o /tmp/cam50.png --quality 50 --timing > $O/main-job.log 2>&1; tail -1 $O/main-job.log
echo done
