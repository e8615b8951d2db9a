#!/usr/bin/env python3
"""Writes COUNT JPEG photographs (quality 92, 1920x1080 unless WxH says) made from the repository's sample images:
scaled, cropped, flipped or rotated and given a little grain so that no two are alike. Deterministic.

Usage: scripts/bench/make_photos.py OUT_DIR [COUNT] [WxH]   (python3 with Pillow and numpy)"""
import glob
import os
import sys

import numpy as np
from PIL import Image


def main() -> None:
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    w, h = (int(v) for v in sys.argv[3].split("x")) if len(sys.argv) > 3 else (1920, 1080)
    here = os.path.dirname(os.path.abspath(__file__))
    srcs = sorted(glob.glob(os.path.join(here, "..", "..", "data", "*.png")))
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(2026)
    for k in range(count):
        im = Image.open(srcs[k % len(srcs)]).convert("RGB")
        if k % 4 == 1:
            im = im.transpose(Image.FLIP_LEFT_RIGHT)
        elif k % 4 == 2:
            im = im.transpose(Image.FLIP_TOP_BOTTOM)
        elif k % 4 == 3:
            im = im.rotate(7, resample=Image.BICUBIC, expand=False)
        scale = max(w, h) + 80 + (k * 137) % 1400
        im = im.resize((scale, scale), Image.BICUBIC)
        ox, oy = (k * 53) % 300, (k * 31) % 200
        a = np.asarray(im.crop((ox, oy, ox + w, oy + h)), dtype=np.float32)
        a += rng.normal(0.0, 2.0, a.shape)
        Image.fromarray(np.clip(a + 0.5, 0, 255).astype(np.uint8)).save(
            os.path.join(out, "photo%02d.jpg" % k), quality=92)


if __name__ == "__main__":
    main()
