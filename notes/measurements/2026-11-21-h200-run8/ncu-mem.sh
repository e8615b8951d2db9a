#!/usr/bin/env bash
# Nsight Compute memory traffic and warp stalls of the kernels of one cuda-fft2d bench configuration (eighth session):
# DRAM bytes read / written, L2 sectors read / written from the SMs, global store requests / sectors, and the warp
# state section. Usage (device, repo root):
#   bash notes/measurements/2026-11-21-h200-run8/ncu-mem.sh BUILD_DIR PRECISION SIZE OP KERNEL_REGEX > $OUT/x.txt
B=${1:?build dir}; PREC=${2:?precision}; SIZE=${3:?size}; OP=${4:?op}; K=${5:?kernel regex}
libdirs=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
for f in $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' 2>/dev/null | head -5); do libdirs=$libdirs:$(dirname "$f"); done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
timeout 200 ncu --clock-control none -k "regex:$K" --launch-count 3 --section WarpStateStats \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__warps_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warps_issue_stalled_barrier_per_warp_active.pct,smsp__warps_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warps_issue_stalled_drain_per_warp_active.pct \
  "$B/dctool" bench --ops "$OP" --sizes "$SIZE" --backends cuda-fft2d --precision "$PREC" --reps 1 --warmup 0 2>&1 |
  grep -vE "^\s*$|----|OPT|INF|WRN|^          "
