#!/usr/bin/env python3
"""The preview page's speed, measured in headless Chromium as a user sees it.

    preview.py URL COMPOSITION.json

URL is a running `reel preview COMPOSITION.json`. Prints one line per measure:
  seek: 200 random frames, from the request to the frame on the canvas (p50, p95, ms; the
        95th percentile of 60, as this measured before, moved by 30 ms from run to run)
  step: one frame forward or back (p95, ms)
  scrub: 60 seeks a second for 5 s (repaints a second; whether it ends on the exact frame)
  play: the whole composition at its rate (frames shown a second, frames dropped, drift of
        the picture behind the page's clock, which is the sound's when the composition has sound)
  edit: a saved edit of the composition file until its frame is on the canvas (p95, ms)
"""
import json, random, statistics, sys, time
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

url, composition = sys.argv[1], sys.argv[2]
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
# Media plays without a click (a person's click on play would allow it), so a composition
# with sound plays it, and the page's clock follows the sound.
for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
             "--autoplay-policy=no-user-gesture-required"):
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_script_timeout(120)

# Seeks to frame N and resolves with the milliseconds until it is on the canvas.
SEEK = """
const [n, done] = arguments, s = window.reelPreview, t0 = performance.now();
s.seek(n);
(function wait() { if (s.shownFrame === n && !s.inFlight) done(performance.now() - t0); else requestAnimationFrame(wait); })();
"""

def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]

try:
    driver.get(url)
    while not driver.execute_script("return window.reelPreview.info !== null && window.reelPreview.shownFrame === 0"):
        time.sleep(0.05)
    info = driver.execute_script("return window.reelPreview.info")
    frames, fps = info["frameCount"], info["framesPerSecond"]
    rng = random.Random(1)
    seeks = [driver.execute_async_script(SEEK, rng.randrange(frames)) for _ in range(200)]
    print(f"seek: {len(seeks)} random frames of {frames} at {info['width']}x{info['height']}: "
          f"p50 {pct(seeks, 50):.0f} ms, p95 {pct(seeks, 95):.0f} ms (target p50 <= 200, p95 <= 450)")
    start = frames // 3
    driver.execute_async_script(SEEK, start)
    steps = [driver.execute_async_script(SEEK, start + i) for i in range(1, 21)]
    steps += [driver.execute_async_script(SEEK, start + 20 - i) for i in range(1, 21)]
    print(f"step: {len(steps)} steps: p50 {pct(steps, 50):.0f} ms, p95 {pct(steps, 95):.0f} ms (target p95 <= 60)")
    # Scrub: 60 seeks a second for 5 s through the scrubber, as a dragged slider sends them.
    shown0 = driver.execute_script("return window.reelPreview.framesShown")
    t0 = time.monotonic()
    target = 0
    for i in range(300):
        target = (i * 13) % frames
        driver.execute_script("const s = document.getElementById('scrubber'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", target)
        time.sleep(max(0, t0 + (i + 1) / 60 - time.monotonic()))
    elapsed = time.monotonic() - t0
    repaints = driver.execute_script("return window.reelPreview.framesShown") - shown0
    t1 = time.monotonic()
    while not driver.execute_script("return window.reelPreview.shownFrame === arguments[0] && !window.reelPreview.inFlight", target):
        time.sleep(0.01)
        if time.monotonic() - t1 > 10: break
    exact = driver.execute_script("return window.reelPreview.shownFrame") == target
    print(f"scrub: {repaints / elapsed:.1f} repaints a second over {elapsed:.1f} s (target >= 8); ends on the exact frame: {exact}")
    # Play from the start to the end.
    driver.execute_async_script(SEEK, 0)
    driver.execute_script("window.reelPreview.framesShown = 0; window.reelPreview.framesDropped = 0; window.reelPreview.play(1);")
    t0 = time.monotonic()
    while driver.execute_script("return window.reelPreview.playing"):
        time.sleep(0.1)
    wall = time.monotonic() - t0
    shown, dropped, late, sound, problem = driver.execute_script(
        "const s = window.reelPreview; return [s.framesShown, s.framesDropped, s.lateness, s.hasSound, s.soundProblem]")
    clock = "the page's" if not sound else (f"the page's (sound off: {problem})" if problem else "the sound's")
    expected = frames / fps
    # Drift: how much further behind its clock the picture is at the end than at the start
    # (the mean lateness of the first and last 30 frames shown, from the page's own clock).
    first, last = statistics.mean(late[:30]), statistics.mean(late[-30:])
    print(f"play: {frames} frames ({expected:.1f} s) in {wall:.1f} s: {shown / wall:.1f} frames shown a second, "
          f"{dropped} dropped ({100 * dropped / frames:.1f}%), drift {60 * (last - first) / expected * 1000:.1f} ms a minute "
          f"(target <= {1000 / fps:.0f}: one frame; the picture {1000 * first:.0f} ms behind its clock at the start, {1000 * last:.0f} ms at the end; "
          f"the clock: {clock})")
    # Edits: a parameter changed and saved; until the new frame shows.
    with open(composition) as f:
        document = json.load(f)
    edits = []
    driver.execute_async_script(SEEK, frames // 2)
    for i in range(8):
        generation = driver.execute_script("return window.reelPreview.shownGeneration")
        document["compositor"].setdefault("parameters", {})["accent"] = ["#FFC83D", "#3DA5FF"][i % 2]
        time.sleep(1.05)  # a modification time of its own
        t0 = time.monotonic()
        with open(composition, "w") as f:
            json.dump(document, f)
        while driver.execute_script("return window.reelPreview.shownGeneration") <= generation:
            time.sleep(0.005)
            if time.monotonic() - t0 > 10: break
        edits.append((time.monotonic() - t0) * 1000)
    print(f"edit: {len(edits)} saved edits: p50 {pct(edits, 50):.0f} ms, p95 {pct(edits, 95):.0f} ms (target p95 <= 500)")
finally:
    driver.quit()
