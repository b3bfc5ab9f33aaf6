// reel preview: frames from the server as JPEGs over one WebSocket, newest request wins.
// The page asks for the frame its clock says (one request in flight at a time, so the
// server never queues ahead of a slow page); while playing it asks a few frames ahead of
// the clock and shows each when the clock reaches it, so a frame that takes a little longer
// to come does not cost one on the screen. It publishes what it shows on
// window.reelPreview, which the tests read. While the document's sound plays forward, the
// clock is the sound's (an <audio> element reading /sound.wav), so the picture follows it.
"use strict";

const $ = (id) => document.getElementById(id);
const canvas = $("picture"), ctx = canvas.getContext("2d");
const state = window.reelPreview = {
  info: null,          // the document: frames, size, tracks, instructions
  shownFrame: -1,      // the index of the frame on the canvas
  shownTime: null,     // its exact time (value/timescale)
  shownGeneration: -1, // the document state it was rendered from
  header: null,        // the last frame's header (metadata, instruction)
  requested: -1,       // the frame wanted last
  sent: null,          // the request sent last: { frame, tolerant }
  inFlight: false,     // a request not yet answered
  scrubbing: false,    // the scrubber is being dragged: requests take the nearest keyframe
  playing: false, rate: 1,
  prerolling: false,   // playing, its clock held until a few frames are ready (AVPlayer's waiting to play)
  framesShown: 0, framesDropped: 0,
  lateness: [],        // while playing: seconds each frame shown came after its time on the clock
  problem: null, lastError: null, connected: false,
  hasSound: false,     // the document has sound (/sound.wav)
  soundGeneration: -1, // the document state the sound was loaded from
  soundProblem: null,  // why the sound does not play (the page then keeps time itself)
};
const sound = $("sound");
let socket = null, pendingHeader = null, clockStart = 0, clockFrame = 0, scrubTimer = null;
// While playing: frames received before the clock reached them (index -> { bitmap, header }),
// and how far ahead of the clock the page asks, in frames at rate 1.
const ahead = new Map();
const PLAY_AHEAD_FRAMES = 6;
// Play starts its clock once that many frames are ready, or after this long at most.
const PREROLL_MS = 1000;
let prerollStart = 0;
// While the scrubber moves, a seek may show a frame up to this many seconds before the one
// asked for (the server picks a keyframe, one picture to decode); once it rests, the exact one.
const SCRUB_TOLERANCE_SECONDS = 5, SCRUB_REST_MS = 150;

function send(message) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(message)); }

function request(frame) {
  if (!state.info) return;
  frame = Math.max(0, Math.min(state.info.frameCount - 1, frame | 0));
  state.requested = frame;
  state.inFlight = true;
  const tolerant = state.scrubbing;
  state.sent = { frame, tolerant };
  const message = { type: "seek", frame };
  if (tolerant) message.toleranceBefore = Math.round(SCRUB_TOLERANCE_SECONDS * state.info.framesPerSecond);
  send(message);
}

// Whether the frame wanted differs from what was last asked for: another frame, or the exact
// one after a tolerant request that landed elsewhere and the scrubber has come to rest.
function wantsAnotherFrame() {
  const sent = state.sent;
  if (!sent || state.requested !== sent.frame) return true;
  return !state.scrubbing && sent.tolerant && state.shownFrame !== state.requested;
}

function seek(frame) {
  if (state.playing) pause(false);
  stopScrubbing();
  request(frame);
}

function stopScrubbing() {
  clearTimeout(scrubTimer);
  state.scrubbing = false;
}

function connect() {
  socket = new WebSocket(`ws://${location.host}/socket`);
  socket.binaryType = "blob";
  socket.onopen = () => { state.connected = true; $("status").textContent = "connected"; };
  socket.onclose = () => { state.connected = false; $("status").textContent = "disconnected: reload the page"; };
  socket.onmessage = async (event) => {
    if (typeof event.data !== "string") { await showFrame(event.data); return; }
    const message = JSON.parse(event.data);
    switch (message.type) {
      case "info": setInfo(message); break;
      case "frame": pendingHeader = message; break;
      case "invalid": showProblem(message.message); break;
      case "error": state.lastError = message.message; state.inFlight = false; $("status").textContent = message.message; break;
    }
  };
}

