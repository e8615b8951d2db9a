#!/usr/bin/env bash
# Run 17, call 4: Nsight Compute on the committed code's fused jpeg kernel (8192^2 RGB and gray, quality 50): speed of
# light, occupancy, warp state (stall reasons), source counters' instruction mix; where the RGB kernel's time goes now
# that a second strip in flight (call 3) did not help.
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
export PATH=$PATH:/usr/local/cuda/bin
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$O/info.log" 2>&1; cat "$O/info.log"
mkdir -p /tmp/bin/final && gunzip -c $C/final/dctool.gz > /tmp/bin/final/dctool && chmod +x /tmp/bin/final/dctool
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" | tee -a "$O/info.log"
for gray in 0 1; do
  d=/tmp/c4_$gray; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png 8192 8192 > /dev/null
  echo "## gray=$gray" >> "$O/ncu.txt"
  timeout 200 $NCU --clock-control none -k regex:fused_jpeg_kernel_tc --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats \
    /tmp/bin/final/dctool compress $d/img_1.png -o $d.o --quality 50 >> "$O/ncu.txt" 2>&1
  echo "exit $?" >> "$O/ncu.txt"
done
grep -E "^## |Duration|Throughput|Warp Cycles Per Issued|Achieved Occupancy|Registers|Stall|Issue Slots|Executed Ipc|Block Limit|exit" "$O/ncu.txt" | head -80
