#!/usr/bin/env bash
# compress --mode lot against --mode jpeg (same tables, same quality) on data/camera.png and data/astronaut.png
# at quality 10, 30, 50: PSNR, entropy_bpp and blockiness (core::blockiness, docs/algorithms.md) as a markdown table
# for the README, and a side-by-side picture at quality 10 (a crop of camera.png: jpeg left, lot right,
# pixels doubled) written without PIL.
# Usage: scripts/bench/lot_vs_jpeg.sh [BUILD_DIR] [OUT_DIR]    (CPU only; run from the repository root)
set -eu
B=${1:-build}; O=${2:-out/lot-compare}
PY=/usr/bin/python3
mkdir -p "$O"
for img in camera astronaut; do
  for q in 10 30 50; do
    for mode in jpeg lot; do
      "$B/dctool" -q compress "data/$img.png" -o "$O/${img}_${mode}_q$q.png" --mode "$mode" --quality "$q" \
        --report "$O/${img}_${mode}_q$q.json" > /dev/null
    done
  done
done
# PNG -> exact float matrix through dctool itself (lot then its inverse, f64; rounded below).
for f in data/camera.png "$O/camera_jpeg_q10.png" "$O/camera_lot_q10.png"; do
  n=$(basename "$f" .png)
  "$B/dctool" -q -p f64 lot "$f" -o "$O/$n.coef.npy"
  "$B/dctool" -q -p f64 lot --inverse "$O/$n.coef.npy" -o "$O/$n.npy"
done
"$PY" - "$O" <<'EOF'
import json, struct, sys, zlib
import numpy as np
o = sys.argv[1]
rows = []
for img in ("camera", "astronaut"):
    for q in (10, 30, 50):
        r = {m: json.load(open(f"{o}/{img}_{m}_q{q}.json")) for m in ("jpeg", "lot")}
        rows.append(f"| {img} | {q} | " + " | ".join(
            f"{r['jpeg'][k]:.{p}f} / {r['lot'][k]:.{p}f}" for k, p in
            (("psnr_db", 2), ("entropy_bpp", 3), ("blockiness", 2))) + f" | {r['jpeg']['blockiness_input']:.2f} |")
table = ["| image | quality | PSNR dB (jpeg / lot) | entropy bpp (jpeg / lot) | blockiness (jpeg / lot) | blockiness of the input |",
         "| --- | ---: | ---: | ---: | ---: | ---: |"] + rows
open(f"{o}/table.md", "w").write("\n".join(table) + "\n")
print("\n".join(table))

def write_png(path, a):  # 8-bit grayscale, filter 0 on every row
    a = np.clip(np.rint(a), 0, 255).astype(np.uint8)
    raw = b"".join(b"\x00" + a[i].tobytes() for i in range(a.shape[0]))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", a.shape[1], a.shape[0], 8, 0, 0, 0, 0))
    open(path, "wb").write(png + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))

# A 160x160 crop (the cameraman's head and camera), pixels doubled: original | jpeg Q10 | lot Q10.
y0, x0, n = 40, 180, 160
parts = [np.load(f"{o}/{name}.npy")[y0:y0 + n, x0:x0 + n] for name in ("camera", "camera_jpeg_q10", "camera_lot_q10")]
gap = np.full((n, 4), 255.0)
side = np.hstack([parts[0], gap, parts[1], gap, parts[2]])
write_png(f"{o}/camera_q10_side_by_side.png", np.kron(side, np.ones((2, 2))))
print(f"picture: {o}/camera_q10_side_by_side.png (original | jpeg Q10 | lot Q10)")
EOF
