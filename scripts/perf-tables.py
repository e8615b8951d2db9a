#!/usr/bin/python3
"""Markdown tables for README's Performance section from gpu-check's bench CSVs.
Usage: scripts/perf-tables.py DIR   (DIR holds bench-2d.csv, bench-1d.csv, bench-block8.csv, bench-dct4-*.csv)"""
import csv
import os
import sys


def load(path):
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def f(x, d=4):
    return f"{float(x):.{d}g}"


def table_v(rows):
    by = {(r["op"], r["backend"], r["precision"], r["shape"]): r for r in rows}
    shapes = list(dict.fromkeys(r["shape"] for r in rows))
    out = []
    for prec in ("f64", "f32"):
        out.append(f"\n{prec}, ms (ratios in parentheses; FFT = cuFFT R2C for dct2, C2R for idct2, same shape, same run):\n")
        out.append("| N1 | N2 | DCT2D row-column | DCT2D via RFFT2D (cuda-fft2d) | RFFT2D | IDCT2D row-column | IDCT2D via IRFFT2D (cuda-fft2d) | IRFFT2D |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for s in shapes:
            cells = []
            for op in ("dct2", "idct2"):
                rc, fd = by.get((op, "cuda-rowcol", prec, s)), by.get((op, "cuda-fft2d", prec, s))
                if not rc or not fd:
                    cells += ["", "", ""]
                    continue
                t_fd = float(fd["median_ms"])
                t_fft = t_fd / float(fd["x_fft"])
                cells += [f"{f(rc['median_ms'])} ({float(rc['median_ms']) / t_fd:.2f}×)", f"{f(t_fd)} (1)",
                          f"{f(t_fft)} ({t_fft / t_fd:.2f})"]
            n1, n2 = s.split("x")
            out.append(f"| {n1} | {n2} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def table_iv(rows):
    algs = [("cuda-1d-4n", "4N"), ("cuda-1d-2n-mirror", "mirrored 2N"), ("cuda-1d-2n-pad", "padded 2N"), ("cuda-1d-n", "N-point")]
    by = {(r["op"], r["backend"], r["precision"], r["shape"]): r for r in rows}
    out = ["| op | prec | N | " + " | ".join(f"{n} µs" for _, n in algs) + " |", "| --- | --- | --- |" + " --- |" * len(algs)]
    for op in ("dct2", "idct2"):
        for prec in ("f64", "f32"):
            for s in dict.fromkeys(r["shape"] for r in rows):
                cells = [f"{float(by[(op, b, prec, s)]['median_ms']) * 1000:.1f}" if (op, b, prec, s) in by else "" for b, _ in algs]
                out.append(f"| {op} | {prec} | {s.split('x')[1]} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def plain(rows, cols=("op", "backend", "precision", "shape", "median_ms", "gbps", "x_copy", "x_fft", "e2e_ms", "max_rel_err")):
    out = ["| " + " | ".join(cols) + " |", "|" + " --- |" * len(cols)]
    for r in rows:
        out.append("| " + " | ".join(r[c] for c in cols) + " |")
    return "\n".join(out)


def main():
    d = sys.argv[1]
    print("### Table V layout\n" + table_v(load(os.path.join(d, "bench-2d.csv"))))
    print("\n### Table IV layout\n" + table_iv(load(os.path.join(d, "bench-1d.csv"))))
    for name in ("bench-block8", "bench-dct4-n17", "bench-dct4-fft"):
        rows = load(os.path.join(d, name + ".csv"))
        if rows:
            print(f"\n### {name}\n" + plain(rows))


if __name__ == "__main__":
    main()
