#!/usr/bin/python3
"""Regenerates docs/performance.md and its plots (docs/img/perf-*.png) from bench/results/*.csv.

    /usr/bin/python3 scripts/bench/make_performance_docs.py [--results DIR] [--doc FILE] [--img DIR]

Inputs: bench/results/<capability>-<device>.csv, each the output of `dctool bench --format csv` (or, for
peer-vkfft, of ../shared/peers/vkbench; for peer-vkfft-r2r, of scripts/bench/peers/vkbench_r2r) preceded by
`# command: ...` (one or more), `# device: ...` and `# date: YYYY-MM-DD` lines, as scripts/bench/sweeps.sh writes
them. Capabilities: dct2d (Table V layout), dct1d (Table IV), block8, dct4, lot, r2r (tables only), jpeg, peer-vkfft,
peer-vkfft-r2r, batch-jpeg (scripts/bench/batch_peers.sh's CSV); any other name is shown with the generic table and plot. Works with whatever subset exists (no r2r
or peer-vkfft-r2r file: no section for them); every table and plot holds one device only. --results DIR reads
another directory (e.g. a scratch copy), --doc and --img write elsewhere. Needs matplotlib (Debian:
python3-matplotlib).
Numbers from the CSVs are printed as they are; derived ones (copy / cuFFT times, ratios) are marked as such.
"""
import argparse
import csv
import math
import os
import re
import statistics
import sys
from collections import OrderedDict, defaultdict

try:
    import matplotlib
