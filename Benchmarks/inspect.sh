#!/usr/bin/env bash
# `reel inspect` against `ffprobe -show_streams -show_format` on the same file, side by
# side, release build. Uses hyperfine when installed (apt-get install hyperfine), else a
# loop of 20 runs of each.
#
#   Benchmarks/inspect.sh [FILE]      default: ../shared/media/gpmf-parser_max-heromode.mp4
#   RUNS=50 Benchmarks/inspect.sh     more runs
#
# Wall times on a busy machine are noisy; the CPU time (user + sys) of each command is
# the steadier number to compare.
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-../shared/media/gpmf-parser_max-heromode.mp4}
runs=${RUNS:-20}
[ -f "$file" ] || { echo "inspect.sh: $file: no such file" >&2; exit 1; }
command -v ffprobe >/dev/null || { echo "inspect.sh: ffprobe is not installed (apt-get install ffmpeg)" >&2; exit 1; }
swift build -c release --product reel >/dev/null
reel=.build/release/reel
reel_cmd="$reel inspect $file"
json_cmd="$reel inspect --json $file"
peer_cmd="ffprobe -v error -show_streams -show_format $file"

if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 3 --runs "$runs" "$reel_cmd" "$json_cmd" "$peer_cmd"
    exit 0
fi

# No hyperfine: time $runs runs of each with bash's `times` (CPU) and the clock (wall).
measure() {
    local label=$1; shift
    local start end
    start=$(date +%s%N)
    for _ in $(seq "$runs"); do "$@" >/dev/null; done
    end=$(date +%s%N)
    printf '%-8s %8.1f ms per run (wall, mean of %d)\n' "$label" "$(echo "($end - $start) / $runs / 1000000" | bc -l)" "$runs"
}
measure reel $reel_cmd
measure reel-json $json_cmd
measure ffprobe $peer_cmd
