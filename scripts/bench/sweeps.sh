#!/usr/bin/env bash
# The measured sweeps behind docs/performance.md, run on the GPU machine:
#
#   scripts/bench/sweeps.sh BUILD_DIR OUT_DIR [VKBENCH [VKBENCH_R2R]]
#
# BUILD_DIR holds `dctool` (a Release build for the GPU). Writes one CSV per capability into OUT_DIR, named
# <capability>-<device>.csv as bench/results/ expects (device: h100, h200, from nvidia-smi; DEVICE_SLUG overrides):
#   dct2d-<dev>.csv   Table V layout: dct2/idct2, cuda-rowcol vs cuda-fft2d, f64 and f32, 512^2..8192^2,
#                     100x10000 and 10000x100
#   shapes-<dev>.csv  dct2/idct2 f32/f64 on photograph shapes and 40 random smooth shapes, cuda-fft2d-smooth
#                     against cuda-fft2d-cufft (the two routes cuda-fft2d chooses between off powers of two), and
#                     cuda-fft2d itself (its pick without --effort measure)
#   dct1d-<dev>.csv   Table IV layout: 1 x N, N = 2^14..2^18, the four 1-D algorithms, f64 and f32
#   block8-<dev>.csv  cuda-8x8 and cuda-8x8-def, --block 8 --norm ortho, f32, 2048^2..8192^2
#   dct4-<dev>.csv    N = 17 (direct / 4-section / 8-section / small / fft; 1 and 2^20 transforms); cuda-dct4-small
#                     and cuda-dct4-fft batched (about 2^24 elements) at N = 8 .. 64, 100, 105, 1000, 1001, 1023, 2047,
#                     3375, 4097, 6823 along rows
#                     (f32, f64); then cuda-dct4-fft batched at N = 256, 1024, 4096, 1023 (dct4, idct4, ortho, f32 and
#                     f64); three `# command:` lines
#   lot-<dev>.csv     cuda-lot beside cpu-lot (the host's cores), lot/ilot, f32, 2048^2..8192^2
#   r2r-<dev>.csv     the real-to-real family on the GPU: cuda-r2r on 3-D DCT-II/III (r2r:dct2+dct2+dct2,
#                     r2r:dct3+dct3+dct3) at 256^3, 512^3, 384x512x640 (f32, f64) and 2-D dct1, dst1, dst2, dst3 and
#                     the mixed r2r:dct2+dst2, r2r:dct3+dst3 at 4096^2, 2048^2, 1080x1920, 1920x1080 and the Chebyshev
#                     grid 4097^2 (f32, f64; not 2049^2: VkFFT 1.3.4's dst3_2d f32 faults there); 20000
#                     matrices of 240x240 (--batch 20000, f32): dct2 by
#                     cuda-fft2d and cuda-fft2d-smooth, r2r:dct2+dct2 by cuda-r2r (the shapes of peer-vkfft-r2r)
#   volumes-<dev>.csv 3-D forward runs (r2r:dct2+dct2+dct2, r2r:dct2+dst2+dct2) on volumes whose sides are not all
#                     powers of two (video clips, grids) and 256^3, cuda-r2r, f32 and f64, verified (the shapes of
#                     peer-vkfft-volumes)
#   batch2d-<dev>.csv batches of small matrices (the benchmark tiles: 8^2 .. 1024^2, 24x20, 100x90, 120x128, about 2^22
#                     elements or more each): dct2, idct2 by cuda-fft2d, cuda-fft2d-tiles and cuda-fft2d-cufft (f32,
#                     f64), one command per batch size
#   peer-vkfft-<dev>.csv  (only with VKBENCH, the peer binary built by ../shared/peers/build.sh) VkFFT's 2-D DCT-II/III
#                     and batched DCT-IV with cuFFT and the copy of the same shapes, in its own process
#   peer-vkfft-dct4-<dev>.csv  (capability peer-dct4; only with VKBENCH) VkFFT's batched DCT-IV at the lengths of dct4
#                     (about 2^24 elements each), with the copy of the same bytes; run it beside dct4 on the same machine
#   peer-vkfft-r2r-<dev>.csv  (capability peer-r2r; only with VKBENCH_R2R, the 4th argument or the environment variable:
#                     the binary built by scripts/bench/peers/build.sh) VkFFT's 3-D DCT-II/III, 2-D DCT-I, DST-II/III
#                     and DCT-II/III of 20000 matrices of 240x240, with cuFFT and the copy of the same shapes
#   peer-vkfft-volumes-<dev>.csv  (capability peer-volumes; only with VKBENCH_R2R) VkFFT's 3-D DCT-II/III of the
#                     volumes of volumes, with cuFFT's 3-D R2C/C2R and the copy; run it beside volumes
#   peer-vkfft-batch2d-<dev>.csv  (capability peer-batch2d; only with VKBENCH_R2R) VkFFT's 2-D DCT-II/III of the
#                     batches of batch2d (f32), with cuFFT and the copy of the same shapes; run it beside batch2d
# Every file starts with `# command: <the command that made it>` (one per command), `# device: <GPU name>`,
# `# date: YYYY-MM-DD`, then the CSV (one header). Then, on the build machine:
#   cp OUT_DIR/*.csv bench/results/ && /usr/bin/python3 scripts/bench/make_performance_docs.py
#
# Environment: REPS (default 20) timed repetitions per point; SWEEPS (comma list, default
# "dct2d,shapes,dct1d,block8,dct4,lot,r2r,volumes,batch2d,peer-vkfft,peer-dct4,peer-r2r,peer-volumes,peer-batch2d") to run a subset; VKBENCH_R2R (when no 4th argument);
# DEVICE_SLUG; SWEEPS_VERBOSE=1 prints every row at the end.
# Each invocation runs under `timeout 240`; a failed one is reported, its capability file is written from the
# commands that succeeded (or not at all), and the script exits non-zero at the end.
set -u -o pipefail