function setInfo(info) {
  const first = !state.info;
  state.info = info;
  // A reload: frames rendered from the document as it was are not shown.
  dropAhead();
  showProblem(info.problem || null);
  $("name").textContent = info.name;
  canvas.width = info.width; canvas.height = info.height;
  $("scrubber").max = Math.max(0, info.frameCount - 1);
  drawTimeline();
  setSound(info);
  if (first) request(0);
}

// The sound of the document's current state: loaded again when a reload changed it (the
// server's soundGeneration; an edit of the picture alone keeps the sound playing), and
// picked up where the picture is when it changes during play.
function setSound(info) {
  state.hasSound = !!info.hasSound;
  $("mute").hidden = !state.hasSound;
  if (!state.hasSound) {
    if (sound.getAttribute("src")) { sound.pause(); sound.removeAttribute("src"); sound.load(); }
    state.soundGeneration = -1;
    return;
  }
  if (info.soundGeneration === state.soundGeneration) return;
  state.soundGeneration = info.soundGeneration;
  state.soundProblem = null;
  sound.src = `/sound.wav?generation=${info.soundGeneration}`;
  if (state.playing && !state.prerolling) startSound(Math.max(0, state.shownFrame));
}

// Whether the sound keeps the time now: playing forward, with sound that plays.
function soundKeepsTime() {
  return state.playing && state.rate === 1 && state.hasSound && !state.soundProblem;
}

function startSound(frame) {
  sound.currentTime = frame / state.info.framesPerSecond;
  const started = sound.play();
  if (started) started.catch((e) => soundFailed(e.message || String(e)));
}

// The sound cannot play (no device, a refused autoplay, a broken stream): the page keeps
// time itself from where the sound was, and says so.
function soundFailed(message) {
  if (state.soundProblem) return;
  const frame = state.info ? frameAt(sound.currentTime) : 0;
  state.soundProblem = message;
  $("status").textContent = `sound off: ${message}`;
  if (state.playing && !state.prerolling) { clockFrame = frame; clockStart = performance.now(); }
}
sound.onerror = () => { if (sound.getAttribute("src")) soundFailed(`the sound could not be played (${sound.error ? sound.error.message || sound.error.code : "unknown"})`); };

// The frame showing at `seconds` from the first. The sound's time may come back a fraction
// of a sample before where it was set (a frame's start), which still counts as that frame.
function frameAt(seconds) {
  return Math.floor(seconds * state.info.framesPerSecond + 1e-3);
}

// The clock, in seconds from the document's first frame.
function clockSeconds() {
  if (state.prerolling) return clockFrame / state.info.framesPerSecond;
  if (soundKeepsTime()) return sound.currentTime;
  const elapsed = Math.max(0, (performance.now() - clockStart) / 1000);
  return clockFrame / state.info.framesPerSecond + elapsed * state.rate;
}

function toggleMute() {
  sound.muted = !sound.muted;
  $("mute").classList.toggle("muted", sound.muted);
}

function showProblem(text) {
  state.problem = text;
  $("problem").hidden = !text;
  $("problem").textContent = text || "";
}

async function showFrame(blob) {
  const header = pendingHeader;
  pendingHeader = null;
  if (!header) return;
  const bitmap = await createImageBitmap(blob);
  state.inFlight = false;
  if (state.playing) {
    // Kept until the clock reaches it; one behind the clock shows at once, unless the
    // picture has already moved past it (a frame asked for when the picture was behind).
    const direction = Math.sign(state.rate) || 1;
    if (state.shownFrame >= 0 && direction * (header.index - state.shownFrame) <= 0) {
      bitmap.close();
      askAhead();
      return;
    }
    if (direction * (header.index - frameAt(clockSeconds())) > 0) {
      const old = ahead.get(header.index);
      if (old) old.bitmap.close();
      ahead.set(header.index, { bitmap, header });
      askAhead();
      return;
    }
  }
  present(bitmap, header);
}