except ImportError:
    sys.exit("make_performance_docs.py: needs matplotlib (Debian: apt-get install python3-matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import LogFormatterSciNotation, NullLocator  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMAND = "/usr/bin/python3 scripts/bench/make_performance_docs.py"
IMG_PREFIX = "perf-"
KNOWN = ["dct2d", "shapes", "dct1d", "block8", "dct4", "lot", "r2r", "volumes", "jpeg", "peer-vkfft",
         "peer-vkfft-dct4", "peer-vkfft-r2r", "peer-vkfft-volumes", "peer-vkfft-batch2d", "batch-jpeg", "oneshot",
         "distributed", "cpu2d"]
# what sweeps.sh writes (jpeg is optional; r2r and peer-vkfft-r2r are listed where measured, not yet asked for)
EXPECTED = ["dct2d", "shapes", "dct1d", "block8", "dct4", "lot", "peer-vkfft"]
TITLES = {
    "dct2d": "2-D DCT-II / DCT-III (Table V layout)",
    "shapes": "2-D DCT-II / DCT-III on image and random smooth shapes",
    "dct1d": "1-D DCT-II / DCT-III along rows (Table IV layout)",
    "block8": "8×8 block DCT",
    "dct4": "DCT-IV",
    "lot": "8×8 lapped orthogonal transform (LOT)",
    "r2r": "Real-to-real transforms: 3-D DCT, DCT-I, DST, many small matrices",
    "volumes": "3-D DCT-II of volumes whose sides are not all powers of two",
    "jpeg": "JPEG round trip",
    "batch-jpeg": "Batch JPEG compression, beside its peers",
    "oneshot": "One input on its own, end to end",
    "distributed": "One array over the GPUs of one process",
    "cpu2d": "2-D DCT-II / DCT-III on the CPU, beside scipy.fft",
    "peer-vkfft": "dctool and VkFFT",
    "peer-vkfft-dct4": "dctool and VkFFT: batched DCT-IV",
    "peer-vkfft-r2r": "dctool and VkFFT: real-to-real transforms",
    "peer-vkfft-volumes": "dctool and VkFFT: 3-D volumes",
    "peer-vkfft-batch2d": "dctool and VkFFT: batches of small matrices",
}
INTROS = {
    "distributed": "`dctool --devices 0|all bench --distributed` (`scripts/bench/distributed_gpus.sh`): one transform "
                   "of the whole array split into slabs over the GPUs of one process (`gpus`), the data kept on the "
                   "devices, the exchange by peer copies between them (docs/distributed.md). `exchange_ms` is the "
                   "part of the exchange past the slab step (its copies overlap the step); `exchange_gbps` the rate "
                   "of those copies timed alone, `alltoall_gbps` that of plain copies of the same bytes between the "
                   "devices, `x_alltoall` the ratio of their times. docs/distributed.md compares these rows with one "
                   "GPU's plan of the whole array and VkFFT in the same run.",
    "oneshot": "Whole commands on files (`scripts/bench/oneshot.sh`): `dctool dct2 IN.npy -o OUT.npy`, one new "
               "process per run, the files on a RAM disk, medians of 3 in ms with the commands interleaved, beside "
               "`cat IN > OUT` (reading and writing the same bytes). `auto_ms` is dctool's own choice (`auto_backend`: "
               "the CPU where the host's cores finish before a GPU has started), `gpu_ms` `-b cuda-fft2d` and "
               "`cpu_ms` `-b cpu-fftw`, both streamed by parts; `gpu_whole_arrays_ms` is the GPU through whole "
               "host arrays (a `.raw` output, not streamed).",
    "batch-jpeg": "Whole tools on files (`scripts/bench/batch_peers.sh`): 1920×1080 JPEG photographs (30, or the "
                  "30 repeated on a many-core host) re-encoded to `.jpg` at quality 50, wall time and CPU time (user "
                  "+ system) per run, medians of 3 with the tools interleaved. dctool's default is 4:4:4, cjpeg's and "
                  "mogrify's 4:2:0 (half the chroma blocks): compare dctool with `djpeg_cjpeg_444` and `dctool_420` "
                  "with `djpeg_cjpeg` and `mogrify`. `dctool` is `-b auto` (on a GPU host: the GPU's coefficient "
                  "path in a large batch), `dctool_cpu` `-b cpu`, `dctool_gpu` `-b cuda-jpeg-fused`; their files are "
                  "identical. dctool also measures each output's PSNR; the peers do not.",
    "dct2d": "Whole-matrix 2-D DCT-II (`dct2`) and its inverse DCT-III (`idct2`), `--axis both`: the row-column "
             "baseline (`cuda-rowcol`) against the route through one 2-D real FFT (`cuda-fft2d`), in f64 and f32. "
             "The cuFFT column is cuFFT's R2C (for `dct2`) or C2R (for `idct2`) 2-D transform of the same shape, "
             "timed in the same process (median ÷ x_fft).",
    "shapes": "Whole-matrix `dct2` / `idct2` on photograph shapes (1080p, 4K, 12 and 24 MP, …) and 40 random smooth "
              "shapes (sides of prime factors 2…13): `cuda-fft2d-smooth` (one kernel per axis; kernels compiled "
              "for common photograph sides, the rest at run time; long columns in two kernels, the FFT split "
              "four-step) against `cuda-fft2d-cufft` (reorder + cuFFT 2-D plan + postprocess), and `cuda-fft2d`, "
              "which takes one of the two: by a measured rule (the smooth route where both sides have compiled "
              "kernels and the matrix is small enough, f64 matrices of at most 3000 rows and 512 columns or more, "
              "dct2 of sides from 120 to 8192 whose two FFTs take at most 10 passes (decisions.md §10), and dct2 of "
              "matrices of 512 columns or more whose columns are past 6456 rows, in f32 those of at most 10 passes "
              "too; decisions.md §14), or, "
              "planned with `--effort measure`, the faster of the two.",
    "dct1d": "1-D DCT-II / DCT-III of one row of N points (`--axis rows`, shape 1×N) by the four 1-D algorithms: "
             "4N-point, mirrored 2N-point, zero-padded 2N-point and N-point real FFTs.",
    "block8": "Independent 8×8 blocks (`--block 8 --norm ortho`, the JPEG transform): the butterfly kernel "
              "(`cuda-8x8`) against the definition (`cuda-8x8-def`), f32.",
    "dct4": "DCT-IV along rows. N = 17 (shapes 1×17 and 2^20×17): the classical O(N²) kernel (`cuda-dct4-direct`), "
            "the 4- and 8-section kernels, the short-line kernel (`cuda-dct4-small`, N ≤ 63) and the FFT route; "
            "then `cuda-dct4-small` and `cuda-dct4-fft` batched (about 2^24 elements per transform set) at N = 8 … "
            "64, 100, 1000, 1023 and 4097 (f32, f64); then the FFT route (`--norm ortho`) at N = 256, 1023, 1024 and 4096, forward (`dct4`) and inverse (`idct4`). "
            "For a single 1×17 transform the end-to-end time (`e2e_ms`, transfers included) is the figure to read; "
            "kernel times at that size are launch latency.",
    "lot": "8×8 lapped orthogonal transform (Malvar), forward (`lot`, H×W → (H+8)×(W+8)) and inverse (`ilot`): "
           "the GPU kernel (`cuda-lot`) beside the CPU implementation on the host's cores (`cpu-lot`; its x_copy and "
           "x_fft are against a host memcpy and FFTW r2c, its device column names the CPU).",
    "r2r": "The real-to-real family on the GPU (FFTW's r2r kinds, norm `none`): 3-D DCT-II and DCT-III on every axis "
           "(`r2r:dct2+dct2+dct2`, `r2r:dct3+dct3+dct3`), 2-D DCT-I, DST-I, DST-II and DST-III on both axes (`dct1`, "
           "`dst1`, `dst2`, `dst3`; 4097² is a Chebyshev grid, whose DCT-I FFT length is a power of two), "
           "and 20000 matrices of 240×240 in one call (`--batch 20000`: `dct2` by "
           "`cuda-fft2d` and `cuda-fft2d-smooth`, `r2r:dct2+dct2` by `cuda-r2r`). Shapes are DxHxW or HxW, the last axis "
           "contiguous. `dctool bench` has no cuFFT baseline for 3-D shapes (x_fft empty there); its x_fft of the "
           "real-to-real ops is against cuFFT's R2C of the shape, also for the type-III kinds.",
    "jpeg": "JPEG round trip.",
    "cpu2d": "Whole-matrix `dct2` / `idct2` on the host's cores (`scripts/bench/cpu2d.sh`): `cpu-fftw` (reorder, "
             "FFTW's 2-D r2c / c2r, postprocess), FFTW's own REDFT10 of the matrix (`baseline:plain-dct2`, dct2 "
             "only) and scipy.fft's `dctn` / `idctn` (type 2, its default norm, as many workers as cores), timed "
             "side by side. x_copy and x_fft are against a host memcpy and FFTW's r2c (c2r) of the shape.",
}
DCTOOL_COLS = ["op", "axis", "backend", "precision", "shape", "batch", "reps", "median_ms", "min_ms", "max_ms", "gbps",
               "x_copy", "x_fft", "e2e_ms", "cpu_ms", "max_rel_err", "device"]
PEER_COLS = ["peer", "op", "precision", "shape", "batch", "median_ms", "min_ms", "copy_ms", "fft_ms", "x_copy",
             "x_fft", "max_rel_err"]
INVERSE_OPS = {"idct2", "idct4", "ilot"}
# Development-history words the generated page must not carry (split so that this line does not match itself).
FORBIDDEN = re.compile(r"\bsess" r"ions?\b|\bru" r"n ?[0-9]+\b|\bcal" r"l[0-9]+\b", re.I)
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
REF_COLOR = {"copy": "#555555", "fft": "#000000"}
OFF_MARKERS = ["^", "v", "s", "D", "P", "X"]


def warn(msg):
    print("make_performance_docs: warning: " + msg, file=sys.stderr)


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def g4(v):
    return "–" if v is None else f"{v:.4g}"


def cell(s):
    return s if s not in (None, "") else "–"


def shape_hw(shape):
    try:
        h, w = shape.lower().split("x")
        return int(h), int(w)
    except ValueError:
        return None


def elements(row):
    hw = shape_hw(row["shape"])
    if hw is None:
        return None
    b = num(row.get("batch")) or 1
    return hw[0] * hw[1] * b


def slug_of(device):
    d = device.upper()
    for s in ("H100", "H200"):
        if s in d:
            return s.lower()
    d = re.sub(r"^nvidia\s+", "", device.strip(), flags=re.I).lower()
    return re.sub(r"[^a-z0-9]+", "-", d).strip("-") or "unknown"


class Result:
    """One bench/results CSV."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.commands, self.meta, self.rows, self.header = [], {}, [], None
        lines = []
        with open(path, newline="") as fh:
            for line in fh:
                if line.startswith("#"):
                    m = re.match(r"#\s*([A-Za-z_-]+)\s*:\s*(.*?)\s*$", line)
                    if m:
                        key, val = m.group(1).lower(), m.group(2)
                        if key == "command":
                            self.commands.append(val)
                        else:
                            self.meta.setdefault(key, val)
                    continue
                if line.strip():
                    lines.append(line)
        for rec in csv.reader(lines):
            if self.header is None:
                self.header = [c.strip() for c in rec]
                continue
            if [c.strip() for c in rec] == self.header:
                continue  # a repeated header (files concatenated)
            self.rows.append(dict(zip(self.header, rec)))
        stem = self.name[:-4]
        self.cap = self.slug = None
        for cap in sorted(KNOWN, key=len, reverse=True):
            if stem.startswith(cap + "-"):
                self.cap, self.slug = cap, stem[len(cap) + 1:]
                break
        if self.cap is None:
            self.cap, _, self.slug = stem.rpartition("-") if "-" in stem else (stem, "", "")
        self.is_peer = self.header is not None and "peer" in self.header
        self.device = self.meta.get("device") or self._device_from_rows() or self.slug or "unknown device"
        if self.meta.get("device") and slug_of(self.device) != self.slug:
            warn(f"{self.name}: file name says '{self.slug}' but '# device:' says '{self.device}': "
                 f"grouped with {slug_of(self.device)}")
            self.slug = slug_of(self.device)
        if not self.slug:
            self.slug = slug_of(self.device)
        self.date = self.meta.get("date", "date not recorded")
        if not self.commands:
            warn(f"{self.name}: no '# command:' line")
        if self.header is None:
            warn(f"{self.name}: no CSV header")
        elif not self.is_peer:
            for r in self.rows:
                if r.get("backend", "").startswith("cuda-") and self.meta.get("device") and \
                        r.get("device") and not r["device"].startswith("all ") and \
                        re.sub(r"^cuda:\d+ ", "", r["device"]) != self.meta["device"]:
                    # bench --devices rows name 'cuda:N <name>' or 'all N devices at once': both fine
                    warn(f"{self.name}: a {r['backend']} row was measured on '{r['device']}', "
                         f"not '{self.meta['device']}'")
                    break

    def _device_from_rows(self):
        for r in self.rows:
            if r.get("backend", "").startswith("cuda-") and r.get("device"):
                return r["device"]
        return None


# ---------------------------------------------------------------------------------------------------- tables
def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def full_table(res):
    if res.is_peer:
        cols = [c for c in PEER_COLS if c in res.header] + [c for c in res.header if c not in PEER_COLS]
        return md_table(cols, [[cell(r.get(c)) for c in cols] for r in res.rows])
    cols = [c for c in DCTOOL_COLS if c in res.header] + [c for c in res.header if c not in DCTOOL_COLS]
    note = []
    for c in ("reps", "device", "axis"):  # constant columns go into the line above the table
        vals = {r.get(c, "") for r in res.rows}
        if c in cols and len(vals) == 1:
            cols.remove(c)
            note.append(f"{c} = {vals.pop()}")
    head = {"median_ms": "median ms", "min_ms": "min ms", "max_ms": "max ms", "gbps": "GB/s", "e2e_ms": "e2e ms",
            "cpu_ms": "cpu ms", "max_rel_err": "max rel err"}
    text = md_table([head.get(c, c) for c in cols], [[cell(r.get(c)) for c in cols] for r in res.rows])
    return (f"All rows ({', '.join(note)}):\n\n" if note else "All rows:\n\n") + text


def index(rows):
    return {(r["op"], r["backend"], r["precision"], r["shape"]): r for r in rows}


def ordered(values):
    return list(OrderedDict.fromkeys(values))


def derived(row, key):
    """median ÷ x_<key>: the copy or cuFFT time of the same shape measured in the same process."""
    m, x = num(row.get("median_ms")), num(row.get("x_" + key))
    return m / x if m is not None and x else None


def pivot_table(res):
    """Rows (op, precision, shape), one column per backend: median ms (×copy); the fastest in bold."""
    rows = res.rows
    backends = ordered(r["backend"] for r in rows)
    by = index(rows)
    out = []
    for op in ordered(r["op"] for r in rows):
        for prec in ordered(r["precision"] for r in rows if r["op"] == op):
            for shape in ordered(r["shape"] for r in rows if r["op"] == op and r["precision"] == prec):
                got = {b: by.get((op, b, prec, shape)) for b in backends}
                best = min((num(r["median_ms"]), b) for b, r in got.items() if r and num(r["median_ms"]) is not None)
                cells = []
                for b in backends:
                    r = got[b]
                    if not r:
                        cells.append("")
                        continue
                    x = f" (×{r['x_copy']})" if r.get("x_copy") else ""
                    t = f"{r['median_ms']}{x}"
                    several = sum(1 for x in got.values() if x) > 1
                    cells.append(f"**{t}**" if several and b == best[1] else t)
                out.append([op, prec, shape] + cells)
    text = md_table(["op", "precision", "shape"] + [f"{b}: ms (×copy)" for b in backends], out)
    lead = "Median ms per backend, x_copy in parentheses"
    return lead + (" (fastest in bold):" if len(backends) > 1 else ":") + "\n\n" + text


def table_v(res):
    by = index(res.rows)
    shapes = ordered(r["shape"] for r in res.rows)
    out = []
    for prec in ordered(r["precision"] for r in res.rows):
        body = []
        for s in shapes:
            cells = []
            for op in ("dct2", "idct2"):
                rc, fd = by.get((op, "cuda-rowcol", prec, s)), by.get((op, "cuda-fft2d", prec, s))
                t_fd = num(fd["median_ms"]) if fd else None
                if rc:
                    ratio = f" ({num(rc['median_ms']) / t_fd:.2f})" if t_fd else ""
                    cells.append(rc["median_ms"] + ratio)
                else:
                    cells.append("")
                cells.append(fd["median_ms"] + " (1)" if fd else "")
                fft = derived(fd, "fft") if fd else None
                if fft is None and rc:
                    fft = derived(rc, "fft")
                cells.append(f"{fft:.4g} ({fft / t_fd:.2f})" if fft and t_fd else g4(fft) if fft else "")
            if any(cells):
                hw = shape_hw(s) or ("", "")
                body.append([str(hw[0]), str(hw[1])] + cells)
        if not body:
            continue
        out.append(f"{prec}, median ms (in parentheses: ÷ cuda-fft2d of the same op):\n")
        out.append(md_table(["N1", "N2", "dct2 cuda-rowcol", "dct2 cuda-fft2d", "cuFFT R2C (derived)",
                             "idct2 cuda-rowcol", "idct2 cuda-fft2d", "cuFFT C2R (derived)"], body))
        out.append("")
    return "\n".join(out).rstrip()


# ---------------------------------------------------------------------------------------------------- plots
def save(fig, path):
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def compact(n):
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.3g}{suffix}"
    return f"{n:g}"


def shape_label(shape):
    h, w = shape_hw(shape)
    if h == w:
        return f"{h}²"
    p2 = lambda v: f"2^{v.bit_length() - 1}" if v > 8192 and v & (v - 1) == 0 else str(v)  # noqa: E731
    return f"{p2(h)}×{p2(w)}"


def element_tick(row):
    return f"{compact(elements(row))}\n({shape_label(row['shape'])})"


def panel(ax, rows, xfun, connect, title, xlabel, tick=element_tick, colors=None):
    """One subplot: median ms per backend against xfun(row), log-log; copy and cuFFT lines from the cuda-* rows.
    Rows whose shape `connect` rejects are drawn as open markers (one marker per shape), not joined. colors: a
    backend's colour across the figure's panels (default: by its order in this panel)."""
    backends = ordered(r["backend"] for r in rows)
    off_shapes = ordered(r["shape"] for r in rows if not connect(r))
    off_marker = {s: OFF_MARKERS[i % len(OFF_MARKERS)] for i, s in enumerate(off_shapes)}
    handles = []

    def draw(points, color, label, style, width, marker):
        main = sorted((x, y) for x, y, r in points if connect(r))
        if main:
            h, = ax.plot([p[0] for p in main], [p[1] for p in main], style, color=color, lw=width, marker=marker,
                         ms=5, label=label)
        else:
            h = Line2D([], [], color=color, ls=style, lw=width, marker=marker, label=label)
        handles.append(h)
        for x, y, r in points:
            if not connect(r):
                ax.plot([x], [y], ls="none", marker=off_marker[r["shape"]], mfc="none", mec=color, ms=7, mew=1.3)

    for i, b in enumerate(backends):
        pts = [(xfun(r), num(r["median_ms"]), r) for r in rows if r["backend"] == b]
        pts = [p for p in pts if p[0] and p[1]]
        draw(pts, colors[b] if colors else COLORS[i % len(COLORS)], b, "-", 1.8, "o")
    gpu = [r for r in rows if r["backend"].startswith("cuda-")]
    inverse = any(r["op"] in INVERSE_OPS for r in rows)
    for key, label, style in (("copy", "device copy of the same bytes", "--"),
                              ("fft", "cuFFT " + ("C2R" if inverse else "R2C") + " of the same shape", ":")):
        per = defaultdict(list)
        for r in gpu:
            v = derived(r, key)
            if v is not None and xfun(r):
                per[r["shape"]].append((xfun(r), v, r))
        pts = [(xs[0][0], statistics.median(v for _, v, _ in xs), xs[0][2]) for xs in per.values()]
        if pts:
            draw(pts, REF_COLOR[key], label, style, 1.4, None)
    for s in off_shapes:
        handles.append(Line2D([], [], ls="none", marker=off_marker[s], mfc="none", mec="#444444", ms=7,
                              label=f"{s} (open marker)"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    # y: label some minor ticks where the axis spans less than two decades
    ax.yaxis.set_minor_formatter(LogFormatterSciNotation(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
    # x: a few well separated sizes (the joined ones) are labelled where they are
    ticks = {}
    for r in rows:
        if connect(r) and xfun(r):
            ticks.setdefault(xfun(r), tick(r))
    xs = sorted(ticks)
    if 1 < len(xs) <= 10 and all(b / a >= 1.4 for a, b in zip(xs, xs[1:])):
        ax.set_xticks(xs)
        ax.set_xticklabels([ticks[x] for x in xs], fontsize=8)
        ax.xaxis.set_minor_locator(NullLocator())
        every = [xfun(r) for r in rows if xfun(r)]
        ax.set_xlim(min(every) / 1.5, max(every) * 1.5)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("median time (ms)")
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)
    return handles


def grid_figure(rows, path, suptitle, xfun, connect, xlabel, ops=None, precs=None, tick=element_tick):
    ops = ops or ordered(r["op"] for r in rows)
    precs = precs or ordered(r["precision"] for r in rows)
    cells = [(op, p) for p in precs for op in ops if any(r["op"] == op and r["precision"] == p for r in rows)]
    if not cells:
        return False
    ncol = len(ops) if len(cells) > 1 else 1
    nrow = math.ceil(len(cells) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.6 * ncol, 4.4 * nrow), squeeze=False)
    legend = OrderedDict()  # one legend for the figure: the union of the panels' entries
    colors = {b: COLORS[i % len(COLORS)] for i, b in enumerate(ordered(r["backend"] for r in rows))}
    for k, (op, p) in enumerate(cells):
        ax = axes[k // ncol][k % ncol]
        for h in panel(ax, [r for r in rows if r["op"] == op and r["precision"] == p], xfun, connect,
                       f"{op}, {p}", xlabel, tick, colors):
            legend.setdefault(h.get_label(), h)
    for k in range(len(cells), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    fig.suptitle(suptitle, fontsize=11)
    ncols_leg = min(len(legend), 4 if ncol > 1 else 2)
    leg_rows = math.ceil(len(legend) / ncols_leg)
    leg_h = (0.15 + 0.2 * leg_rows) / fig.get_figheight()
    fig.legend(list(legend.values()), list(legend.keys()), loc="lower center", ncol=ncols_leg, fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, leg_h, 1, 1))
    save(fig, path)
    return True


def plots_for(res, img_dir):
    """[(file name, caption)] of the figures made for one capability CSV."""
    rows = [r for r in res.rows if num(r.get("median_ms")) is not None and shape_hw(r.get("shape", ""))]
    if not rows:
        return []
    base = f"{IMG_PREFIX}{res.cap}-{res.slug}"
    dev = f"{res.device}, {res.date}"
    xl = "size (elements)"
    made = []

    def fig(name, sub, caption, **kw):
        if grid_figure(sub, os.path.join(img_dir, name), kw.pop("title") + f" — {dev}", **kw):
            made.append((name, caption))

    square = lambda r: shape_hw(r["shape"])[0] == shape_hw(r["shape"])[1]  # noqa: E731
    always = lambda r: True  # noqa: E731
    if res.cap == "dct2d":
        fig(base + ".png", rows, "2-D DCT: time against size (square sizes joined; non-square sizes as open markers)",
            title="2-D DCT-II / DCT-III", xfun=elements, connect=square, xlabel=xl, ops=["dct2", "idct2"])
    elif res.cap == "r2r":
        return []  # 3-D shapes have no HxW x axis; the tables say it
    elif res.cap == "dct4":
        n17 = [r for r in rows if shape_hw(r["shape"])[1] == 17]
        rest = [r for r in rows if shape_hw(r["shape"])[1] != 17]
        fig(base + "-n17.png", n17, "DCT-IV, N = 17: one transform and 2^20 transforms",
            title="DCT-IV, N = 17", xfun=elements, connect=always, xlabel=xl)
        # even N (N/2-point complex FFT) joined; odd N (signed permutation + N-point real FFT) as open markers
        fig(base + "-batched.png", rest, "DCT-IV batched along rows: time against transform length N "
            "(every point has about 2^24 elements; even N joined, odd N as open markers)",
            title="DCT-IV batched (about 2^24 elements)",
            xfun=lambda r: shape_hw(r["shape"])[1], connect=lambda r: shape_hw(r["shape"])[1] % 2 == 0,
            tick=lambda r: str(shape_hw(r["shape"])[1]),
            xlabel="transform length N (rows × N ≈ 2^24 elements)")
    else:
        title = TITLES.get(res.cap, res.cap)
        fig(base + ".png", rows, f"{title}: time against size", title=title, xfun=elements, connect=always,
            xlabel=xl)
    return made


# ---------------------------------------------------------------------------------------------------- peer
def peer_section(peer, results):
    """dctool against VkFFT for the op / precision / shape pairs both measured on this device."""
    mine = {r.cap: r for r in results if r.slug == peer.slug and not r.is_peer}
    source = {"dct2_2d": (("dct2d", "shapes"), "dct2"), "dct3_2d": (("dct2d", "shapes"), "idct2"),
              "dct4_1d": (("dct4",), "dct4")}
    if peer.cap == "peer-vkfft" and any(r.cap == "peer-vkfft-dct4" and r.slug == peer.slug for r in results):
        del source["dct4_1d"]  # the dct4 rows are compared with the DCT-IV peer file, measured beside them
    body = []
    for p in peer.rows:
        op = re.sub(r"(_inplace)?(_tuned)?$", "", p.get("op", ""))  # vkbench's variants: same transform
        if op not in source:
            continue
        caps, dop = source[op]
        cands = [r for cap in caps if cap in mine for r in mine[cap].rows
                 if r["op"] == dop and r["precision"] == p["precision"]
                 and r["shape"] == p["shape"] and num(r.get("median_ms")) is not None]
        if not cands:
            continue
        best = min(cands, key=lambda r: num(r["median_ms"]))
        vk, me = num(p.get("median_ms")), num(best["median_ms"])
        ratio = f"{vk / me:.2f}" if vk and me else "–"
        body.append([dop, p["precision"], p["shape"], best["backend"], best["median_ms"], cell(best.get("x_copy")),
                     cell(best.get("x_fft")), p["op"], cell(p.get("median_ms")), cell(p.get("x_copy")),
                     cell(p.get("x_fft")), ratio])
    out = []
    if body:
        out.append("Matching op, precision and shape (dctool: the fastest backend measured for it; `idct2` = VkFFT's "
                   "DCT-III; `dct4` along rows = VkFFT's batched 1-D DCT-IV). Each ×copy and ×cuFFT is against the copy "
                   "and cuFFT's R2C (C2R for the inverse) of the same shape measured in its own process; VkFFT ÷ "
                   "dctool > 1 means dctool is faster.\n")
        out.append(md_table(["op", "precision", "shape", "dctool backend", "dctool ms", "dctool ×copy",
                             "dctool ×cuFFT", "VkFFT op", "VkFFT ms", "VkFFT ×copy", "VkFFT ×cuFFT",
                             "VkFFT ÷ dctool"], body))
    else:
        have = ", ".join(sorted(mine)) or "none"
        out.append(f"No dctool rows for this device match the VkFFT shapes yet (dctool results here: {have}).")
    return "\n".join(out)


# vkbench_r2r's op -> (the dctool bench ops that are the same transform, its heading). dctool's type-III rows
# (dct3, idct2 = DCT-III / 2N) differ from VkFFT's by a scale only, which does not change the work.
R2R_PEER_OPS = OrderedDict([
    ("dct2_3d", (("r2r:dct2+dct2+dct2", "dct2"), "3-D DCT-II")),
    ("dct3_3d", (("r2r:dct3+dct3+dct3", "dct3", "idct2"), "3-D DCT-III")),
    ("dct1_2d", (("dct1", "r2r:dct1+dct1"), "2-D DCT-I")),
    ("dst2_2d", (("dst2", "r2r:dst2+dst2"), "2-D DST-II")),
    ("dst3_2d", (("dst3", "r2r:dst3+dst3"), "2-D DST-III")),
    ("dct2_2d", (("dct2", "r2r:dct2+dct2"), "2-D DCT-II of many matrices")),
    ("dct3_2d", (("idct2", "dct3", "r2r:dct3+dct3"), "2-D DCT-III of many matrices")),
])


def r2r_peer_section(peer, results):
    """dctool against VkFFT on the real-to-real family: one table per VkFFT op, the op / precision / shape / batch
    points both measured on this device (peer-vkfft-batch2d and peer-vkfft-volumes: against the rows of the
    capability measured beside them, batch2d and volumes; peer-vkfft-r2r against every other capability)."""
    paired = {"peer-vkfft-batch2d": "batch2d", "peer-vkfft-volumes": "volumes"}

    def same_run(res):
        own = paired.get(peer.cap)
        return res.cap == own if own else res.cap not in paired.values()
    mine = [r for res in results if res.slug == peer.slug and not res.is_peer and same_run(res) for r in res.rows
            if num(r.get("median_ms")) is not None and "shape" in r]  # bench rows (not distributed's dims)
    out, dagger = [], False
    for vop, (dops, heading) in R2R_PEER_OPS.items():
        body = []
        for p in peer.rows:
            if re.sub(r"(_inplace)?(_tuned)?$", "", p.get("op", "")) != vop:
                continue
            batch = num(p.get("batch")) or 1
            cands = [r for r in mine if r["op"] in dops and r["precision"] == p["precision"]
                     and r["shape"] == p["shape"] and (num(r.get("batch")) or 1) == batch]
            if not cands:
                continue
            best = min(cands, key=lambda r: num(r["median_ms"]))
            me, vk = num(best["median_ms"]), num(p.get("median_ms"))
            xfft = cell(best.get("x_fft"))
            if xfft == "–" and num(p.get("fft_ms")):
                xfft = f"{me / num(p['fft_ms']):.3g} †"
                dagger = True
            body.append([p["precision"], p["shape"], f"{batch:g}", f"`{best['op']}` {best['backend']}",
                         best["median_ms"], cell(best.get("x_copy")), xfft, p["op"], cell(p.get("median_ms")),
                         cell(p.get("x_copy")), cell(p.get("x_fft")), f"{me / vk:.2f}" if me and vk else "–"])
        if body:
            out += [f"**{heading}** (VkFFT `{vop}`)", "",
                    md_table(["precision", "shape", "batch", "dctool op, backend", "dctool ms", "dctool ×copy",
                              "dctool ×cuFFT", "VkFFT op", "VkFFT ms", "VkFFT ×copy", "VkFFT ×cuFFT",
                              "dctool ÷ VkFFT"], body), ""]
    if out:
        lead = ["Matching op, precision, shape and batch (dctool: the fastest backend measured for it). Each ×copy "
                "and ×cuFFT is against the copy and cuFFT of the same shape measured in its own process: for VkFFT "
                "cuFFT's R2C (C2R for the type-III rows; 3-D plans for the 3-D shapes, a batched 2-D plan for the "
                "matrices), for dctool its bench's baseline (C2R for `idct2`, R2C otherwise, the real-to-real type-III "
                "kinds included). dctool ÷ VkFFT < 1 means dctool is faster; – where a side has no time (a VkFFT plan that failed leaves nan).", ""]
        if dagger:
            out += ["† dctool's bench has no cuFFT baseline for 3-D shapes: its median ÷ the cuFFT time of the same "
                    "shape that vkbench_r2r measured (fft_ms), same device, the other process.", ""]
        return "\n".join(lead + out).rstrip()
    have = ", ".join(sorted({res.cap for res in results if res.slug == peer.slug and not res.is_peer})) or "none"
    return f"No dctool rows for this device match the VkFFT shapes yet (dctool results here: {have})."


# ---------------------------------------------------------------------------------------------------- document
def commands_block(res):
    cmds = res.commands or ["(not recorded)"]
    return "```\n" + "\n".join(cmds) + "\n```"


def build(results_dir, doc_path, img_dir):
    paths = sorted(os.path.join(results_dir, f) for f in os.listdir(results_dir) if f.endswith(".csv")) \
        if os.path.isdir(results_dir) else []
    results = []
    for p in paths:
        try:
            r = Result(p)
        except (OSError, csv.Error, UnicodeDecodeError) as e:
            warn(f"{p}: skipped ({e})")
            continue
        if r.header is None or not r.rows:
            warn(f"{p}: skipped (no rows)")
            continue
        need = ["op", "precision", "shape", "median_ms"] + ([] if r.is_peer else ["backend"])
        if r.cap == "batch-jpeg":  # scripts/bench/batch_peers.sh: whole tools on files, not bench rows
            need = ["tool", "images", "images_per_s", "cpu_seconds"]
        if r.cap == "oneshot":  # scripts/bench/oneshot.sh: whole commands on files
            need = ["shape", "precision", "cat_ms", "auto_ms", "gpu_ms", "cpu_ms"]
        if r.cap == "distributed":  # bench --distributed rows (dims, not shape)
            need = ["op", "precision", "dims", "gpus", "median_ms"]
        if any(c not in r.header for c in need):
            warn(f"{p}: skipped (columns {', '.join(c for c in need if c not in r.header)} missing)")
            continue
        results.append(r)
    os.makedirs(img_dir, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(doc_path)), exist_ok=True)
    rel_img = os.path.relpath(img_dir, os.path.dirname(os.path.abspath(doc_path)))
    rel_results = os.path.relpath(results_dir, REPO) if os.path.abspath(results_dir).startswith(REPO) \
        else results_dir

    caps = [c for c in KNOWN if any(r.cap == c for r in results)]
    caps += sorted({r.cap for r in results} - set(KNOWN))
    devices = OrderedDict()
    for r in sorted(results, key=lambda r: r.slug):
        devices.setdefault(r.slug, r.device)

    md = [f"*Generated file: `{COMMAND}` writes it from `{rel_results}/*.csv`; edit those or the script, "
          "not this page.*", "", "# Performance", ""]
    md += [
        "Every number below was measured with `dctool bench` (the peer comparison with VkFFT's own benchmark, "
        "`vkbench`), one CSV per capability and GPU under `bench/results/`, each with the command that made it, "
        "the device and the date. How it is measured:",
        "",
        "- **median_ms**: the median of `--reps` timed repetitions after `--warmup` untimed ones, timed with CUDA "
        "events around the device work only (CPU backends: wall clock); plans are created and warm before timing, "
        "inputs are random (never zeros) and rotated over several buffers when they would fit in L2.",
        "- **x_copy** = median ÷ the time of a device-to-device copy of the same bytes measured in the same process "
        "(the memory-bound floor: 1.0 means as fast as copying the input once).",
        "- **x_fft** = median ÷ cuFFT's R2C (forward transforms) or C2R (inverse transforms) of the same shape, "
        "measured in the same process (batched 1-D along the rows for `--axis rows`), plans warm. For CPU backends "
        "both are against the host: memcpy and FFTW r2c.",
        "- **GB/s** counts one read of the input and one write of the output; **e2e_ms** is host memory to host "
        "memory (transfers included); **cpu_ms** is user + system CPU time per repetition; **max_rel_err** is the "
        "relative error against the f64 CPU oracle (`--verify`).",
        "- Each table and plot holds one GPU: figures from different devices (H100, H200) are not comparable and "
        "are never mixed. Times in the plots: median (ms, log) against size (elements, log) per backend; the "
        "dashed line is the copy of the same bytes (median ÷ x_copy), the dotted line cuFFT of the same shape "
        "(median ÷ x_fft), both taken from the `cuda-*` rows.",
        "",
        "To refresh: on the GPU machine `scripts/bench/sweeps.sh BUILD_DIR OUT_DIR [VKBENCH]`, copy its CSVs into "
        "`bench/results/`, then `" + COMMAND + "`.",
        "",
    ]
    if not results:
        md += [f"No results in `{rel_results}/` yet.", ""]
    else:
        md += ["| device | results | not measured yet |", "| --- | --- | --- |"]
        for slug, name in devices.items():
            have = [r.cap for r in results if r.slug == slug]
            # the GPU sweeps' list, for GPUs only (a CPU machine's batch file asks for none of them)
            missing = [c for c in EXPECTED if c not in have] if any(c in EXPECTED for c in have) else []
            md.append(f"| {name} (`{slug}`) | {', '.join(have)} | {', '.join(missing) or '–'} |")
        md.append("")

    made_imgs = set()
    for cap in caps:
        md += [f"## {TITLES.get(cap, cap)}", ""]
        if cap in ("peer-vkfft", "peer-vkfft-dct4"):
            md += ["VkFFT (1.3.4 in `../shared/peers/vkFFT`; CUDA backend, kernels compiled through NVRTC), timed by "
                   "`vkbench` "
                   "(`../shared/peers/`): out-of-place, CUDA events, median of its repetitions after warm-ups, "
                   "random inputs, FFTW's normalisation (dctool's DCT-IV rows use `--norm ortho`; the scale does "
                   "not change the work). Its process also times cuFFT and the copy of the same shapes.", ""]
        elif cap in ("peer-vkfft-r2r", "peer-vkfft-volumes", "peer-vkfft-batch2d"):
            md += ["VkFFT (1.3.4 in `../shared/peers/vkFFT`; CUDA backend, kernels compiled through NVRTC) on the "
                   "real-to-real family, timed by `vkbench_r2r` (`scripts/bench/peers/vkbench_r2r.cu`, built by "
                   f"`scripts/bench/peers/build.sh`; `sweeps.sh` capability `{cap.replace('peer-vkfft-', 'peer-')}`) the way `vkbench` times its "
                   "DCTs: out-of-place, CUDA events, median of its repetitions after warm-ups, random inputs, FFTW's "
                   "normalisation (REDFT00 for DCT-I, RODFT10 / RODFT01 for DST-II / DST-III; max_rel_err against a "
                   "host double reference on sampled lines). DST-II/III are VkFFT's own (`performDST`). Its process "
                   "also times cuFFT's R2C/C2R (3-D plans for DxHxW, a batched 2-D plan for the matrices) and the "
                   "copy of the same shapes.", ""]
        elif cap in INTROS:
            md += [INTROS[cap], ""]
        for res in sorted((r for r in results if r.cap == cap), key=lambda r: r.slug):
            md += [f"### {res.device} ({res.date})", "", f"`{rel_results}/{res.name}`, made by:", "",
                   commands_block(res), ""]
            if cap in ("batch-jpeg", "oneshot", "distributed"):
                md += [md_table(res.header, [[row.get(c, "") for c in res.header] for row in res.rows]), ""]
                continue
            if res.is_peer:
                section = r2r_peer_section if cap in ("peer-vkfft-r2r", "peer-vkfft-volumes",
                                                      "peer-vkfft-batch2d") else peer_section
                md += [section(res, results), "", "All rows of the peer's output (its memcpy_d2d, cuFFT and "
                       "check-shape rows included):", "", full_table(res), ""]
                continue
            if cap == "dct2d":
                md += [table_v(res), ""]
            else:
                md += [pivot_table(res), ""]
            for name, caption in plots_for(res, img_dir):
                made_imgs.add(name)
                md += [f"![{caption}]({rel_img}/{name})", "", f"*{caption}.*", ""]
            md += [full_table(res), ""]

    text = "\n".join(md).rstrip() + "\n"
    with open(doc_path, "w") as fh:
        fh.write(text)
    for f in os.listdir(img_dir):  # plots of results no longer present
        if f.startswith(IMG_PREFIX) and f.endswith(".png") and f not in made_imgs:
            os.remove(os.path.join(img_dir, f))
    for m in FORBIDDEN.finditer(text):
        warn(f"{doc_path}: contains '{m.group(0)}'")
    print(f"{os.path.relpath(doc_path)}: {len(results)} result files, {len(made_imgs)} plots "
          f"({', '.join(sorted(made_imgs)) or 'none'})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(REPO, "bench", "results"))
    ap.add_argument("--doc", default=os.path.join(REPO, "docs", "performance.md"))
    ap.add_argument("--img", default=os.path.join(REPO, "docs", "img"))
    a = ap.parse_args()
    build(a.results, a.doc, a.img)


if __name__ == "__main__":
    main()