BUILD=${1:?usage: scripts/bench/sweeps.sh BUILD_DIR OUT_DIR [VKBENCH [VKBENCH_R2R]]}
OUTDIR=${2:?usage: scripts/bench/sweeps.sh BUILD_DIR OUT_DIR [VKBENCH [VKBENCH_R2R]]}
VKBENCH=${3:-}
VKBENCH_R2R=${4:-${VKBENCH_R2R:-}}
REPS=${REPS:-20}
SWEEPS=${SWEEPS:-dct2d,shapes,dct1d,block8,dct4,lot,r2r,volumes,batch2d,peer-vkfft,peer-dct4,peer-r2r,peer-volumes,peer-batch2d}
# Photograph and matrix shapes, and 40 random smooth shapes (sides 16..16384 of prime factors 2..13, 2^14..2^24
# elements, Python's random.Random(27)), for the shapes capability and the peer.
IMAGE_SHAPES=1080x1920,1920x1080,720x1280,1000x1000,1536x1536,2160x3840,3000x4000,6144x6144,4000x6000,100x10000,10000x100
RANDOM_SHAPES=10010x1485,1575x810,180x154,5632x2112,1260x2640,3087x715,1215x1152,175x10985,8580x196,120x8736,3675x2340,\
33x15400,4374x1274,448x7436,2178x7371,8450x1040,5292x468,273x2916,81x12636,220x637,525x1372,5670x117,650x8450,39x3888,\
12740x520,2275x6468,154x1815,4160x2376,33x2475,550x12870,1372x676,4455x2430,5120x143,5145x1232,637x882,243x2145,\
130x2925,338x1755,9625x210,1728x3993
# The real-to-real shapes (r2r and peer-r2r): 3-D DxHxW, 2-D HxW, and the batch of small matrices.
# Batched DCT-IV along rows, about 2^24 elements each: short lines (cuda-dct4-small's range) and the issue's lengths.
DCT4_SHAPES=2097152x8,1048576x16,699050x24,524288x32,508400x33,349525x48,262144x64,167772x100,159783x105,16777x1000,\
16760x1001,16400x1023,8196x2047,4971x3375,4095x4097,2459x6823
DCT4_PEER=8x2097152,16x1048576,24x699050,32x524288,33x508400,48x349525,64x262144,100x167772,105x159783,1000x16777,\
1001x16760,1023x16400,2047x8196,3375x4971,4097x4095,6823x2459,256x65536,1024x16384,4096x4096
SHAPES_3D=256x256x256,512x512x512,384x512x640
# 3-D volumes whose sides are not all powers of two (a 96-frame 1080p clip, video and grid shapes) and 256^3.
SHAPES_VOLUMES=384x512x640,96x1080x1920,64x480x640,100x200x300,256x256x256
SHAPES_R2R_2D=4096x4096,2048x2048,1080x1920,1920x1080,4097x4097
BATCH_SHAPE=240x240
BATCH_COUNT=20000
# The batch2d capability and its peer: COUNTxHxW.
BATCH2D="65536x8x8 16384x16x16 4096x32x32 4096x64x64 512x128x128 256x256x256 64x512x512 16x1024x1024 20000x24x20
1000x100x90 500x120x128"
DCTOOL=$BUILD/dctool
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
LOG=$OUTDIR/sweeps.log
: >"$LOG"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
say() { echo "$@" | tee -a "$LOG"; }
wanted() { [[ ",$SWEEPS," == *",$1,"* ]]; }