// Draws a frame and records it as shown.
function present(bitmap, header) {
  ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  if (state.playing && state.shownFrame >= 0 && Math.abs(header.index - state.shownFrame) > 1) {
    state.framesDropped += Math.abs(header.index - state.shownFrame) - 1;
  }
  if (state.playing) {
    state.lateness.push((clockSeconds() - header.index / state.info.framesPerSecond) * Math.sign(state.rate));
  }
  state.shownFrame = header.index;
  state.shownTime = header.time;
  state.shownGeneration = header.generation;
  state.header = header;
  state.framesShown += 1;
  // Not under a dragging hand: a tolerant frame may be a little before the scrubber.
  if (!state.scrubbing) $("scrubber").value = header.index;
  $("position").textContent = `frame ${header.index} · ${header.seconds.toFixed(3)} s`;
  showMetadata(header);
  movePlayhead(header.seconds);
  if (!state.playing && wantsAnotherFrame()) request(state.requested);
}

function showMetadata(header) {
  const info = state.info;
  const instruction = header.instruction == null ? null : info.instructions[header.instruction];
  $("frame-info").innerHTML = "";
  const rows = [["frame", header.index], ["time", `${header.time} (${header.seconds.toFixed(6)} s)`],
    ["instruction", instruction ? `#${instruction.index} ${instruction.start.toFixed(3)}–${instruction.end.toFixed(3)} s` : "none"],
    ["drawn by", header.passthrough ? `passthrough of track ${instruction && instruction.passthroughTrackID}` : "compositor"]];
  $("frame-info").appendChild(table(rows));
  const box = $("metadata");
  box.innerHTML = "";
  if (!header.metadata.length) { box.textContent = header.passthrough ? "none (passthrough)" : "none at this time"; return; }
  for (const group of header.metadata) {
    const title = document.createElement("div");
    title.className = "track-title";
    title.textContent = `track ${group.trackID} · ${group.start.toFixed(3)}–${group.end.toFixed(3)} s`;
    box.appendChild(title);
    box.appendChild(table(group.items.map((item) => [item.identifier, item.unit ? `${item.value} ${item.unit}` : item.value])));
  }
}

function table(rows) {
  const t = document.createElement("table");
  for (const [key, value] of rows) {
    const tr = t.insertRow();
    const k = tr.insertCell(); k.className = "key"; k.textContent = key;
    tr.insertCell().textContent = String(value);
  }
  return t;
}

function drawTimeline() {
  const info = state.info, box = $("timeline");
  box.innerHTML = "";
  const span = Math.max(info.duration, 1e-9), x = (t) => `${((t - info.start) / span) * 100}%`;
  const w = (a, b) => `${((b - a) / span) * 100}%`;
  const row = (label) => { const r = document.createElement("div"); r.className = "row"; const l = document.createElement("span"); l.className = "label"; l.textContent = label; r.appendChild(l); box.appendChild(r); return r; };
  const seg = (r, cls, a, b, text, title) => { const s = document.createElement("div"); s.className = `seg ${cls}`; s.style.left = x(a); s.style.width = w(a, b); s.textContent = text; s.title = title || text; r.appendChild(s); return s; };
  for (const track of info.tracks) {
    const r = row(`${track.mediaType} ${track.trackID}`);
    const kind = ["video", "audio", "metadata"].includes(track.mediaType) ? track.mediaType : "other";
    for (const s of track.segments) seg(r, s.source ? kind : "empty", s.start, s.end, s.source || "empty");
  }
  const r = row("instructions");
  for (const i of info.instructions) {
    const ids = i.requiredSampleDataTrackIDs.length ? `metadata ${i.requiredSampleDataTrackIDs.join(", ")}` : "no metadata";
    const text = i.passthroughTrackID != null ? `passthrough ${i.passthroughTrackID}` : ids;
    const s = seg(r, "instruction", i.start, i.end, `#${i.index} ${text}`, `instruction ${i.index}: ${i.start}–${i.end} s, ${text}, layers ${i.layers.join(", ")}`);
    s.dataset.index = i.index;
  }
  const head = document.createElement("div"); head.id = "playhead"; box.appendChild(head);
  box.onclick = (e) => {
    const rect = box.getBoundingClientRect(), left = rect.left + 72;
    const f = (e.clientX - left) / (rect.width - 72);
    seek(Math.round(f * (info.frameCount - 1)));
  };
}

