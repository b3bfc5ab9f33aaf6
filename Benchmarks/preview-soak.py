#!/usr/bin/env python3
"""What pages leave behind in a running `reel preview`, from its /proc entries.

    preview-soak.py URL PID [SEEKS]

URL is a running `reel preview`, PID its process. Speaks the page's WebSocket protocol
(websocket-client, which Selenium depends on) and prints one line per check, then
"soak: passed" or "soak: FAILED: ..." (exit status 1):
  pages: one page opened and closed, then four at once, each playing (asking for frame
         after frame at 30 a second) for 2 s; one of them drops its connection mid-play
         without closing it, the others close. Afterwards the server has as many threads
         and open file descriptors as after the first page, not counting the media files
         it keeps open for their next readers (two demuxers a file at most).
  seeks: SEEKS (1000) exact seeks to random frames on one page, each waited for. The
         resident memory after them is within 5% of where it was after the first 100.
  closed: the resident memory once that page closed (the server lets go of its readers
         and gives the freed memory back), beside where it was before the first page;
         reported, not checked.
"""
import json, random, socket, sys, time
import websocket

import os
if len(sys.argv) not in (3, 4) or not sys.argv[2].isdigit() or (len(sys.argv) == 4 and not sys.argv[3].isdigit()):
    sys.exit("usage: preview-soak.py URL PID [SEEKS]")
url, pid = sys.argv[1].rstrip("/"), int(sys.argv[2])
seeks = max(1, int(sys.argv[3])) if len(sys.argv) > 3 else 1000
if not os.path.isdir(f"/proc/{pid}"):
    sys.exit(f"preview-soak.py: no process {pid}")
ws_url = url.replace("http://", "ws://") + "/socket"
origin = url


def threads():
    return len(os.listdir(f"/proc/{pid}/task"))


def thread_names():
    """The threads' names (/proc/PID/task/TID/comm), counted: what a leak left running."""
    names = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        names[name] = names.get(name, 0) + 1
    return names


def open_files():
    """What each open descriptor is: a file's path, socket:[inode], pipe:[inode]."""
    names = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            names.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
    return names


MEDIA = (".mp4", ".mov", ".m4v", ".m4a", ".mkv", ".webm", ".mts", ".ts")


def descriptors():
    """Open descriptors, less those of media files up to two a file: a file keeps up to two
    demuxers open for its next readers (MediaFile), so how many are open depends on how
    many readers once ran at the same time, not on what pages left behind. A leaked reader
    shows here beyond that, and as its threads."""
    names = open_files()
    media = {}
    for name in names:
        if name.startswith("/") and name.lower().endswith(MEDIA):
            media[name] = media.get(name, 0) + 1
    return len(names) - sum(min(count, 2) for count in media.values())


def rss_kb():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Page:
    """One page's connection: the info message first, then frames (a header, then a JPEG)."""

    def __init__(self):
        self.ws = websocket.create_connection(ws_url, origin=origin, timeout=60)
        self.info = None
        while self.info is None:
            message = self.ws.recv()
            if isinstance(message, str) and json.loads(message).get("type") == "info":
                self.info = json.loads(message)

    def show(self, frame):
        """Asks for `frame` and waits for it: its header, then its JPEG."""
        self.ws.send(json.dumps({"type": "seek", "frame": frame}))
        while True:
            message = self.ws.recv()
            if isinstance(message, str):
                reply = json.loads(message)
                if reply.get("type") == "frame" and reply.get("index") == frame:
                    jpeg = self.ws.recv()
                    if not isinstance(jpeg, bytes) or not jpeg.startswith(b"\xff\xd8"):
                        raise RuntimeError(f"frame {frame}: no JPEG after its header")
                    return
                if reply.get("type") == "error":
                    raise RuntimeError(f"frame {frame}: {reply.get('message')}")

    def play(self, seconds, start=0):
        t0, frame = time.monotonic(), start
        while time.monotonic() - t0 < seconds and frame < self.info["frameCount"]:
            self.show(frame)
            frame = start + int((time.monotonic() - t0) * 30) + 1

    def close(self):
        self.ws.close()

    def drop(self):
        """Gone without a word, as a page whose tab is killed."""
        self.ws.sock.shutdown(socket.SHUT_RDWR)
        self.ws.sock.close()


def settle(expected_threads, expected_fds, wait=30):
    """Threads and descriptors once the server has let go (polled up to `wait` s: on a
    loaded machine a render under way when its page went, and the idle worker threads the
    system reaps after a few seconds, take longer to end; what is still there after that
    is a leak)."""
    t0 = time.monotonic()
    while True:
        now = (threads(), descriptors())
        if (now[0] <= expected_threads and now[1] <= expected_fds) or time.monotonic() - t0 > wait:
            return now
        time.sleep(0.1)


failures = []
idle_rss = rss_kb()
try:
    first = Page()
except (OSError, websocket.WebSocketException) as error:
    sys.exit(f"preview-soak.py: {ws_url}: {error}")
first.play(1)
first.close()
time.sleep(1)
base_threads, base_fds = threads(), descriptors()
base_files = open_files()
base_names = thread_names()

import threading
pages = [Page() for _ in range(4)]
peak = [threads(), descriptors()]
def run(i):
    page = pages[i]
    page.play(2, start=i * 5)
    if i == 0:
        page.drop()
    else:
        page.close()
workers = [threading.Thread(target=run, args=(i,)) for i in range(4)]
for w in workers: w.start()
time.sleep(1)
peak = [max(peak[0], threads()), max(peak[1], descriptors())]
for w in workers: w.join()
after_threads, after_fds = settle(base_threads, base_fds)
print(f"pages: after one page {base_threads} threads, {base_fds} descriptors; with four playing {peak[0]}, {peak[1]}; "
      f"after they went (one dropped mid-play) {after_threads}, {after_fds}")
if after_threads > base_threads or after_fds > base_fds:
    left = open_files()
    for name in base_files:
        if name in left: left.remove(name)
    now_names = thread_names()
    more = [f"{name} {count - base_names.get(name, 0)}" for name, count in sorted(now_names.items()) if count > base_names.get(name, 0)]
    failures.append(f"pages left {after_threads - base_threads} threads and {after_fds - base_fds} descriptors behind "
                    f"(open now and not before: {', '.join(sorted(left)) or 'none'}; threads more than before: {', '.join(more) or 'none'})")

page = Page()
frames = page.info["frameCount"]
rng = random.Random(1)
warm = None
t0 = time.monotonic()
for i in range(seeks):
    page.show(rng.randrange(frames))
    if i == min(99, seeks - 1):
        warm = rss_kb()
end = rss_kb()
page.close()
growth = (end - warm) / warm * 100
print(f"seeks: {seeks} random exact seeks of {frames} frames in {time.monotonic() - t0:.1f} s; "
      f"resident {warm} KB after 100, {end} KB after {seeks} ({growth:+.1f}%, limit 5%)")
if growth > 5:
    failures.append(f"memory grew {growth:.1f}% over {seeks} seeks")
time.sleep(1)
print(f"closed: resident {rss_kb()} KB once the last page closed ({idle_rss} KB before the first page)")

print("soak: passed" if not failures else "soak: FAILED: " + "; ".join(failures))
sys.exit(1 if failures else 0)
