#!/usr/bin/env bash
# Exact random access: COUNT frames at random times of a 1080p30 file with 1 s groups of
# pictures, fetched by one AssetImageGenerator in one process (`reel-bench random-frames`),
# one `image(at:)` after the other and then all asked at once (`images(for:)`, "batch"),
# against the ffmpeg CLI fetching the same times one process each (`ffmpeg -ss T -i FILE
# -frames:v 1`, which decodes from the keyframe before T and drops the frames before it),
# alternated RUNS times in the same run so both see the same load.
#
# Usage: Benchmarks/random-frames.sh [COUNT]   (RUNS=3 by default; SKIP_BUILD=1 uses the
# release reel-bench there; BENCH=PATH runs that reel-bench; BENCH_BEFORE=PATH runs another one
# too, first in each round, to compare two versions under the same load)
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${1:-100}
RUNS=${RUNS:-3}
IN=Benchmarks/.inputs
mkdir -p "$IN"
if [ -z "${BENCH:-}" ]; then
    [ "${SKIP_BUILD:-0}" = 1 ] || swift build -c release --product reel-bench >&2
    BENCH="$(swift build -c release --show-bin-path)/reel-bench"
fi
A1=$IN/A_1080p30_gop1s.mp4
if [ ! -s "$A1" ]; then
    echo "making $A1" >&2
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=10,noise=alls=6:allf=t" \
        -c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p -g 30 -movflags +faststart \
        -metadata creation_time=2024-05-01T10:00:00.000000Z "$A1"
fi
duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$A1")
# The times reel-bench asks for: the same linear congruential sequence.
times=$(python3 - "$COUNT" "$duration" <<'PY'
import sys
count, duration = int(sys.argv[1]), float(sys.argv[2])
state, mask = 0x2545F4914F6CDD1D, (1 << 64) - 1
for _ in range(count):
    state = (state * 6364136223846793005 + 1442695040888963407) & mask
    print(f"{round((state >> 11) / (1 << 53) * duration * 0.999 * 30000) / 30000:.6f}")
PY
)
for run in $(seq "$RUNS"); do
    if [ -n "${BENCH_BEFORE:-}" ]; then
        line=$("$BENCH_BEFORE" random-frames "$A1" "$COUNT" | grep '^per_frame')
        echo "run=$run reel-before $line"
    fi
    line=$("$BENCH" random-frames "$A1" "$COUNT" | grep '^per_frame')
    echo "run=$run reel $line"
    line=$("$BENCH" random-frames "$A1" "$COUNT" batch | grep '^per_frame')
    echo "run=$run reel-batch $line"
    start=$(date +%s.%N)
    for t in $times; do ffmpeg -v error -threads 0 -ss "$t" -i "$A1" -frames:v 1 -f null - ; done
    end=$(date +%s.%N)
    python3 -c "print(f'run=$run ffmpeg per_frame_ms_mean={($end - $start) * 1000 / $COUNT:.1f} (one process a frame)')"
done
