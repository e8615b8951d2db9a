#!/usr/bin/python3
"""Writes the golden vectors of data/golden/ (README, Testing): scipy.fft results the CPU tests compare with.

For every shape one input, data/golden/input_<H>x<W>.npy (float64, uniform in [-1, 1), fixed seed), and
for every (op, norm, axis, shape) one expected output, data/golden/<op>_<norm>_<axis>_<H>x<W>.out.npy:
  dct2  = scipy.fft.dctn(x, type=2, norm, axes)     idct2 = scipy.fft.idctn(x, type=2, norm, axes)
  dct4  = scipy.fft.dctn(x, type=4, norm, axes)     idct4 = scipy.fft.idctn(x, type=4, norm, axes)
  norm none -> norm=None ("backward"), ortho -> norm="ortho"
  axis both -> axes=(0, 1), rows -> axes=(-1,), cols -> axes=(0,)
data/golden/manifest.txt lists one case per line: name op norm axis shape input output.
Run from anywhere: /usr/bin/python3 scripts/make_golden.py
"""
import os

import numpy as np
import scipy
import scipy.fft

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "data", "golden")

SHAPES = [(1, 1), (1, 8), (8, 1), (5, 7), (17, 31)]
OPS = {"dct2": (scipy.fft.dctn, 2), "idct2": (scipy.fft.idctn, 2),
       "dct4": (scipy.fft.dctn, 4), "idct4": (scipy.fft.idctn, 4)}
NORMS = {"none": None, "ortho": "ortho"}
AXES = {"both": (0, 1), "rows": (-1,), "cols": (0,)}


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20240607)
    lines = ["# dctool golden vectors: scipy %s, numpy %s; regenerate with scripts/make_golden.py"
             % (scipy.__version__, np.__version__),
             "# name op norm axis shape input output"]
    for h, w in SHAPES:
        shape = "%dx%d" % (h, w)
        x = rng.uniform(-1.0, 1.0, size=(h, w)).astype(np.float64)
        in_name = "input_%s.npy" % shape
        np.save(os.path.join(OUT, in_name), x)
        for op, (fn, kind) in OPS.items():
            for norm, scipy_norm in NORMS.items():
                for axis, axes in AXES.items():
                    name = "%s_%s_%s_%s" % (op, norm, axis, shape)
                    y = fn(x, type=kind, norm=scipy_norm, axes=axes)
                    out_name = name + ".out.npy"
                    np.save(os.path.join(OUT, out_name), np.ascontiguousarray(y, dtype=np.float64))
                    lines.append(" ".join([name, op, norm, axis, shape, in_name, out_name]))
    with open(os.path.join(OUT, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
