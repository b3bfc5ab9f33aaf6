#!/usr/bin/env python3
"""The preview page in a real browser: Debian's headless Chromium driven by Selenium.

    preview_page.py URL COMPOSITION.json SCREENSHOT.png

URL is a running `reel preview COMPOSITION.json` whose composition has sound. The script
opens the page, plays about two seconds with the sound, steps and seeks to exact frames,
checks the canvas against the server's lossless frame (GET /frames/N.png) and the
metadata panel against the frame's header, edits the composition file and waits for the
new frame, and saves a screenshot. Each check prints one line; the last line is
"N passed, M failed", and the exit status is 1 when any check failed.
"""
import json
import sys
import time

import chromium
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

url, composition, screenshot = sys.argv[1], sys.argv[2], sys.argv[3]
passed, failed = 0, 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok: {what}")
    else:
        failed += 1
        print(f"FAILED: {what}")


driver = chromium.driver("--window-size=1400,1000")


def page(expression):
    return driver.execute_script(f"return {expression};")


def wait_until(condition, what, limit=30.0):
    """Polls until `condition()` holds (a guard against a hung page, not a timing check)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            if condition():
                return True
        except Exception:
            pass
        time.sleep(0.05)
    print(f"  (gave up waiting for {what})")
    return False


# How far the canvas is from the server's lossless frame N: the mean absolute difference
# of the RGB values (the canvas shows a JPEG of the same frame).
DIFFERENCE = """
const [index, done] = arguments;
const image = new Image();
image.onload = () => {
  const a = document.getElementById('picture');
  const c = document.createElement('canvas'); c.width = a.width; c.height = a.height;
  const x = c.getContext('2d'); x.drawImage(image, 0, 0, c.width, c.height);
  const p = a.getContext('2d').getImageData(0, 0, a.width, a.height).data;
  const q = x.getImageData(0, 0, c.width, c.height).data;
  let sum = 0, n = 0;
  for (let i = 0; i < p.length; i += 4) { for (let k = 0; k < 3; k++) { sum += Math.abs(p[i + k] - q[i + k]); n++; } }
  done(sum / n);
};
image.onerror = () => done(-1);
image.src = '/frames/' + index + '.png?' + Date.now();
"""


def difference(index):
    return driver.execute_async_script(DIFFERENCE, index)


def shown():
    return page("window.reelPreview.shownFrame")


try:
    driver.set_script_timeout(30)
    driver.get(url)
    check(wait_until(lambda: page("window.reelPreview.info !== null") and shown() == 0, "the first frame"), "the page opens on frame 0")
    info = page("window.reelPreview.info")
    frames = info["frameCount"]
    check(frames > 0 and len(info["tracks"]) >= 1 and len(info["instructions"]) >= 1,
          f"the timeline lists {len(info['tracks'])} tracks and {len(info['instructions'])} instructions")
    labels = driver.find_elements(By.CSS_SELECTOR, ".seg.instruction")
    check(any("metadata" in e.text for e in labels), "instruction bars are labelled with the metadata tracks they require")

    def key(k):
        ActionChains(driver).send_keys(k).perform()

    # Play (L) to the end, where playback stops by itself, the picture following the sound;
    # then play and pause (K).
    fps = info["framesPerSecond"]
    check(info["hasSound"] and "/sound.wav" in page("document.getElementById('sound').src"), "the page loads the document's sound")
    SOUND = "const s = document.getElementById('sound'); return [s.currentTime, s.paused, window.reelPreview.shownFrame, window.reelPreview.playing];"
    start_shown = page("window.reelPreview.framesShown")
    key("l")
    polls = []
    while len(polls) < 2400:
        polls.append(driver.execute_script(SOUND))
        if not polls[-1][3]:
            break
        time.sleep(0.05)
    wait_until(lambda: not page("window.reelPreview.inFlight"), "the last frame of the play")
    played = page("window.reelPreview.framesShown") - start_shown
    check(not polls[-1][3] and shown() == frames - 1 and played > 1,
          f"L played to the last frame, {frames - 1} ({played} frames shown, {page('window.reelPreview.framesDropped')} dropped)")
    playing = [p for p in polls if p[3] and not p[1]]
    heard = max((p[0] for p in playing), default=0)
    gaps = sorted(int(p[0] * fps + 1e-3) - p[2] for p in playing)
    check(page("window.reelPreview.soundProblem") is None and heard > 0.5 * frames / fps,
          f"the sound played along, to {heard:.2f} s of {frames / fps:.2f} s (frames behind the sound while playing: "
          f"median {gaps[len(gaps) // 2] if gaps else '-'}, most {gaps[-1] if gaps else '-'})")
    key(Keys.HOME)
    wait_until(lambda: shown() == 0, "the first frame again")
    key("l")
    wait_until(lambda: page("document.getElementById('sound').currentTime") > 0.4, "some sound", limit=10)
    key("k")
    check(page("window.reelPreview.playing") is False and page("document.getElementById('sound').paused"), "K pauses the picture and the sound")
    wait_until(lambda: not page("window.reelPreview.inFlight"), "the frame after the pause")
    rest = page("document.getElementById('sound').currentTime")
    check(wait_until(lambda: shown() == int(rest * fps + 1e-3), "the frame where the sound stopped"),
          f"paused, the picture rests where the sound stopped: frame {shown()} at {rest:.3f} s")
    key("m")
    muted = page("document.getElementById('sound').muted")
    key("m")
    check(muted and not page("document.getElementById('sound').muted"), "M turns the sound off and on")
    driver.execute_script("window.reelPreview.seek(20)")
    wait_until(lambda: shown() == 20 and not page("window.reelPreview.inFlight"), "frame 20")

    # Frame steps.
    before = shown()
    key(Keys.ARROW_LEFT)
    check(wait_until(lambda: shown() == before - 1, "a step back"), f"← shows frame {before - 1}")
    key(Keys.ARROW_RIGHT)
    check(wait_until(lambda: shown() == before, "a step forward"), f"→ shows frame {before}")

    # Exact seeks by frame and by time, each checked against the server's lossless frame.
    for text, expected in (("37", 37), ("1.5s", int(1.5 * fps + 1e-6)), ("0", 0), (str(frames - 1), frames - 1)):
        box = driver.find_element(By.ID, "goto-text")
        box.clear()
        box.send_keys(text + Keys.ENTER)
        landed = wait_until(lambda: shown() == expected and not page("window.reelPreview.inFlight"), f"frame {expected}")
        same = difference(expected)
        other = difference(expected - 1 if expected > 0 else expected + 1)
        check(landed and 0 <= same < 6 and same < other / 2,
              f"go to {text}: frame {shown()} shown, {same:.2f} from its lossless frame ({other:.2f} from the next one over)")

    # The metadata panel shows what the frame's compositor received.
    header = page("window.reelPreview.header")
    panel = driver.find_element(By.ID, "metadata").text
    values = [item["value"] for group in header["metadata"] for item in group["items"]]
    check(len(header["metadata"]) >= 1 and all(v in panel for v in values[:8]),
          f"the metadata panel shows the {len(values)} values of track {[g['trackID'] for g in header['metadata']]}")

    driver.save_screenshot(screenshot)

    # A scrub: 60 seeks a second for about two seconds, then the exact frame at the end.
    scrubber = driver.find_element(By.ID, "scrubber")
    shown_before = page("window.reelPreview.framesShown")
    for i in range(120):
        driver.execute_script("const s = document.getElementById('scrubber'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));",
                              (i * 7) % frames)
        time.sleep(1 / 60)
    final = (119 * 7) % frames
    check(wait_until(lambda: shown() == final and not page("window.reelPreview.inFlight"), "the scrub's last frame"),
          f"a scrub ends on the exact frame {final} ({page('window.reelPreview.framesShown') - shown_before} repaints)")

    # Edit the composition: the frame shown is rendered again from the new file; the sound,
    # which the edit leaves as it was, is not loaded again.
    generation = page("window.reelPreview.shownGeneration")
    sound_before = page("document.getElementById('sound').src")
    with open(composition) as f:
        document = json.load(f)
    document["compositor"].setdefault("parameters", {})["accent"] = "#3DA5FF"
    with open(composition, "w") as f:
        json.dump(document, f)
    check(wait_until(lambda: page("window.reelPreview.shownGeneration") > generation and shown() == final, "the edited frame"),
          "saving the composition file shows the frame drawn from the new file")
    check(page("document.getElementById('sound').src") == sound_before,
          f"an edit of the picture keeps the sound loaded ({sound_before})")
    # A broken file: the page says why and keeps its picture.
    with open(composition, "w") as f:
        f.write('{"version": 1, "sources": [{"name": "camera", "path": 7}]}')
    check(wait_until(lambda: page("window.reelPreview.problem") is not None, "the problem line"),
          f"a file that no longer loads is reported: {page('window.reelPreview.problem')}")
    check(shown() == final, "the last good picture stays")
    driver.save_screenshot(screenshot.replace(".png", "-problem.png"))
finally:
    driver.quit()

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
