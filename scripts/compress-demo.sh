#!/usr/bin/env bash
# Before/after pictures for the README: data/camera.png and data/astronaut.png through `compress` in jpeg mode
# at quality 10 and 50, threshold 20 and keep 5%, with the report printed.
# Usage: scripts/compress-demo.sh [BUILD_DIR] [OUT_DIR]
set -eu
B=${1:-build}; O=${2:-out/compress-demo}
mkdir -p "$O"
for img in camera astronaut; do
  for q in 10 50; do
    "$B/dctool" compress "data/$img.png" -o "$O/${img}_q$q.png" --quality "$q" --report "$O/${img}_q$q.json"
  done
  "$B/dctool" compress "data/$img.png" -o "$O/${img}_threshold20.png" --mode threshold --threshold 20
  "$B/dctool" compress "data/$img.png" -o "$O/${img}_keep5.png" --mode keep --keep 0.05
done
ls "$O"
