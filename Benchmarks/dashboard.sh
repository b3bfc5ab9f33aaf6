#!/usr/bin/env bash
# GPS dashboard: `reel render Examples/gps-dashboard` against gopro-dashboard-overlay
# (PyPI gopro-overlay 0.134) on the same 10 s 1080p30 clip and the same GPX track, same
# encoder (libx264 veryfast, CRF 23). Runs each side RUNS times, alternating, and prints
# the median frames per second of each and their ratio, and each output's video bit rate
# and SSIM against the input clip (ffmpeg's ssim filter), so that a size or quality
# difference cannot hide behind the speed ratio.
#
# Usage: Benchmarks/dashboard.sh [WORKDIR]   (RUNS=3 by default; needs ffmpeg, python3)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${1:-/tmp/reel-dashboard-bench}
RUNS=${RUNS:-3}
mkdir -p "$WORK"

# Reel, release build (SKIP_BUILD=1 to use the one there).
[ "${SKIP_BUILD:-0}" = 1 ] || swift build -c release --product reel >&2
REEL="$ROOT/.build/release/reel"

# The peer, in its own virtual environment.
if [ ! -x "$WORK/venv/bin/gopro-dashboard.py" ]; then
    python3 -m venv "$WORK/venv"
    "$WORK/venv/bin/pip" install -q gopro-overlay==0.134
fi

# The input clip, as in ../shared/bench/PEER-COMMANDS.md (creation_time 2024-05-01T10:00:00Z).
CT=2024-05-01T10:00:00.000000Z
if [ ! -f "$WORK/A_1080p30.mp4" ]; then
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=10,noise=alls=6:allf=t" \
        -c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p -g 60 -movflags +faststart -metadata creation_time=$CT \
        "$WORK/A_1080p30.mp4"
fi

# A GPX track aligned to the clip's creation time: 5 Hz, moving and climbing.
python3 - "$WORK/track.gpx" <<'PY'
import math, sys, datetime
start = datetime.datetime(2024, 5, 1, 10, 0, 0, tzinfo=datetime.timezone.utc)
pts = []
for i in range(0, 56):
    t = start + datetime.timedelta(seconds=i * 0.2)
    a = i * 0.02
    lat = 46.2044 + 0.0008 * math.sin(a)
    lon = 6.1432 + 0.0012 * (1 - math.cos(a))
    ele = 375 + 3 * math.sin(a * 2)
    pts.append(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{ele:.2f}</ele><time>{t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]}Z</time></trkpt>')
open(sys.argv[1], "w").write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="reel-bench" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
    + "".join(pts) + "</trkseg></trk></gpx>\n")
PY

# Reel's input: the same clip with the track as a gpmd track, written by Reel itself.
"$REEL" metadata import "$WORK/track.gpx" --into "$WORK/A_1080p30.mp4" -o "$WORK/A_1080p30_gps.mp4" --overwrite >&2

FRAMES=300
# The example's composition with the peer's encoder settings: gopro-dashboard-overlay runs
# ffmpeg with libx264 veryfast at its default CRF 23 and a keyframe at most every 250
# frames, where the example keeps Reel's default of one every 2 s.
python3 - "$ROOT/Examples/gps-dashboard/composition.json" "$WORK/dashboard.json" "$WORK/A_1080p30_gps.mp4" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["sources"][0]["path"] = sys.argv[3]
c["output"]["video"]["keyframeInterval"] = 250
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
run_reel() {
    "$REEL" render "$WORK/dashboard.json" -o "$WORK/reel.mp4" --overwrite 2>/dev/null
}
run_peer() {
    (cd "$WORK" && venv/bin/gopro-dashboard.py --use-gpx-only --gpx track.gpx --video-time-start video-created \
        --overlay-size 1920x1080 --font /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf \
        A_1080p30.mp4 peer.mp4 --exclude moving_map journey_map >/dev/null 2>&1)
    # (--exclude takes several values, so the file names go before it.)
}
seconds() { local s e; s=$(date +%s.%N); "$@"; e=$(date +%s.%N); python3 -c "print($e - $s)"; }

reel_times=(); peer_times=()
for i in $(seq "$RUNS"); do
    reel_times+=("$(seconds run_reel)")
    peer_times+=("$(seconds run_peer)")
    echo "run $i: reel ${reel_times[-1]} s, gopro-dashboard-overlay ${peer_times[-1]} s" >&2
done
# The video stream's bytes, and its SSIM (all planes) against the input clip.
video_bytes() { ffprobe -v error -select_streams v:0 -show_entries packet=size -of csv=p=0 "$1" | awk '{ s += $1 } END { print s }'; }
ssim() {
    ffmpeg -v info -nostats -i "$1" -i "$WORK/A_1080p30.mp4" -lavfi "[0:v][1:v]ssim=shortest=1" -f null - 2>&1 \
        | sed -n 's/.*SSIM .* All:\([0-9.]*\).*/\1/p' | tail -n 1
}
python3 - "$FRAMES" "${reel_times[*]}" "${peer_times[*]}" "$(video_bytes "$WORK/reel.mp4")" "$(video_bytes "$WORK/peer.mp4")" \
    "$(ssim "$WORK/reel.mp4")" "$(ssim "$WORK/peer.mp4")" <<'PY'
import statistics, sys
frames = int(sys.argv[1])
reel = statistics.median(float(x) for x in sys.argv[2].split())
peer = statistics.median(float(x) for x in sys.argv[3].split())
reel_bytes, peer_bytes = int(sys.argv[4]), int(sys.argv[5])
kbps = lambda b: b * 8 / (frames / 30) / 1000
print(f"reel render gps-dashboard:  {frames / reel:6.1f} fps (median of {len(sys.argv[2].split())}, {reel:.2f} s), "
      f"video {reel_bytes / 1e6:.2f} MB ({kbps(reel_bytes):.0f} kbit/s), SSIM {sys.argv[6]}")
print(f"gopro-dashboard-overlay:    {frames / peer:6.1f} fps (median of {len(sys.argv[3].split())}, {peer:.2f} s), "
      f"video {peer_bytes / 1e6:.2f} MB ({kbps(peer_bytes):.0f} kbit/s), SSIM {sys.argv[7]}")
print(f"ratio: {peer / reel:.2f}x the speed, {reel_bytes / peer_bytes:.3f}x the size")
PY
