import Foundation

/// Scenarist Closed Captions (`.scc`): CEA-608 byte pairs as hex words after SMPTE
/// timecodes at 29.97 fps, one word a frame.
///
/// Read: drop-frame (`;`) and non-drop (`:`) timecodes, every channel CC1-CC4, pop-on,
/// roll-up and paint-on captioning (`CEA608Decoder`). A word with a parity error is
/// skipped with a warning; a word that is not four hex digits, a malformed timecode or a
/// missing `Scenarist_SCC V1.0` header is an error naming the line.
///
/// Written: control codes sent twice, drop-frame timecodes. A caption without animation is
/// pop-on: loaded into non-displayed memory in the frames before it starts, so that its
/// end-of-caption code falls on its first frame; the erase code falls on its last. Captions
/// with `characterReveal` animation are roll-up or paint-on, each run of them that follow
/// one another being one screen changing (`CEA608Encoder/revealSteps(_:afterShowing:channel:)`):
/// what sets the screen up goes in the frames before, and the first word on the caption's
/// first frame changes the screen. A caption that cannot be sent in time (the one before
/// leaves too few frames) shows late, with a warning. Characters outside the 608 set are sent as their unaccented letter
/// where it is in the set, else left out (``CaptionConversionValidator`` lists them first).
public enum SCC {
    static let header = "Scenarist_SCC V1.0"
    /// One frame at 29.97 fps.
    static let frameNumerator: Int32 = 1001, frameDenominator: Int32 = 30000

    static func time(frame: Int64) -> MediaTime { MediaTime(ticks: frame, numerator: frameNumerator, denominator: frameDenominator) }

    static func frame(_ time: MediaTime) -> Int64? { time.ticks(numerator: frameNumerator, denominator: frameDenominator) }

