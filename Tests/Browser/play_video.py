#!/usr/bin/env python3
"""A video file played to its end in a real browser: Debian's headless Chromium, driven by
Selenium, with a plain <video> element.

    play_video.py VIDEO.mp4

Writes a page beside the video, plays the video muted at normal speed, and waits for its
end. Prints one line,
    video: ended=BOOL error=CODE time=T/DURATION frames=N dropped=D corrupted=C
(the counts are the page's getVideoPlaybackQuality()), and exits 1 unless the video played
to its end with no error and no dropped or corrupted frame.
"""
import os
import sys
import time

import chromium

if len(sys.argv) != 2 or not os.path.isfile(sys.argv[1]):
    sys.exit("usage: play_video.py VIDEO.mp4")
video = os.path.abspath(sys.argv[1])
page = os.path.join(os.path.dirname(video), "play-" + os.path.basename(video) + ".html")
with open(page, "w") as f:
    f.write(f"""<!doctype html><meta charset="utf-8"><title>play</title>
<video id="v" muted playsinline preload="auto" src="{os.path.basename(video)}"></video>
<script>
const v = document.getElementById("v");
window.outcome = null;
v.addEventListener("ended", () => {{ window.outcome = "ended"; }});
v.addEventListener("error", () => {{ window.outcome = "error"; }});
v.play().catch(e => {{ window.outcome = "play() refused: " + e; }});
</script>""")

driver = chromium.driver("--allow-file-access-from-files")
try:
    driver.get("file://" + page)
    # A guard against a page that never ends (not a timing check): three times the
    # video's length, once it is known, and a minute to learn it.
    start = time.monotonic()
    limit = 60.0
    while time.monotonic() - start < limit:
        state = driver.execute_script("""
            const v = document.getElementById('v'), q = v.getVideoPlaybackQuality();
            return {outcome: window.outcome, error: v.error ? v.error.code : 0, time: v.currentTime, duration: v.duration,
                    frames: q.totalVideoFrames, dropped: q.droppedVideoFrames, corrupted: q.corruptedVideoFrames};""")
        if state["duration"] and state["duration"] == state["duration"]:  # not NaN
            limit = max(limit, 3 * state["duration"] + 30)
        if state["outcome"]:
            break
        time.sleep(0.2)
    print(f"video: ended={state['outcome'] == 'ended'} error={state['error']} time={state['time']:.3f}/{state['duration']} "
          f"frames={state['frames']} dropped={state['dropped']} corrupted={state['corrupted']}"
          + ("" if state["outcome"] in ("ended", "error", None) else f" ({state['outcome']})"))
    ok = state["outcome"] == "ended" and state["error"] == 0 and state["dropped"] == 0 and state["corrupted"] == 0
finally:
    driver.quit()
    os.remove(page)
sys.exit(0 if ok else 1)
