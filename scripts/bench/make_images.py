#!/usr/bin/python3
"""Synthetic RGB test images for compress benchmarks (smooth gradients, rings and texture, so that PNG
stays small while the 8x8 DCT sees real content): make_images.py OUT.png HEIGHT WIDTH [SEED] [--gray] [--texture].
--gray writes 8-bit gray (the first plane); --texture adds noise (makes the PNG large)."""
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
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out, h, w = args[0], int(args[1]), int(args[2])
    seed = int(args[3]) if len(args) > 3 else 0
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.hypot(y - h / 2, x - w / 2)
    rng = np.random.default_rng(seed)
    base = 128 + 60 * np.sin(r / (17 + seed)) + 40 * np.cos(x / 53) * np.sin(y / 71)
    img = np.stack([base, 255 - base * 0.8, 0.5 * base + 0.25 * x / w * 255], axis=2)
    if "--texture" in flags:
        img += rng.integers(-3, 4, size=(h, w, 1))
    if "--gray" in flags:
        img = img[:, :, :1]
    write_png(out, np.clip(img, 0, 255).astype(np.uint8))


if __name__ == "__main__":
    main()