    /// The captions of channel `channel` (1-4) of an SCC file.
    public static func read(_ data: Data, channel: Int = 1) throws(ReelError) -> CaptionDocument {
        guard (1...4).contains(channel) else { throw ReelError(.invalidArgument, "SCC: channel \(channel) is not 1-4 (CC1-CC4)") }
        guard let text = String(data: data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data, encoding: .utf8) else {
            throw .captionFormat(.scc, "the file is not text")
        }
        var decoder = CEA608Decoder(channel: CEA608.Channel(number: channel))
        var warnings: [CaptionWarning] = []
        var sawHeader = false
        var nextFrame: Int64 = 0
        var lineNumber = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            lineNumber += 1
            let fields = raw.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = fields.first else { continue }
            if !sawHeader {
                guard raw.trimmingCharacters(in: .whitespaces) == header else {
                    throw .captionFormat(.scc, "the file does not start with \"\(header)\"", line: lineNumber)
                }
                sawHeader = true
                continue
            }
            guard let label = timecode(first) else {
                throw .captionFormat(.scc, "\"\(first.prefix(20))\" is not a timecode HH:MM:SS:FF (or ;FF drop-frame)", line: lineNumber)
            }
            var frame = Int64(label.frameNumber(nominalRate: 30))
            if frame < nextFrame {
                warnings.append(
                    CaptionWarning(
                        .scc, "timecode \(first) is earlier than the end of the words before it; its words follow them",
                        line: lineNumber, time: time(frame: frame)))
                frame = nextFrame
            }
            for (k, word) in fields.dropFirst().enumerated() {
                let at = time(frame: frame + Int64(k))
                guard word.count == 4, let value = UInt16(word, radix: 16) else {
                    throw ReelError(
                        .captionFormat, "SCC: word \(k + 1) \"\(word.prefix(8))\" is not four hex digits",
                        time: at, field: "line \(lineNumber)")
                }
                let b1 = UInt8(value >> 8), b2 = UInt8(value & 0xFF)
                guard CEA608.hasOddParity(b1), CEA608.hasOddParity(b2) else {
                    warnings.append(CaptionWarning(.scc, "word \(k + 1) \"\(word)\" has a parity error; skipped", line: lineNumber, time: at))
                    continue
                }
                decoder.feed(b1 & 0x7F, b2 & 0x7F, at: at)
            }
            nextFrame = frame + Int64(fields.count - 1)
            decoder.flush()
        }
        guard sawHeader else { throw .captionFormat(.scc, "the file is empty (no \"\(header)\" header)", line: 1) }
        decoder.finish(at: time(frame: nextFrame))
        return CaptionDocument(captions: decoder.captions, warnings: warnings)
    }

    /// `HH:MM:SS:FF`, `HH:MM:SS;FF` (also `.` or `,` before the frames, as drop-frame), a
    /// label that exists at 30 frames a second.
    static func timecode(_ text: Substring) -> Timecode? {
        guard let label = Timecode(text), label.isValid(nominalRate: 30) else { return nil }
        return label
    }

    /// An SCC file with `captions` on channel `channel` (1-4): pop-on, or roll-up and
    /// paint-on for captions with `characterReveal` animation; and what
    /// could not be written as asked (captions shown late, cut short or left out).
    /// - Throws: `.invalidArgument` for a channel outside 1-4; `.captionFormat` for a
    ///   caption with a negative or non-numeric time.
    public static func write(_ captions: [Caption], channel: Int = 1) throws(ReelError) -> (data: Data, warnings: [CaptionWarning]) {
        guard (1...4).contains(channel) else { throw ReelError(.invalidArgument, "SCC: channel \(channel) is not 1-4 (CC1-CC4)") }
        let ch = CEA608.Channel(number: channel)
        var warnings: [CaptionWarning] = []
        var timed: [(caption: Caption, start: Int64, end: Int64)] = []
        for caption in captions {
            guard let s = frame(caption.timeRange.start), let e = frame(caption.timeRange.end), s >= 0 else {
                throw .captionFormat(.scc, "caption \"\(caption.text.prefix(32))\" has a negative or non-numeric time", time: caption.timeRange.start)
            }
            if e <= s {
                warnings.append(CaptionWarning(.scc, "caption \"\(caption.text.prefix(32))\" is shorter than a frame; left out", time: caption.timeRange.start))
                continue
            }
            timed.append((caption, s, e))
        }
        timed.sort { $0.start < $1.start }
        var words: [Int64: UInt16] = [:]
        func place(_ w: UInt16, _ f: Int64) -> Bool {
            guard words[f] == nil else { return false }
            words[f] = w
            return true
        }
        let eoc = CEA608Encoder.control(.endOfCaption, ch), edm = CEA608Encoder.control(.eraseDisplayedMemory, ch)
        // End-of-caption and erase codes start lines of their own, so that readers that
        // time a whole line by its timecode (FFmpeg's) see them at the same frame.
        var lineStarts = Set<Int64>()
        // The roll-up and paint-on steps of each run of character-reveal captions that
        // follow one another with no gap.
        var steps: [Int: CEA608Encoder.RevealStep] = [:]
        var i = 0
        while i < timed.count {
            guard timed[i].caption.animation == .characterReveal else { i += 1; continue }
            var j = i + 1
            while j < timed.count, timed[j].caption.animation == .characterReveal, timed[j].start <= timed[j - 1].end { j += 1 }
            let afterShowing = i > 0 && timed[i].start <= timed[i - 1].end
            for (k, step) in CEA608Encoder.revealSteps(timed[i..<j].map(\.caption), afterShowing: afterShowing, channel: ch).enumerated() {
                steps[i + k] = step
            }
            i = j
        }
        var earliest: Int64 = 0
        // The first frame after the last erase of the displayed memory.
        var erased: Int64 = 0
        for (i, item) in timed.enumerated() {
            var end = item.end
            if i + 1 < timed.count, timed[i + 1].start < end {
                warnings.append(
                    CaptionWarning(
                        .scc, "caption \"\(item.caption.text.prefix(32))\" overlaps the next; it ends when the next starts",
                        time: item.caption.timeRange.start))
                end = timed[i + 1].start
            }
            var start = item.start
            if let step = steps[i] {
                // Setup in the free frames just before the start (after the last erase when
                // the screen is blank), then the words from the start on.
                let from = max(earliest, i > 0 && item.start > timed[i - 1].end ? erased : earliest)
                let free = (from..<max(from, item.start)).filter { words[$0] == nil }
                var f = max(item.start, earliest)
                if free.count >= step.setup.count {
                    for (w, g) in zip(step.setup, free.suffix(step.setup.count)) { _ = place(w, g) }
                } else {
                    var g = from
                    for w in step.setup {
                        while words[g] != nil { g += 1 }
                        _ = place(w, g)
                        g += 1
                    }
                    f = max(f, g)
                }
                while words[f] != nil { f += 1 }
                start = f
                lineStarts.insert(f)
                for w in step.words {
                    while words[f] != nil { f += 1 }
                    _ = place(w, f)
                    f += 1
                }
                earliest = f
                if step.redrawn {
                    warnings.append(
                        CaptionWarning(
                            .scc,
                            "caption \"\(item.caption.text.prefix(32))\" does not continue the one before it; the screen is erased and drawn again, so it shows a few frames late",
                            time: item.caption.timeRange.start))
                } else if start > item.start {
                    warnings.append(
                        CaptionWarning(
                            .scc,
                            "caption \"\(item.caption.text.prefix(32))\" needs \(step.setup.count + step.words.count) frames to send; shown \(start - item.start) frames late",
                            time: item.caption.timeRange.start))
                }
                if end < f { end = f }
            } else {
                let load = CEA608Encoder.popOnLoad(item.caption, channel: ch)
                // Load into the free frames just before the start, else as early as possible.
                let free = (earliest..<max(earliest, item.start)).filter { words[$0] == nil }
                if free.count >= load.count {
                    for (w, f) in zip(load, free.suffix(load.count)) { _ = place(w, f) }
                } else {
                    var f = earliest
                    for w in load {
                        while words[f] != nil { f += 1 }
                        _ = place(w, f)
                        f += 1
                    }
                    while words[f] != nil { f += 1 }
                    start = f
                    warnings.append(
                        CaptionWarning(
                            .scc, "caption \"\(item.caption.text.prefix(32))\" needs \(load.count) frames to load; shown \(start - item.start) frames late",
                            time: item.caption.timeRange.start))
                }
                if start >= end { end = start + 1 }
                _ = place(eoc, start)
                lineStarts.insert(start)
                earliest = start + 1
                if end > start + 1, place(eoc, start + 1) { earliest = start + 2 }
            }
            let next = i + 1 < timed.count ? timed[i + 1].start : Int64.max
            if next > end, place(edm, end) {
                lineStarts.insert(end)
                erased = end + 1
                if next > end + 1, place(edm, end + 1) { erased = end + 2 }
            }
        }
        var out = header + "\n\n"
        var f = words.keys.min() ?? 0
        let last = words.keys.max() ?? -1
        while f <= last {
            guard words[f] != nil else { f += 1; continue }
            out += Timecode(frameNumber: Int(f), nominalRate: 30, dropFrame: true).description + "\t"
            var line: [String] = []
            while let w = words[f], line.isEmpty || !lineStarts.contains(f) {
                line.append(hex(w))
                f += 1
            }
            out += line.joined(separator: " ") + "\n\n"
        }
        return (Data(out.utf8), warnings)
    }

    static func hex(_ w: UInt16) -> String {
        let s = String(w, radix: 16)
        return String(repeating: "0", count: 4 - s.count) + s
    }
}
