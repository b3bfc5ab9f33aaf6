#!/usr/bin/env bash
# Decode benchmark: Reel's AssetReader (to BGRA) against `ffmpeg -pix_fmt bgra -f null`,
# on the same 10 s 1080p30 clip, alternating, RUNS runs each; prints medians.
#
#   Benchmarks/decode/run.sh            # clip and results in ${BENCH_DIR:-/tmp/reel-bench}
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
BENCH_DIR=${BENCH_DIR:-/tmp/reel-bench}
mkdir -p "$BENCH_DIR"
IN="$BENCH_DIR/A_1080p30.mp4"

if [ ! -f "$IN" ]; then
    CT=2024-05-01T10:00:00.000000Z
    ffmpeg -hide_banner -loglevel error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=10,noise=alls=6:allf=t" \
        -c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p -g 60 -movflags +faststart -metadata creation_time=$CT "$IN"
fi

swift build -c release --product ReelBenchDecode >/dev/null
BIN="$(swift build -c release --show-bin-path)/ReelBenchDecode"
FRAMES=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$IN")

# Each run records wall time and CPU time (user + sys): on a busy machine the CPU time
# per frame is the steadier measure of the work each side does.
measure() { /usr/bin/time -f "%e %U %S" -o "$BENCH_DIR/time.txt" "$@" >/dev/null; read -r wall user sys < "$BENCH_DIR/time.txt"; \
    echo "$(echo "$FRAMES / $wall" | bc -l) $(echo "$FRAMES / ($user + $sys)" | bc -l)"; }
reel_wall=(); reel_cpu=(); peer_wall=(); peer_cpu=()
for i in $(seq 1 "$RUNS"); do
    read -r w c < <(measure "$BIN" "$IN" bgra); reel_wall+=("$w"); reel_cpu+=("$c")
    read -r w c < <(measure ffmpeg -hide_banner -loglevel error -i "$IN" -pix_fmt bgra -f null -); peer_wall+=("$w"); peer_cpu+=("$c")
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
RW=$(median "${reel_wall[@]}"); PW=$(median "${peer_wall[@]}")
RC=$(median "${reel_cpu[@]}"); PC=$(median "${peer_cpu[@]}")
printf 'decode 1080p30 -> bgra, %d frames, %d alternating runs each; load %s\n' "$FRAMES" "$RUNS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  wall fps  reel: %s median %.1f | ffmpeg: %s median %.1f | ratio %.3f\n' \
    "$(printf '%.1f ' "${reel_wall[@]}")" "$RW" "$(printf '%.1f ' "${peer_wall[@]}")" "$PW" "$(echo "$RW / $PW" | bc -l)"
printf '  frames per CPU-second  reel: %s median %.1f | ffmpeg: %s median %.1f | ratio %.3f\n' \
    "$(printf '%.1f ' "${reel_cpu[@]}")" "$RC" "$(printf '%.1f ' "${peer_cpu[@]}")" "$PC" "$(echo "$RC / $PC" | bc -l)"
