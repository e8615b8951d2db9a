#!/usr/bin/env bash
# One command: install what is missing, build, and run the main job on the bundled sample:
# a 2-D DCT / inverse DCT round trip of data/camera.png with per-stage timing and its PSNR, then a
# JPEG compression at quality 50 to a real .jpg (libjpeg-turbo) with its true bits per pixel and its report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
out=${OUT_DIR:-out}
mkdir -p "$out"
dctool=${BUILD_DIR:-build}/dctool
set -x
"$dctool" --timing dct2 data/camera.png -o "$out/camera.dct.npy"
"$dctool" --timing idct2 "$out/camera.dct.npy" -o "$out/camera.roundtrip.png"
"$dctool" psnr data/camera.png "$out/camera.roundtrip.png"
# JPEG compression of the same photograph to a .jpg: PSNR of its decode, true bits per pixel, timing.
"$dctool" --timing compress data/camera.png -o "$out/camera.q50.jpg" --quality 50 --report "$out/camera.q50.json"
