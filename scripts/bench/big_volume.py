#!/usr/bin/env python3
"""A 3-D volume whose DCT-II is known in closed form, and the check of a transform of it (scripts/gpu-check.sh,
phase volume: a distributed transform of an array larger than one GPU).

  big_volume.py make PATH D0 D1 D2     writes PATH.npy (float32, C order): x = sum_t a_t(i) b_t(j) c_t(k), t = 1, 2,
                                       with seeded random factors (never all zero)
  big_volume.py check PATH OUT [N]     compares N lines of OUT (default 24 along axis 2 and 8 along axis 0, at seeded
                                       positions) with sum_t A_t(k0) B_t(k1) C_t(k2), A = scipy.fft.dct(a, 2) in f64
                                       (norm backward: dctool dct --type 2), and prints the relative L2 error

A separable sum transforms factor by factor, so every output line is known exactly without transforming the whole
volume again; two terms with random factors leave no structure a wrong index or exchange could keep.
"""
import concurrent.futures
import os
import sys

import numpy as np
import scipy.fft


def factors(dims, seed=30):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(n) + 0.5 for n in dims] for _ in range(2)]


def make(path, dims):
    x = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=tuple(dims))
    terms = factors(dims)
    planes = [np.outer(b, c).astype(np.float32) for _, b, c in terms]
    weights = [a.astype(np.float32) for a, _, _ in terms]
    step = max(1, (1 << 24) // (dims[1] * dims[2]))

    def fill(i0):  # rows i0 .. i0 + step of axis 0 (numpy's arithmetic runs outside the GIL)
        i1 = min(dims[0], i0 + step)
        block = weights[0][i0:i1, None, None] * planes[0][None]
        block += weights[1][i0:i1, None, None] * planes[1][None]
        x[i0:i1] = block

    with concurrent.futures.ThreadPoolExecutor(max_workers=min(16, os.cpu_count() or 1)) as pool:
        list(pool.map(fill, range(0, dims[0], step)))
    x.flush()


def check(path, out, lines):
    x = np.load(path, mmap_mode="r")
    y = np.load(out, mmap_mode="r")
    dims = x.shape
    if y.shape != dims:
        sys.exit(f"shape {y.shape} != {dims}")
    spectra = [[scipy.fft.dct(f, 2) for f in t] for t in factors(dims)]
    rng = np.random.default_rng(31)
    num = den = 0.0
    for n in range(lines):
        k0, k1, k2 = (int(rng.integers(0, d)) for d in dims)
        if n % 4 == 3:  # along axis 0
            want = sum(A * B[k1] * C[k2] for A, B, C in spectra)
            got = np.asarray(y[:, k1, k2], dtype=np.float64)
        else:  # along axis 2
            want = sum(A[k0] * B[k1] * C for A, B, C in spectra)
            got = np.asarray(y[k0, k1, :], dtype=np.float64)
        num += float(np.sum((got - want) ** 2))
        den += float(np.sum(want**2))
    err = (num / den) ** 0.5
    print(f"{lines} lines of {out} {dims}: relative L2 error {err:.3g} against the closed form (f64)")
    return err


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], [int(v) for v in sys.argv[3:6]])
    else:
        e = check(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 32)
        sys.exit(0 if e <= 1e-5 else 1)
