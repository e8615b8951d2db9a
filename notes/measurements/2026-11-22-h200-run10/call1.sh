set -x
S=notes/measurements/2026-11-22-h200-run10/jpeg-ab.sh
TESTS=1 NCU=1 bash $S carry/r1 $OUT/call1 2>&1 | tail -30
GRAY=1 VARIANTS="v3 v6" SIZES=4096 bash $S carry/r1 $OUT/call1g 2>&1 | tail -8
mkdir -p /tmp/pq; for f in camera astronaut; do for q in 10 50 90; do for v in v5 v6; do DCTOOL_JPEG_FUSED=$v carry/r1/dctool compress data/$f.png -o /tmp/pq/${f}_${q}_$v.png --quality $q > /dev/null 2>&1; done; echo "$f q$q PSNR(v5=CPU-exact, v6): $(carry/r1/dctool psnr /tmp/pq/${f}_${q}_v5.png /tmp/pq/${f}_${q}_v6.png 2>&1)"; done; done | tee $OUT/call1/psnr-v6.log
