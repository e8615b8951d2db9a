#!/usr/bin/env bash
# Batch JPEG throughput of dctool beside its peers, in one run on the same files: 1920x1080 JPEG photographs
# re-encoded at quality 50 to .jpg by
#   dctool:        dctool -q compress IN/*.jpg -o OUT --quality 50   (all cores; again with --report R.json:
#                  the per-entry report adds each output's blockiness and the per-stage timing; again with
#                  --sampling 420, the output of cjpeg's and mogrify's defaults; on a GPU host also -b cpu
#                  (dctool_cpu) and -b cuda-jpeg-fused (dctool_gpu))
#   mogrify:       mogrify -path OUT -quality 50 IN/*.jpg               (ImageMagick, its own threads)
#   djpeg | cjpeg: ls IN/*.jpg | xargs -P N -I{} sh -c 'djpeg {} | cjpeg -quality 50 > OUT/…'   (N processes;
#                  cjpeg's default 4:2:0 codes half the blocks of dctool's default 4:4:4)
#   djpeg | cjpeg -sample 1x1: the same with 4:4:4 output, the files dctool writes (within 2% of their size)
# Prints a CSV on stdout (with # command/device/date lines: bench/results/batch-jpeg-<machine>.csv): tool, images,
# seconds, images_per_s, cpu_seconds (user + system of the tool and its children), images_per_cpu_s; medians of 3
# runs, the tools interleaved so that they see the same machine load.
# The dctool runs' per-stage medians (scripts/bench/batch_stages.py) go to BATCH_DIR/stages.txt.
# Usage: scripts/bench/batch_peers.sh [BUILD_DIR] [BATCH_DIR]   (N processes = nproc)
# The photographs are made once under BATCH_DIR/in by scripts/bench/make_photos.py. Environment: BATCH_TOOLS (the
# tools, a space list; default every tool above but dctool_cpu and dctool_gpu), BATCH_COPIES (each photograph that many
# times, default 1: a long batch on a many-core host amortizes the start).
set -euo pipefail
one=
if [ "${1:-}" = --one ]; then one=$2; shift 2; fi  # the script runs itself under /usr/bin/time, one tool at a time
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
dir=${2:-$build/batch-peers}
reps=3
procs=$(nproc)
count=30
copies=${BATCH_COPIES:-1}
read -r -a tools <<<"${BATCH_TOOLS:-dctool dctool_420 dctool_report mogrify djpeg_cjpeg djpeg_cjpeg_444}"
dctool=$build/dctool
[ -x "$dctool" ] || { echo "batch_peers.sh: $dctool not built" >&2; exit 1; }
needs="bc /usr/bin/time"
[[ " ${tools[*]} " == *" mogrify "* ]] && needs="$needs mogrify"
[[ " ${tools[*]} " == *" djpeg_cjpeg"* ]] && needs="$needs djpeg cjpeg"
for t in $needs; do
  command -v $t >/dev/null || { echo "batch_peers.sh: $t not found (apt-get install imagemagick libjpeg-turbo-progs time bc)" >&2; exit 1; }
done

