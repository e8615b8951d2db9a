# Call 2: v6's histogram modes (DCTOOL_JPEG_TC_HIST) and strips per CTA (DCTOOL_JPEG_TC_STRIPS) against v5 / v3 at
# 4096^2 (RGB and gray), device ms per image from --report; then Nsight Compute stall reasons for two of them.
B=${1:?build}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
times() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.4f" % x["timing_ms"]["device"] for x in r), "| psnr %.4f nonzero %.6f entropy %.6f" % tuple(r[0][k] for k in ("psnr_db","nonzero_fraction","entropy_bpp")))' "$1"; }
for gray in 0 1; do
  d=/tmp/ab$gray; mkdir -p $d $d.o
  DCTOOL_BENCH_GRAY=$gray python3 scripts/compress-bench-images.py $d/img_1.png 4096 4096 > /dev/null
  cp $d/img_1.png $d/img_2.png; cp $d/img_1.png $d/img_3.png
  base=v5; [[ $gray == 1 ]] && base=v3
  for rep in 1 2; do
    for cfg in "$base - -" "v6 atom 4" "v6 skip 4" "v6 none 4" "v6 atom 16" "v6 skip 16" "v6 none 16"; do
      set -- $cfg
      env DCTOOL_JPEG_FUSED=$1 $( [[ $2 != - ]] && echo DCTOOL_JPEG_TC_HIST=$2 DCTOOL_JPEG_TC_STRIPS=$3 ) \
        $B/dctool compress $d/img_*.png -o $d.o --quality 50 --jobs 1 --report $d/r.json > /dev/null 2>&1
      echo "4096 gray=$gray $cfg: $(times $d/r.json)" | tee -a $O/ab.log
    done
  done
done
if command -v ncu > /dev/null; then
  m=smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio,smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_shared_atom.sum
  for cfg in "atom 4" "skip 16" "none 16"; do
    set -- $cfg
    echo "## v6 hist=$1 strips=$2" >> $O/ncu.txt
    DCTOOL_JPEG_FUSED=v6 DCTOOL_JPEG_TC_HIST=$1 DCTOOL_JPEG_TC_STRIPS=$2 timeout 100 ncu --clock-control none --metrics $m \
      -k regex:fused_jpeg --launch-count 1 $B/dctool compress /tmp/ab0/img_1.png -o /tmp/ab0.o/ncu.png --quality 50 >> $O/ncu.txt 2>&1
  done
fi
