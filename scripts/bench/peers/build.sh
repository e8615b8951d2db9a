#!/usr/bin/env bash
# Builds scripts/bench/peers/vkbench_r2r.cu (VkFFT 1.3.4 on the real-to-real family; see its header) for Hopper
# (sm_90) into ${1:-<repo>/build-peers/vkbench_r2r} (build-*/ is ignored by git), as ../shared/peers/build.sh
# builds vkbench. Run it on the development machine (nvcc is installed there), then carry the binary to the GPU
# machine. The binary links the CUDA runtime statically; libcuda, libnvrtc and libcufft come from the GPU machine
# (put the directories of libcufft.so.12 and libnvrtc.so.13 on LD_LIBRARY_PATH there; scripts/bench/sweeps.sh
# does). VkFFT's headers: ../shared/peers/vkFFT beside the repository (VKFFT_DIR overrides); CUDA: $CUDA or
# /usr/local/cuda.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=${1:-$repo/build-peers/vkbench_r2r}
CUDA=${CUDA:-/usr/local/cuda}
VKFFT_DIR=${VKFFT_DIR:-$repo/../shared/peers/vkFFT}
if [[ ! -f $VKFFT_DIR/vkFFT.h ]]; then
  echo "build.sh: no vkFFT.h in $VKFFT_DIR (expected ../shared/peers/vkFFT beside the repository)" >&2
  exit 1
fi
mkdir -p "$(dirname "$out")" || exit 1
"$CUDA/bin/nvcc" -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 \
  -Xcompiler=-static-libstdc++,-static-libgcc -DVKFFT_BACKEND=1 -I "$VKFFT_DIR" \
  -diag-suppress=68,177,550 -Xcompiler=-Wno-unused-result \
  "$here/vkbench_r2r.cu" -o "$out" -L"$CUDA/lib64/stubs" -L"$CUDA/lib64" -lcuda -lnvrtc -lcufft || exit 1
echo "built $out"
