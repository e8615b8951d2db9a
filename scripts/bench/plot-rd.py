#!/usr/bin/python3
"""Rate-distortion plot from compress reports: PSNR against bits per pixel, one curve per tool, mode and sampling.

  plot-rd.py REPORT.json [MORE.json ...] -o rd.png [--per-image] [--title TEXT]

Each report is what `dctool compress ... --report FILE.json` writes (an object or an array of objects), or what
scripts/bench/rd-cjpeg.sh prints for cjpeg (entries with "tool": "cjpeg"). The rate is `bpp` (the file's true
rate) where the entry has it, else `entropy_bpp` (the zeroth-order estimate: dashed, marked "est."). Without
--per-image the points of one curve are the means over the images at each parameter value (quality, threshold or
keep); with it every image gets its own curve. Entries with an "error" are skipped.
"""
import argparse
import json
import sys
from collections import defaultdict

try:
    import matplotlib
except ImportError:
    sys.exit("plot-rd.py: needs matplotlib (Debian: apt-get install python3-matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PARAMS = ("quality", "threshold", "keep")


def entries(path):
    with open(path) as f:
        data = json.load(f)
    return data if isinstance(data, list) else [data]


def curve_key(e, per_image):
    tool, mode = e.get("tool", "dctool"), e.get("mode", "?")
    label = f"{tool} {mode}"
    if mode == "jpeg":
        sampling = str(e.get("sampling", "444"))
        label += " " + {"420": "4:2:0", "444": "4:4:4"}.get(sampling, sampling)
    estimated = e.get("bpp") is None
    if estimated:
        label += " (est. entropy_bpp)"
    if per_image:
        label += " " + e.get("input", "").rsplit("/", 1)[-1]
    return label, estimated


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("-o", "--output", required=True, help="the picture (.png, .svg, .pdf)")
    ap.add_argument("--per-image", action="store_true", help="one curve per image instead of the mean")
    ap.add_argument("--title", default="PSNR against rate")
    a = ap.parse_args()

    curves = defaultdict(lambda: defaultdict(list))  # (label, estimated) -> param -> [(bpp, psnr)]
    for path in a.reports:
        for e in entries(path):
            if "error" in e or e.get("psnr_db") is None:
                continue
            rate = e.get("bpp", e.get("entropy_bpp"))
            if rate is None:
                continue
            param = next((e[p] for p in PARAMS if p in e), None)
            curves[curve_key(e, a.per_image)][param].append((float(rate), float(e["psnr_db"])))
    if not curves:
        sys.exit("plot-rd.py: no entries with a PSNR and a rate in " + ", ".join(a.reports))

    fig, ax = plt.subplots(figsize=(8, 5.5))
    for (label, estimated), points in sorted(curves.items()):
        xy = []
        for pts in points.values():
            xy.append((sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)))
        xy.sort()
        style = dict(linestyle="--" if estimated else "-", marker="o", markersize=3)
        if label.startswith("cjpeg"):
            style.update(color="black", linewidth=2.2)
        ax.plot([p[0] for p in xy], [p[1] for p in xy], label=label, **style)
    ax.set_xlabel("bits per pixel")
    ax.set_ylabel("PSNR (dB)")
    ax.set_title(a.title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(a.output)


if __name__ == "__main__":
    main()
