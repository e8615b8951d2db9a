#!/usr/bin/python3
"""Synthetic RGB test images for compress benchmarks (smooth gradients, rings and texture, so that PNG
stays small while the 8x8 DCT sees real content): compress-bench-images.py OUT.png HEIGHT WIDTH [SEED].
With DCTOOL_BENCH_GRAY=1 in the environment the image is 8-bit gray (the first plane)."""
import os
import struct
import sys
import zlib

import numpy as np


def write_png(path, a):
    h, w, c = a.shape
    kind = {1: 0, 3: 2}[c]  # PNG colour type: gray, RGB
    raw = b"".join(b"\x00" + a[i].tobytes() for i in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, kind, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def main():
    out, h, w = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.hypot(y - h / 2, x - w / 2)
    rng = np.random.default_rng(seed)
    base = 128 + 60 * np.sin(r / (17 + seed)) + 40 * np.cos(x / 53) * np.sin(y / 71)
    img = np.stack([base, 255 - base * 0.8, 0.5 * base + 0.25 * x / w * 255], axis=2)
    if len(sys.argv) > 5:  # optional texture (makes the PNG large)
        img += rng.integers(-3, 4, size=(h, w, 1))
    if os.environ.get("DCTOOL_BENCH_GRAY") == "1":
        img = img[:, :, :1]
    write_png(out, np.clip(img, 0, 255).astype(np.uint8))


if __name__ == "__main__":
    main()
