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
#
# Measured 2026-11-21, release build, 2 cores under a load average of about 16, on
# gpmf-parser_max-heromode.mp4 (3.6 MB, 5 tracks), hyperfine 40 runs after 5 warm-ups:
#   reel inspect            165.6 ms +- 40.9 ms wall   (user 46.2 ms + sys 20.8 ms)
#   reel inspect --json     162.0 ms +- 38.8 ms wall   (user 48.2 ms + sys 23.1 ms)
#   ffprobe -show_streams   249.7 ms +- 76.4 ms wall   (user 63.1 ms + sys 31.1 ms)
# perf stat task-clock, 20 runs: reel 63.0 ms, ffprobe 82.7 ms. Both open the file and
# run avformat_find_stream_info once; reel reads no packets unless --precise is given.
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
    if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
        for cmd in "$reel_cmd" "$peer_cmd"; do
            printf '%s: ' "${cmd%% *}"
            # shellcheck disable=SC2086
            perf stat -r "$runs" -e task-clock $cmd 2>&1 >/dev/null | awk '/task-clock/ { print $1 " ms CPU (task-clock)" }'
        done
    fi
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
