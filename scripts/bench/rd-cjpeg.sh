#!/usr/bin/env bash
# cjpeg's rate-distortion points in the shape of a `dctool compress --report` array, for plot-rd.py:
#   scripts/bench/rd-cjpeg.sh [--quality 10:95:5|Q1,Q2,...] [--sample 444|420] [--dctool PATH] IMAGES... > cjpeg.json
# Each image (any format PIL reads; alpha dropped) at each quality: cjpeg -dct float -quality Q -sample 1x1 (2x2
# with --sample 420; gray images stay gray), decoded by djpeg -dct float, PSNR by `dctool psnr` against the image;
# entries: input, output (null), tool "cjpeg", mode "jpeg", quality, sampling, psnr_db, mse, bytes, bpp.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
quality=10:95:5
sample=444
dctool=$here/build/dctool
while [ $# -gt 0 ]; do
  case $1 in
    --quality) quality=$2; shift 2 ;;
    --sample) sample=$2; shift 2 ;;
    --dctool) dctool=$2; shift 2 ;;
    -h|--help) sed -n 2,6p "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "rd-cjpeg.sh: no images (see --help)" >&2; exit 2; }
case $sample in 444) factors=1x1 ;; 420) factors=2x2 ;; *) echo "rd-cjpeg.sh: --sample 444 or 420" >&2; exit 2 ;; esac
if [[ $quality == *:* ]]; then
  IFS=: read -r q0 q1 qs <<< "$quality"; qualities=$(seq "$q0" "$qs" "$q1")
else
  qualities=${quality//,/ }
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
first=1
echo "["
for img in "$@"; do
  # cjpeg reads PPM/PGM: the image's colour channels as one of those.
  pnm=$(/usr/bin/python3 - "$img" "$tmp/in" <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1])
gray = im.mode in ("L", "LA", "I;16", "I")
im = im.convert("L" if gray else "RGB")
path = sys.argv[2] + (".pgm" if gray else ".ppm")
im.save(path)
print(path)
PY
)
  pixels=$(/usr/bin/python3 -c "from PIL import Image; w, h = Image.open('$pnm').size; print(w * h)")
  for q in $qualities; do
    cjpeg -dct float -quality "$q" -sample "$factors" "$pnm" > "$tmp/c.jpg" 2>/dev/null  # "too coarse for baseline" below 24
    djpeg -dct float -pnm "$tmp/c.jpg" > "$tmp/d.pnm"
    ext=${pnm##*.}; mv "$tmp/d.pnm" "$tmp/d.$ext"
    bytes=$(stat -c %s "$tmp/c.jpg")
    p=$("$dctool" --json psnr "$pnm" "$tmp/d.$ext")
    [ $first = 1 ] || echo ","
    first=0
    /usr/bin/python3 - "$img" "$q" "$sample" "$bytes" "$pixels" "$p" "$factors" <<'PY'
import json, sys
img, q, sample, nbytes, pixels, p, factors = sys.argv[1:]
r = json.loads(p)
print(json.dumps({"input": img, "output": None, "tool": "cjpeg", "mode": "jpeg", "quality": int(q),
                  "sampling": sample, "psnr_db": r["psnr_db"], "mse": r["mse"], "bytes": int(nbytes),
                  "bpp": 8.0 * int(nbytes) / int(pixels), "backend": "cjpeg -dct float -sample " + factors}), end="")
PY
  done
done
echo
echo "]"
