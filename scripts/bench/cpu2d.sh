#!/usr/bin/env bash
# Whole-matrix DCT-II / DCT-III on the CPU beside scipy.fft, on the same host, side by side: `dctool bench` of cpu-fftw
# (with its `baseline:plain-dct2` rows: FFTW's own REDFT10 of the matrix) and scipy.fft.dctn / idctn (type 2, norm
# backward, workers = the host's cores; the median of REPS timed transforms after two untimed ones, random inputs), f32 and f64.
# Usage: scripts/bench/cpu2d.sh BUILD_DIR [REPS] > bench/results/cpu2d-<machine>.csv
#   (machine: the CPU model and core count, as the '# device:' line says; the scipy rows need python3 with numpy and
#   scipy, PYTHON names another interpreter)
set -euo pipefail
build=${1:?usage: cpu2d.sh BUILD_DIR [REPS]}
reps=${2:-20}
sizes=${CPU2D_SIZES:-256x256,512x512,1024x1024,2048x2048,4096x4096,720x1280,1080x1920,2160x3840,1000x1000,999x1001}
procs=$(nproc)
args=(bench --backends cpu-fftw --ops dct2,idct2 --sizes "$sizes" --precision f32,f64 --reps "$reps" --format csv)
echo "# command: dctool ${args[*]}"
echo "# command: scipy.fft.dctn / idctn(x, 2, workers=$procs) (scripts/bench/cpu2d.sh)"
echo "# device: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $procs cores"
echo "# date: $(date -u +%Y-%m-%d)"
"$build/dctool" -q "${args[@]}"
${PYTHON:-/usr/bin/python3} - "$sizes" "$reps" "$procs" <<'PY'
import sys, time
import numpy as np
try:
    import scipy
    import scipy.fft as sf
except ImportError:  # a host without scipy (the GPU machine): dctool's rows alone
    print("# note: scipy not found: no scipy.fft rows")
    sys.exit(0)
sizes, reps, procs = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(11)
for op, fn in (("dct2", sf.dctn), ("idct2", sf.idctn)):
    for prec, dt in (("f32", np.float32), ("f64", np.float64)):
        for s in sizes:
            h, w = (int(v) for v in s.split("x"))
            x = rng.standard_normal((h, w)).astype(dt)
            for _ in range(2):
                fn(x, 2, workers=procs)
            t = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn(x, 2, workers=procs)
                t.append((time.perf_counter() - t0) * 1e3)
            t.sort()
            med = t[len(t) // 2] if len(t) % 2 else (t[len(t) // 2 - 1] + t[len(t) // 2]) / 2
            gbps = 2 * x.nbytes / (med * 1e-3) / 1e9
            print(f"{op},scipy.fft,{prec},{s},1,{reps},{med:.4g},{t[0]:.4g},{t[-1]:.4g},{gbps:.4g},,,,,,"
                  f"scipy {scipy.__version__} ({procs} workers),both")
PY