in=$dir/in
[ "$(ls "$in"/*.jpg 2>/dev/null | wc -l)" -ge $count ] || /usr/bin/python3 "$here/scripts/bench/make_photos.py" "$in" $count
if [ "$copies" -gt 1 ]; then  # each photograph $copies times, as cN-<name>
  src=("$in"/*.jpg)
  in=$dir/in-x$copies
  mkdir -p "$in"
  for c in $(seq "$copies"); do for f in "${src[@]}"; do [ -e "$in/c$c-${f##*/}" ] || cp "$f" "$in/c$c-${f##*/}"; done; done
fi
files=("$in"/*.jpg)
n=${#files[@]}

run_dctool() { rm -rf "$dir/o_dctool"; "$dctool" -q compress "${files[@]}" -o "$dir/o_dctool" --quality 50; }
run_dctool_cpu() { rm -rf "$dir/o_dctool"; "$dctool" -q -b cpu compress "${files[@]}" -o "$dir/o_dctool" --quality 50; }
run_dctool_gpu() {
  rm -rf "$dir/o_dctool"; "$dctool" -q -b cuda-jpeg-fused compress "${files[@]}" -o "$dir/o_dctool" --quality 50
}
run_dctool_420() {
  rm -rf "$dir/o_dctool"; "$dctool" -q compress "${files[@]}" -o "$dir/o_dctool" --quality 50 --sampling 420
}
run_dctool_report() {
  rm -rf "$dir/o_dctool"; "$dctool" -q compress "${files[@]}" -o "$dir/o_dctool" --quality 50 --report "$dir/report.json"
}
run_mogrify() { rm -rf "$dir/o_mogrify"; mkdir -p "$dir/o_mogrify"; mogrify -path "$dir/o_mogrify" -quality 50 "${files[@]}"; }
run_djcj() {
  rm -rf "$dir/o_djcj"; mkdir -p "$dir/o_djcj"
  printf '%s\n' "${files[@]}" | xargs -P "$procs" -I{} sh -c 'djpeg "$1" | cjpeg -quality 50 > "$2/$(basename "$1")"' _ {} "$dir/o_djcj"
}
run_djcj444() {
  rm -rf "$dir/o_djcj"; mkdir -p "$dir/o_djcj"
  printf '%s\n' "${files[@]}" |
    xargs -P "$procs" -I{} sh -c 'djpeg "$1" | cjpeg -sample 1x1 -quality 50 > "$2/$(basename "$1")"' _ {} "$dir/o_djcj"
}
if [ -n "$one" ]; then
  $one
  exit 0
fi

declare -A wall cpu
for r in $(seq $reps); do
  for t in "${tools[@]}"; do
    fn=run_$t; [ $t = djpeg_cjpeg ] && fn=run_djcj; [ $t = djpeg_cjpeg_444 ] && fn=run_djcj444
    /usr/bin/time -f "%e %U %S" -o "$dir/time.txt" "$0" --one "$fn" "$build" "$dir"
    read -r e u s < <(tail -1 "$dir/time.txt")
    wall[$t]="${wall[$t]:-} $e"
    cpu[$t]="${cpu[$t]:-} $(echo "$u + $s" | bc -l)"
    [ $t = dctool_report ] && cp "$dir/report.json" "$dir/report.$r.json"
  done
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "# command: BATCH_TOOLS='${tools[*]}' BATCH_COPIES=$copies scripts/bench/batch_peers.sh ($n files: $count 1920x1080 photos from scripts/bench/make_photos.py, each $copies times; quality 50)"
for t in "${tools[@]}"; do
  case $t in
    dctool) echo "# command: dctool -q compress IN/*.jpg -o OUT --quality 50" ;;
    dctool_420) echo "# command: dctool -q compress IN/*.jpg -o OUT --quality 50 --sampling 420" ;;
    dctool_report) echo "# command: dctool -q compress IN/*.jpg -o OUT --quality 50 --report R.json" ;;
    dctool_cpu) echo "# command: dctool -q -b cpu compress IN/*.jpg -o OUT --quality 50" ;;
    dctool_gpu) echo "# command: dctool -q -b cuda-jpeg-fused compress IN/*.jpg -o OUT --quality 50" ;;
    mogrify) echo "# command: mogrify -path OUT -quality 50 IN/*.jpg" ;;
    djpeg_cjpeg) echo "# command: djpeg IN | cjpeg -quality 50 > OUT  ($procs processes, xargs -P)" ;;
    djpeg_cjpeg_444) echo "# command: djpeg IN | cjpeg -sample 1x1 -quality 50 > OUT  ($procs processes, xargs -P)" ;;
  esac
done
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
echo "# device: ${gpu:+$gpu, }$(lscpu | sed -n 's/^Model name: *//p' | head -1), $procs cores"
echo "# date: $(date -u +%F)"
echo "tool,images,seconds,images_per_s,cpu_seconds,images_per_cpu_s"
for t in "${tools[@]}"; do
  w=$(median ${wall[$t]}); c=$(median ${cpu[$t]})
  printf '%s,%d,%.2f,%.2f,%.2f,%.2f\n' "$t" "$n" "$w" "$(echo "$n / $w" | bc -l)" "$c" "$(echo "$n / $c" | bc -l)"
done
if [[ " ${tools[*]} " == *" dctool_report "* ]]; then
  /usr/bin/python3 "$here/scripts/bench/batch_stages.py" "$dir"/report.[0-9]*.json > "$dir/stages.txt"
fi
