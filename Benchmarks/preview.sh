#!/usr/bin/env bash
# The preview's speed as a user sees it: `reel preview` of the GPS dashboard over a 60 s
# 1080p30 composition (a 10 s clip with 1 s groups of pictures, six times, with a GPS
# track) at half scale (960x540), measured in headless Chromium by Benchmarks/preview.py:
# random seeks, frame steps, a scrub, playing it through, and saved edits; then what pages
# leave behind (Benchmarks/preview-soak.py).
#
# Usage: Benchmarks/preview.sh   (SKIP_BUILD=1 uses the release reel there, REEL=PATH that reel, SOUND=1 a clip
# with sound; needs ffmpeg,
# python3 with selenium, chromium and chromium-driver: scripts/install-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
IN=$ROOT/Benchmarks/.inputs
OUT=$ROOT/Benchmarks/.out
mkdir -p "$IN" "$OUT"
if [ -z "${REEL:-}" ]; then
    [ "${SKIP_BUILD:-0}" = 1 ] || swift build -c release --product reel >&2
    REEL="$(swift build -c release --show-bin-path)/reel"
fi

CT=2024-05-01T10:00:00.000000Z
A1=$IN/A_1080p30_gop1s.mp4
if [ ! -s "$A1" ]; then
    echo "making $A1" >&2
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=10,noise=alls=6:allf=t" \
        -c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p -g 30 -movflags +faststart -metadata creation_time=$CT "$A1"
fi
# A GPX track over the clip (5 Hz, from its creation time), written into it as gpmd.
python3 - "$OUT/preview-track.gpx" <<'PY'
import datetime, math, sys
start = datetime.datetime(2024, 5, 1, 10, 0, 0, tzinfo=datetime.timezone.utc)
points = []
for i in range(56):
    t, a = start + datetime.timedelta(seconds=i * 0.2), i * 0.02
    points.append(f'<trkpt lat="{46.2044 + 0.0008 * math.sin(a):.7f}" lon="{6.1432 + 0.0012 * (1 - math.cos(a)):.7f}">'
                  f'<ele>{375 + 3 * math.sin(a * 2):.2f}</ele><time>{t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]}Z</time></trkpt>')
open(sys.argv[1], "w").write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="reel-bench" '
    'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>' + "".join(points) + "</trkseg></trk></gpx>\n")
PY
G1=$IN/A_gps_gop1s.mp4
# SOUND=1: the clip also has sound (a 440 Hz tone), which the page then plays, its clock
# following the sound's.
if [ "${SOUND:-0}" = 1 ]; then
    A1S=$IN/A_1080p30_gop1s_sound.mp4
    [ -s "$A1S" ] || ffmpeg -v error -y -i "$A1" -f lavfi -i "sine=frequency=440:duration=10" -map 0:v -map 1:a -c:v copy -c:a aac -b:a 128k "$A1S"
    A1=$A1S
    G1=$IN/A_gps_gop1s_sound.mp4
fi
"$REEL" metadata import "$OUT/preview-track.gpx" --into "$A1" -o "$G1" --overwrite >&2
six() { local one='{"source": "camera"}'; echo "$one, $one, $one, $one, $one, $one"; }
C=$OUT/preview-60s.json
cat > "$C" << JSON
{"version": 1,
 "sources": [{"name": "camera", "path": "$G1"}],
 "tracks": [{"trackID": 1, "mediaType": "video", "segments": [$(six)]},
            {"trackID": 2, "mediaType": "metadata", "segments": [$(six)]}],
 "sourceSampleDataTrackIDs": [2],
 "instructions": [{"timeRange": {"start": 0, "end": "end"}, "requiredSourceSampleDataTrackIDs": [2], "layerInstructions": [{"trackID": 1}]}],
 "compositor": {"name": "gps-dashboard", "parameters": {"units": "metric", "accent": "#FFC83D"}}}
JSON
"$REEL" preview "$C" --scale 0.5 > "$OUT/preview.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 200); do grep -q '^reel preview: http' "$OUT/preview.log" && break; sleep 0.1; done
url=$(sed -n 's/^reel preview: \(http[^ ]*\).*/\1/p' "$OUT/preview.log" | head -n 1)
[ -n "$url" ] || { cat "$OUT/preview.log" >&2; exit 1; }
echo "reel preview at $url, rss $(ps -o rss= -p $server) KB" >&2
python3 Benchmarks/preview.py "$url" "$C"
echo "server rss after: $(ps -o rss= -p $server) KB" >&2
# What pages leave behind: four at once (one dropped mid-play), then SOAK_SEEKS (1000)
# random exact seeks (SOAK_SEEKS=0 leaves this out); threads, descriptors and resident
# memory from /proc.
if [ "${SOAK_SEEKS:-1000}" -gt 0 ]; then python3 Benchmarks/preview-soak.py "$url" "$server" "${SOAK_SEEKS:-1000}"; fi