# cuFFT / CUDA runtime / NVRTC libraries (as scripts/gpu-check.sh): the toolkit's, plus wherever libcufft.so.1x and
# libnvrtc.so.1x (VkFFT compiles its kernels through NVRTC) live.
libdirs=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib
libs=$(find /usr/local /usr/lib /opt -maxdepth 6 \( -name 'libcufft.so.1*' -o -name 'libnvrtc.so.1*' \) 2>/dev/null)
for f in $(echo "$libs" | head -10); do
  d=$(dirname "$f")
  [[ ":$libdirs:" == *":$d:"* ]] || libdirs=$libdirs:$d
done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | sed 's/^ *//; s/ *$//')
if [[ -z $DEVICE ]]; then
  echo "sweeps: nvidia-smi reports no GPU" >&2
  exit 1
fi
if [[ -n ${DEVICE_SLUG:-} ]]; then
  SLUG=$DEVICE_SLUG
else
  case "$DEVICE" in
    *H100*) SLUG=h100 ;;
    *H200*) SLUG=h200 ;;
    *) SLUG=$(echo "$DEVICE" | tr '[:upper:]' '[:lower:]' | sed 's/^nvidia //' | tr -cs 'a-z0-9' '-' |
                sed 's/^-*//; s/-*$//') ;;
  esac
fi
DATE=$(date -u +%F)
say "== sweeps $(date -u +%Y-%m-%dT%H:%M:%SZ): device '$DEVICE' ($SLUG), build $BUILD, reps $REPS, sweeps $SWEEPS"
say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

status=0
SUMMARY=()  # "capability|file|rows|exit codes|seconds"
VERIFY=(--verify)  # against the f64 CPU oracle; the r2r capability leaves it out (see there)
COMMON=(--reps "$REPS" --warmup 3 --effort estimate --format csv)

