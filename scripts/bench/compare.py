#!/usr/bin/python3
"""Compares two sets of sweep CSVs (scripts/bench/sweeps.sh output) measured in the same device call:

  compare.py NEW_DIR OLD_DIR [--tolerance 0.03]

For every (capability, op, backend, precision, shape, batch) present in both, the ratio new median / old median;
per capability the geometric mean, the range, and the rows outside 1 ± tolerance. Exit status 0 always (it reports;
a human judges noise). Peer CSVs are skipped."""
import argparse
import csv
import glob
import math
import os


def load(directory):
    rows = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.csv"))):
        cap = os.path.basename(path).rsplit("-", 1)[0]
        if cap.startswith("peer"):
            continue
        with open(path) as f:
            lines = [line for line in f if not line.startswith("#")]
        for r in csv.DictReader(lines):
            if not r.get("median_ms"):
                continue
            key = (cap, r["op"], r["backend"], r["precision"], r["shape"], r["batch"])
            rows[key] = float(r["median_ms"])
    return rows


def main():
    ap = argparse.ArgumentParser(description="new/old median ratios of two sets of sweep CSVs")
    ap.add_argument("new_dir")
    ap.add_argument("old_dir")
    ap.add_argument("--tolerance", type=float, default=0.03)
    a = ap.parse_args()
    tol = a.tolerance
    new, old = load(a.new_dir), load(a.old_dir)
    common = sorted(set(new) & set(old))
    by_cap = {}
    for k in common:
        by_cap.setdefault(k[0], []).append((k, new[k] / old[k]))
    print(f"| capability | rows | geomean new/old | min | max | rows outside ±{tol:.0%} |")
    print("| --- | --- | --- | --- | --- | --- |")
    for cap, items in by_cap.items():
        ratios = [r for _, r in items]
        gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        out = [(k, r) for k, r in items if abs(r - 1) > tol]
        print(f"| {cap} | {len(items)} | {gm:.3f} | {min(ratios):.3f} | {max(ratios):.3f} | {len(out)} |")
    print()
    for cap, items in by_cap.items():
        for k, r in items:
            if abs(r - 1) > tol:
                print(f"{cap}: {k[1]} {k[2]} {k[3]} {k[4]} x{k[5]}: new {new[k]:.5g} ms, old {old[k]:.5g} ms, ratio {r:.3f}")
    only = sorted(set(new) ^ set(old))
    if only:
        print(f"\n{len(only)} rows in one set only (e.g. {only[0]})")


if __name__ == "__main__":
    main()