function movePlayhead(seconds) {
  const info = state.info, head = $("playhead");
  if (!head) return;
  const f = (seconds - info.start) / Math.max(info.duration, 1e-9);
  head.style.left = `calc(72px + (100% - 72px) * ${Math.max(0, Math.min(1, f))})`;
  for (const el of document.querySelectorAll(".seg.instruction")) {
    el.classList.toggle("current", state.header && Number(el.dataset.index) === state.header.instruction);
  }
}

// Playback: the page's clock says which frame should show; one request in flight.
function play(rate) {
  if (!state.info) return;
  stopScrubbing();
  state.rate = rate;
  state.playing = true;
  state.lateness = [];
  clockFrame = Math.max(0, state.shownFrame);
  // The clock (and the sound) start once the first frames after this one are ready.
  state.prerolling = true;
  prerollStart = performance.now();
  if (!sound.paused) sound.pause();
  // The sound waits where the picture is.
  if (soundKeepsTime()) sound.currentTime = clockFrame / state.info.framesPerSecond;
  $("play").innerHTML = "&#10074;&#10074;";
  requestAnimationFrame(tick);
}

// Whether enough frames are ready to start the clock: PLAY_AHEAD_FRAMES after the shown
// one (fewer near the end), or PREROLL_MS gone by.
function prerolled() {
  const direction = Math.sign(state.rate) || 1;
  const left = direction > 0 ? state.info.frameCount - 1 - clockFrame : clockFrame;
  let ready = 0;
  for (const index of ahead.keys()) if (direction * (index - clockFrame) > 0) ready += 1;
  return ready >= Math.min(PLAY_AHEAD_FRAMES, left) || performance.now() - prerollStart > PREROLL_MS;
}

// Stops playing. After sound, the picture comes to rest on the frame where the sound
// stopped (`settle`), unless the caller asks for another one.
function pause(settle = true) {
  const withSound = soundKeepsTime() && !state.prerolling;
  state.playing = false;
  state.prerolling = false;
  dropAhead();
  if (!sound.paused) sound.pause();
  $("play").innerHTML = "&#9654;";
  if (withSound && settle && state.info) {
    const frame = Math.max(0, Math.min(state.info.frameCount - 1, frameAt(sound.currentTime)));
    state.requested = frame;
    if (!state.inFlight && frame !== state.shownFrame) request(frame);
  }
}

function tick() {
  if (!state.playing) return;
  const info = state.info;
  // performance.now() (in clockSeconds), not the animation frame's time stamp: that one
  // can be earlier than the moment play started, which would put the clock before its
  // first frame. While the sound loads, its time stands still, and so does the picture.
  if (state.prerolling) {
    askAhead();
    if (prerolled()) {
      state.prerolling = false;
      clockStart = performance.now();
      if (soundKeepsTime()) startSound(clockFrame);
    }
    requestAnimationFrame(tick);
    return;
  }
  const target = frameAt(clockSeconds());
  const last = Math.max(0, Math.min(info.frameCount - 1, target));
  showReached(last);
  if (target >= info.frameCount || target < 0) {
    if (!state.inFlight && state.shownFrame !== last) request(last);
    pause();
    return;
  }
  askAhead();
  requestAnimationFrame(tick);
}