# One capability file from one or more commands. Usage: capability CAP -- ARGS... [-- ARGS...]
# Each ARGS is a `dctool bench` argument list (without the common tail) or, for the peers, `@peer ARGS` (VKBENCH) or
# `@peer-r2r ARGS` (VKBENCH_R2R).
capability() {
  local cap=$1; shift
  [[ $1 == -- ]] && shift
  local cmds=() cur=() a
  for a in "$@"; do
    if [[ $a == -- ]]; then cmds+=("${cur[*]}"); cur=(); else cur+=("$a"); fi
  done
  cmds+=("${cur[*]}")
  local file=$OUTDIR/$cap-$SLUG.csv t0 rcs="" k=0 ok_cmds=() ok_parts=()
  t0=$(date +%s)
  for c in "${cmds[@]}"; do
    k=$((k + 1))
    local part=$TMP/$cap.$k.csv rc shown
    read -r -a args <<<"$c"
    if [[ ${args[0]} == @peer || ${args[0]} == @peer-r2r ]]; then
      local bin=$VKBENCH name=vkbench
      [[ ${args[0]} == @peer-r2r ]] && bin=$VKBENCH_R2R name=vkbench_r2r
      args=("${args[@]:1}")
      shown="$name ${args[*]}"
      say "== $cap: $shown"
      timeout 240 "$bin" "${args[@]}" >"$part" 2>>"$LOG"
      rc=$?
    else
      shown="dctool bench ${args[*]} ${COMMON[*]} ${VERIFY[*]}"
      say "== $cap: $shown"
      timeout 240 "$DCTOOL" bench "${args[@]}" "${COMMON[@]}" "${VERIFY[@]}" -o "$part" 2>>"$LOG"
      rc=$?
    fi
    rcs="$rcs${rcs:+,}$rc"
    if [[ $rc -eq 0 && -s $part ]]; then
      ok_cmds+=("$shown"); ok_parts+=("$part")
    else
      local why="exit code $rc"
      [[ $rc -eq 124 ]] && why="$why: over 240 s"
      [[ $rc -eq 0 ]] && why="$why, no output"
      say "FAILED ($cap, $why): $shown"
      status=1
    fi
  done
  local rows=0
  if ((${#ok_parts[@]})); then
    {
      for c in "${ok_cmds[@]}"; do echo "# command: $c"; done
      echo "# device: $DEVICE"
      echo "# date: $DATE"
      head -n 1 "${ok_parts[0]}"
      for p in "${ok_parts[@]}"; do tail -n +2 "$p"; done
    } >"$file.tmp" && mv "$file.tmp" "$file"
    rows=$(($(grep -vc '^#' "$file") - 1))
  else
    file="(not written)"
  fi
  say "$cap: exit codes $rcs, $rows rows, $(($(date +%s) - t0)) s -> $file"
  SUMMARY+=("$cap|$(basename "$file")|$rows|$rcs|$(($(date +%s) - t0))")
}

if [[ ! -x $DCTOOL ]]; then
  say "sweeps: no executable $DCTOOL"
  status=1
else
  "$DCTOOL" backends 2>&1 | grep -E '^(backend|cuda-|cpu-lot)' | cut -c1-100 >>"$LOG"
  wanted dct2d && capability dct2d -- --ops dct2,idct2 \
    --sizes 512x512,1024x1024,2048x2048,4096x4096,8192x8192,100x10000,10000x100 \
    --backends cuda-rowcol,cuda-fft2d --precision f64,f32 --axis both --batch 1
  wanted shapes && capability shapes -- --ops dct2,idct2 --sizes "$IMAGE_SHAPES" \
    --backends cuda-fft2d,cuda-fft2d-smooth,cuda-fft2d-cufft --precision f32,f64 --axis both --batch 1 \
    -- --ops dct2 --sizes "$RANDOM_SHAPES" --backends cuda-fft2d,cuda-fft2d-smooth,cuda-fft2d-cufft --precision f32,f64 \
    --axis both --batch 1 \
    -- --ops idct2 --sizes "$RANDOM_SHAPES" --backends cuda-fft2d,cuda-fft2d-smooth,cuda-fft2d-cufft --precision f32,f64 \
    --axis both --batch 1
  wanted dct1d && capability dct1d -- --ops dct2,idct2 --sizes 1x16384,1x32768,1x65536,1x131072,1x262144 \
    --backends cuda-1d-4n,cuda-1d-2n-mirror,cuda-1d-2n-pad,cuda-1d-n --precision f64,f32 --axis rows --batch 1
  wanted block8 && capability block8 -- --ops dct2,idct2 --block 8 --norm ortho \
    --sizes 2048x2048,4096x4096,8192x8192 --backends cuda-8x8,cuda-8x8-def --precision f32
  wanted dct4 && capability dct4 -- --ops dct4 --axis rows --sizes 1x17,1048576x17 \
    --backends cuda-dct4-direct,cuda-dct4-sec4,cuda-dct4-sec8,cuda-dct4-small,cuda-dct4-fft --precision f64,f32 \
    -- --ops dct4 --axis rows --sizes "$DCT4_SHAPES" --backends cuda-dct4-small,cuda-dct4-fft --precision f32,f64 \
    -- --ops dct4,idct4 --axis rows --norm ortho --sizes 65536x256,16384x1024,4096x4096,16384x1023 \
    --backends cuda-dct4-fft --precision f32,f64
  wanted lot && capability lot -- --ops lot,ilot --sizes 2048x2048,4096x4096,8192x8192 \
    --backends cuda-lot,cpu-lot --precision f32
  # One command per precision (3-D) and per batched op. Not verified here: the f64 CPU oracle of 512^3 arrays and of
  # the 1.15e9-element batch takes minutes per row; tests/kernels/test_r2r_gpu.cpp checks cuda-r2r against cpu-fftw.
  VERIFY=()
  wanted r2r && capability r2r -- --ops r2r:dct2+dct2+dct2,r2r:dct3+dct3+dct3 --sizes "$SHAPES_3D" \
    --backends cuda-r2r --precision f32 \
    -- --ops r2r:dct2+dct2+dct2,r2r:dct3+dct3+dct3 --sizes "$SHAPES_3D" --backends cuda-r2r --precision f64 \
    -- --ops dct1,dst1,dst2,dst3,r2r:dct2+dst2,r2r:dct3+dst3 --sizes "$SHAPES_R2R_2D" --backends cuda-r2r \
    --precision f32,f64 \
    -- --ops dct2,r2r:dct2+dct2 --sizes "$BATCH_SHAPE" --batch "$BATCH_COUNT" --backends cuda-fft2d,cuda-fft2d-smooth,cuda-r2r \
    --precision f32
  VERIFY=(--verify)
  wanted volumes && capability volumes -- --ops r2r:dct2+dct2+dct2,r2r:dct2+dst2+dct2 --sizes "$SHAPES_VOLUMES" \
    --backends cuda-r2r --precision f32,f64
  if wanted batch2d; then
    b2d=()
    for cb in $BATCH2D; do
      b2d+=(-- --ops dct2,idct2 --sizes "${cb#*x}" --batch "${cb%%x*}" --backends cuda-fft2d,cuda-fft2d-tiles,cuda-fft2d-cufft
        --precision f32,f64)
    done
    capability batch2d "${b2d[@]}"
  fi
fi
if wanted peer-vkfft && [[ -n $VKBENCH ]]; then
  if [[ -x $VKBENCH ]]; then
    capability peer-vkfft -- @peer --shapes 512x512,1024x1024,2048x2048,4096x4096,8192x8192,"$IMAGE_SHAPES" \
      --dct4 256x65536,1024x16384,17x1048576 -- @peer --only 2d --shapes "$RANDOM_SHAPES" --max-seconds 100
  else
    say "sweeps: VKBENCH '$VKBENCH' is not an executable"
    status=1
  fi
fi
if wanted peer-dct4 && [[ -n $VKBENCH ]]; then
  if [[ -x $VKBENCH ]]; then
    # One process per length: VkFFT 1.3.4 faults on some lengths on some hosts (an illegal address in its module load,
    # N >= 179 on the H100 host), which would lose every row of a shared process.
    peer_dct4=()
    for s in 17x1048576 ${DCT4_PEER//,/ }; do peer_dct4+=(-- @peer --only dct4 --dct4 "$s"); done
    capability peer-vkfft-dct4 "${peer_dct4[@]}"
  else
    say "sweeps: VKBENCH '$VKBENCH' is not an executable"
    status=1
  fi
fi
if wanted peer-r2r && [[ -n $VKBENCH_R2R ]]; then
  if [[ -x $VKBENCH_R2R ]]; then
    capability peer-vkfft-r2r -- @peer-r2r --only 3d --shapes3d "$SHAPES_3D" --max-seconds 200 \
      -- @peer-r2r --only 2d --shapes "$SHAPES_R2R_2D" --max-seconds 200 \
      -- @peer-r2r --only batch --batch2d "${BATCH_COUNT}x$BATCH_SHAPE" --max-seconds 200
  else
    say "sweeps: VKBENCH_R2R '$VKBENCH_R2R' is not an executable"
    status=1
  fi
fi
if wanted peer-volumes && [[ -n $VKBENCH_R2R ]]; then
  if [[ -x $VKBENCH_R2R ]]; then
    capability peer-vkfft-volumes -- @peer-r2r --only 3d --shapes3d "$SHAPES_VOLUMES" --max-seconds 80
  else
    say "sweeps: VKBENCH_R2R '$VKBENCH_R2R' is not an executable"
    status=1
  fi
fi
if wanted peer-batch2d && [[ -n $VKBENCH_R2R ]]; then
  if [[ -x $VKBENCH_R2R ]]; then
    capability peer-vkfft-batch2d -- @peer-r2r --only batch --batch2d "$(echo $BATCH2D | tr ' ' ,)" --max-seconds 200
  else
    say "sweeps: VKBENCH_R2R '$VKBENCH_R2R' is not an executable"
    status=1
  fi
fi

# Short summary last.
echo
printf '%-15s %-26s %5s %-11s %6s\n' capability file rows exit seconds | tee -a "$LOG"
for s in "${SUMMARY[@]}"; do
  IFS='|' read -r c f r e t <<<"$s"
  printf '%-15s %-26s %5s %-11s %6s\n' "$c" "$f" "$r" "$e" "$t" | tee -a "$LOG"
done
if [[ ${SWEEPS_VERBOSE:-0} == 1 ]]; then
  for f in "$OUTDIR"/*-"$SLUG".csv; do
    [[ -s $f ]] || continue
    echo "== $(basename "$f")"
    grep -v '^#' "$f" | column -s, -t
  done
fi
echo "device: $DEVICE ($SLUG); sweeps status $status (log: $LOG)"
exit $status
