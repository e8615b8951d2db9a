#!/usr/bin/python3
"""Independent references for `dctool compress` (used by tests/app/test_compress.cpp; numpy/scipy only).

  compress-reference.py crop IN.png ROWS COLS OUT.pnm     crop the top-left corner, write PGM/PPM
  compress-reference.py topnm IN.png OUT.pnm              PNG -> PGM/PPM
  compress-reference.py psnr A B                          PSNR (peak 255) of two PNG/PGM/PPM images
  compress-reference.py whole IN MODE PARAM OUT.npy       scipy whole-image ortho DCT-II per channel,
                                                          threshold E or keep F, idctn, round, clamp
  compress-reference.py compare REF.npy TEST.png          PSNR of TEST against REF.npy (peak 255)
PNG reading: the dependency-free reader of tests/app (dctest.py), imported from the same directory as
the file named by $DCTEST_PY.
"""
import math
import os
import sys

import numpy as np


def _dctest():
    import importlib.util
    spec = importlib.util.spec_from_file_location("dctest", os.environ["DCTEST_PY"])
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def read_pnm(path):
    d = open(path, "rb").read()
    fields, i = [], 0
    while len(fields) < 4:
        while d[i:i + 1].isspace():
            i += 1
        if d[i:i + 1] == b"#":
            while d[i:i + 1] != b"\n":
                i += 1
            continue
        j = i
        while not d[j:j + 1].isspace():
            j += 1
        fields.append(d[i:j])
        i = j
    i += 1
    w, h = int(fields[1]), int(fields[2])
    c = 3 if fields[0] == b"P6" else 1
    a = np.frombuffer(d, dtype=np.uint8, count=w * h * c, offset=i)
    return a.reshape((h, w, c) if c == 3 else (h, w))


def read_image(path):
    if path.lower().endswith((".pgm", ".ppm")):
        return read_pnm(path)
    return _dctest().read_png(path)


def write_pnm(path, a):
    a = np.ascontiguousarray(a, dtype=np.uint8)
    h, w = a.shape[:2]
    head = (b"P5\n%d %d\n255\n" if a.ndim == 2 else b"P6\n%d %d\n255\n") % (w, h)
    open(path, "wb").write(head + a.tobytes())


def psnr(x, y):
    m = np.mean((x.astype(np.float64) - y.astype(np.float64)) ** 2)
    return float("inf") if m == 0 else 10 * math.log10(255.0 ** 2 / m)


def whole(path, mode, param, out):
    import scipy.fft as F
    x = read_image(path).astype(np.float64)
    planes = [x] if x.ndim == 2 else [x[:, :, c] for c in range(x.shape[2])]
    rec = []
    for p in planes:
        c = F.dctn(p, norm="ortho")
        if mode == "threshold":
            c[np.abs(c) < float(param)] = 0
        else:
            k = math.ceil(float(param) * (p.shape[0] * p.shape[1]))
            flat = c.ravel()
            order = np.argsort(-np.abs(flat), kind="stable")
            flat[order[k:]] = 0
            c = flat.reshape(p.shape)
        rec.append(np.clip(np.floor(F.idctn(c, norm="ortho") + 0.5), 0, 255))
    np.save(out, rec[0] if len(rec) == 1 else np.stack(rec, axis=2))


def main():
    cmd = sys.argv[1]
    if cmd == "crop":
        write_pnm(sys.argv[5], read_image(sys.argv[2])[: int(sys.argv[3]), : int(sys.argv[4])])
    elif cmd == "topnm":
        write_pnm(sys.argv[3], read_image(sys.argv[2]))
    elif cmd == "psnr":
        print("%.6f" % psnr(read_image(sys.argv[2]), read_image(sys.argv[3])))
    elif cmd == "whole":
        whole(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif cmd == "compare":
        print("%.6f" % psnr(np.load(sys.argv[2]), read_image(sys.argv[3])))
    else:
        raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    main()