// Shows the newest frame kept ahead that the clock has reached (`target`), and lets go of
// the ones it passed.
function showReached(target) {
  const direction = Math.sign(state.rate) || 1;
  let newest = null;
  for (const [index, frame] of ahead) {
    if (direction * (index - target) > 0) continue;
    if (newest !== null && direction * (index - newest) < 0) { frame.bitmap.close(); ahead.delete(index); continue; }
    if (newest !== null) { ahead.get(newest).bitmap.close(); ahead.delete(newest); }
    newest = index;
  }
  if (newest === null) return;
  const { bitmap, header } = ahead.get(newest);
  ahead.delete(newest);
  present(bitmap, header);
}

// While playing, with no request in flight: the frame the clock says when the picture is
// behind it, else the next one after those kept, up to a few frames ahead of the clock.
function askAhead() {
  if (!state.playing || state.inFlight || !state.info) return;
  const direction = Math.sign(state.rate) || 1, step = Math.max(1, Math.round(Math.abs(state.rate)));
  const target = frameAt(clockSeconds());
  let furthest = state.shownFrame;
  for (const index of ahead.keys()) if (direction * (index - furthest) > 0) furthest = index;
  const next = direction * (furthest - target) < 0 ? target : furthest + direction * step;
  if (direction * (next - target) > PLAY_AHEAD_FRAMES * step) return;
  if (next < 0 || next >= state.info.frameCount) return;
  request(next);
}

function dropAhead() {
  for (const frame of ahead.values()) frame.bitmap.close();
  ahead.clear();
}

function parseGoto(text) {
  text = text.trim();
  const info = state.info;
  if (/^\d+$/.test(text)) return parseInt(text, 10);
  const m = text.match(/^(\d+(?:\.\d+)?)\s*s$/) || text.match(/^(\d+):(\d+(?:\.\d+)?)$/);
  if (!m) return null;
  const seconds = m.length === 3 && text.includes(":") ? parseInt(m[1], 10) * 60 + parseFloat(m[2]) : parseFloat(m[1]);
  return Math.floor((seconds - info.start) * info.framesPerSecond + 1e-6);
}

$("play").onclick = () => (state.playing ? pause() : play(1));
$("back").onclick = () => seek(state.shownFrame - 1);
$("forward").onclick = () => seek(state.shownFrame + 1);
$("mute").onclick = toggleMute;
$("scrubber").oninput = (e) => {
  if (state.playing) pause(false);
  state.requested = Number(e.target.value);
  state.scrubbing = true;
  clearTimeout(scrubTimer);
  scrubTimer = setTimeout(() => {
    state.scrubbing = false;
    if (!state.inFlight && wantsAnotherFrame()) request(state.requested);
  }, SCRUB_REST_MS);
  if (!state.inFlight) request(state.requested);
};
$("goto").onsubmit = (e) => {
  e.preventDefault();
  const frame = parseGoto($("goto-text").value);
  if (frame == null) { $("status").textContent = "go to: a frame number, 1.5s or 0:01.5"; return; }
  seek(frame);
};
document.addEventListener("keydown", (e) => {
  if (e.target && e.target.tagName === "INPUT" && e.target.type === "text") return;
  switch (e.key) {
    case "ArrowLeft": seek(state.shownFrame - 1); break;
    case "ArrowRight": seek(state.shownFrame + 1); break;
    case " ": case "k": case "K": state.playing ? pause() : play(1); break;
    case "l": case "L": play(1); break;
    case "j": case "J": play(-1); break;
    case "m": case "M": toggleMute(); break;
    case "Home": seek(0); break;
    case "End": seek(state.info ? state.info.frameCount - 1 : 0); break;
    default: return;
  }
  e.preventDefault();
});

// For scripts that drive the page (the browser test, Benchmarks/preview.sh).
state.seek = seek;
state.play = play;
state.pause = pause;

connect();
