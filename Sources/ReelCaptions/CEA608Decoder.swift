/// A CEA-608 caption decoder: the 15x32 screen with its displayed and non-displayed
/// memories, driven by byte pairs, for one channel (CC1-CC4). Pop-on, roll-up and
/// paint-on captioning; what the screen shows becomes a caption each time it changes.
struct CEA608Decoder {
    private struct Cell: Equatable {
        var character: Character
        var style: CEA608.Style
    }
    private typealias Memory = [[Cell?]]

    private enum Mode: Equatable { case popOn, paintOn, rollUp(Int) }

    let channel: CEA608.Channel
    private var displayed: Memory = CEA608Decoder.blank
    private var nonDisplayed: Memory = CEA608Decoder.blank
    private var mode = Mode.popOn
    private var row = 15, column = 0
    private var style = CEA608.Style()
    /// The channel the last control code addressed; text goes there.
    private var current: CEA608.Channel?
    private var field2 = false
    private var lastControl: (UInt8, UInt8)?
    private var lastControlApplied = false
    /// The showing caption: its text and when it appeared.
    private var showing: (caption: Caption, start: MediaTime)?
    private(set) var captions: [Caption] = []
    /// A change of what shows, waiting for the end of the line of words that made it.
    private var changedAt: MediaTime?

    private static let blank: Memory = Array(repeating: Array(repeating: nil, count: 32), count: 15)

    init(channel: CEA608.Channel) {
        self.channel = channel
        current = nil
    }

    /// Feeds one byte pair (parity already checked and removed) sent at `time`.
    mutating func feed(_ b1: UInt8, _ b2: UInt8, at time: MediaTime) {
        if b1 == 0 && b2 == 0 { return }
        if (0x10...0x1F).contains(b1) {
            // A control code sent twice in a row is acted on once.
            if let last = lastControl, last == (b1, b2), lastControlApplied {
                lastControlApplied = false
                return
            }
            lastControl = (b1, b2)
            lastControlApplied = true
            control(b1, b2, at: time)
            // Erasing, swapping and rolling change the screen at once: the caption showing
            // ends at that word, even when more words follow on the same line.
            if let c = CEA608.Command(rawValue: b2), b1 & 0x76 == 0x14,
                [.eraseDisplayedMemory, .endOfCaption, .carriageReturn].contains(c)
            {
                flush()
            }
            return
        }
        lastControl = nil
        guard current == channel else { return }
        write(CEA608.basicCharacter(b1), at: time)
        if b2 >= 0x20 { write(CEA608.basicCharacter(b2), at: time) }
    }

    private mutating func control(_ b1: UInt8, _ b2: UInt8, at time: MediaTime) {
        let dataChannel = b1 & 0x08 != 0 ? 2 : 1
        let base = b1 & 0x77
        if base == 0x14 || base == 0x15, (0x20...0x2F).contains(b2) {
            field2 = base == 0x15
        }
        current = CEA608.Channel(number: dataChannel + (field2 ? 2 : 0))
        guard current == channel else { return }
        switch (base, b2) {
        case (0x14, 0x20...0x2F), (0x15, 0x20...0x2F):
            command(CEA608.Command(rawValue: b2)!, at: time)
        case (0x17, 0x21...0x23):
            column = min(31, column + Int(b2 - 0x20))
        case (0x11, 0x20...0x2F):
            // A mid-row code shows as a space in the style before it, and styles what follows.
            let v = (b2 - 0x20) >> 1
            write(" ", at: time)
            style = CEA608.Style(color: v == 7 ? style.color : Int(v), italic: v == 7, underline: b2 & 1 == 1)
        case (0x11, 0x30...0x3F):
            write(CEA608.special[Int(b2 - 0x30)], at: time)
        case (0x12, 0x20...0x3F), (0x13, 0x20...0x3F):
            // An extended character replaces the basic one sent before it.
            column = max(0, column - 1)
            write(CEA608.extended[Int(base - 0x12)][Int(b2 - 0x20)], at: time)
        case (0x10...0x17, 0x40...0x7F):
            preamble(base, b2)
        default:
            break  // background attributes and codes this decoder has no use for
        }
    }

    private mutating func preamble(_ base: UInt8, _ b2: UInt8) {
        let newRow = CEA608.pacRows[Int(base & 0x07)][b2 & 0x20 != 0 ? 1 : 0]
        if case .rollUp(let n) = mode, newRow != row {
            // Roll-up text moves with its base row.
            var target = CEA608Decoder.blank
            for k in 0..<n where row - k >= 1 && newRow - k >= 1 { target[newRow - k - 1] = displayed[row - k - 1] }
            displayed = target
        }
        row = newRow
        let attribute = b2 & 0x1F
        if attribute >= 0x10 {
            column = Int((attribute - 0x10) >> 1) * 4
            style = CEA608.Style(underline: attribute & 1 == 1)
        } else {
            column = 0
            let v = Int(attribute >> 1)
            style = CEA608.Style(color: v == 7 ? 0 : v, italic: v == 7, underline: attribute & 1 == 1)
        }
    }

    private mutating func command(_ c: CEA608.Command, at time: MediaTime) {
        switch c {
        case .resumeCaptionLoading: mode = .popOn
        case .resumeDirectCaptioning: mode = .paintOn
        case .rollUp2, .rollUp3, .rollUp4:
            let n = Int(c.rawValue - 0x23)
            if case .rollUp = mode {
            } else {
                displayed = CEA608Decoder.blank
                nonDisplayed = CEA608Decoder.blank
                changedAt = changedAt ?? time
                row = 15
            }
            mode = .rollUp(n)
            column = 0
        case .eraseDisplayedMemory:
            displayed = CEA608Decoder.blank
            changedAt = changedAt ?? time
        case .eraseNonDisplayedMemory:
            nonDisplayed = CEA608Decoder.blank
        case .endOfCaption:
            swap(&displayed, &nonDisplayed)
            mode = .popOn
            changedAt = changedAt ?? time
        case .carriageReturn:
            guard case .rollUp(let n) = mode else { return }
            let top = max(1, row - n + 1)
            for r in top..<row { displayed[r - 1] = displayed[r] }
            for r in 1..<top { displayed[r - 1] = Array(repeating: nil, count: 32) }
            displayed[row - 1] = Array(repeating: nil, count: 32)
            column = 0
            changedAt = changedAt ?? time
        case .backspace:
            guard column > 0 else { return }
            column -= 1
            setCell(row - 1, column, nil)
            if mode != .popOn { changedAt = changedAt ?? time }
        case .deleteToEndOfRow:
            for c in column..<32 { setCell(row - 1, c, nil) }
            if mode != .popOn { changedAt = changedAt ?? time }
        default: break
        }
    }

    /// Sets a cell of the memory being written: non-displayed when loading a pop-on
    /// caption, displayed in roll-up and paint-on.
    private mutating func setCell(_ r: Int, _ c: Int, _ cell: Cell?) {
        if mode == .popOn { nonDisplayed[r][c] = cell } else { displayed[r][c] = cell }
    }

    private mutating func write(_ ch: Character, at time: MediaTime) {
        setCell(row - 1, column, Cell(character: ch, style: style))
        column = min(31, column + 1)
        if mode != .popOn { changedAt = changedAt ?? time }
    }

    /// Ends a run of words: when what shows changed during it, the showing caption ends
    /// and the new screen (if any) starts showing at the time of the first change.
    mutating func flush() {
        guard let at = changedAt else { return }
        changedAt = nil
        let next = screenCaption()
        if let showing, next?.spans == showing.caption.spans, next?.region == showing.caption.region { return }
        if var shown = showing?.caption, let start = showing?.start, at > start {
            shown.timeRange = TimeRange(start: start, end: at)
            captions.append(shown)
        }
        showing = next.map { ($0, at) }
    }

    /// Ends the last caption at `time` (the end of the file).
    mutating func finish(at time: MediaTime) {
        flush()
        if var shown = showing?.caption, let start = showing?.start {
            shown.timeRange = TimeRange(start: start, end: MediaTime.maximum(time, start))
            captions.append(shown)
        }
        showing = nil
    }

    /// The caption the displayed memory shows, nil when it is empty.
    private func screenCaption() -> Caption? {
        var spans: [Caption.Span] = []
        var firstRow: Int?
        for r in 0..<15 {
            let cells = displayed[r]
            guard let first = cells.firstIndex(where: { $0 != nil && $0!.character != " " }),
                let last = cells.lastIndex(where: { $0 != nil && $0!.character != " " })
            else { continue }
            if firstRow == nil { firstRow = r + 1 } else { spans.append(Caption.Span("\n")) }
            var previous = cells[first]!.style
            for c in first...last {
                let cell = cells[c] ?? Cell(character: " ", style: previous)
                // A space shows no letter: it keeps the look of the text before it.
                let s = cell.character == " " ? previous : cell.style
                previous = s
                spans.append(Caption.Span(String(cell.character), s.captionStyle))
            }
        }
        guard let firstRow else { return nil }
        var merged: [Caption.Span] = []
        for span in spans {
            if let last = merged.last, last.style == span.style { merged[merged.count - 1].text += span.text } else { merged.append(span) }
        }
        let animation: Caption.Animation = mode == .popOn ? .none : .characterReveal
        return Caption(spans: merged, timeRange: .zero, region: firstRow <= 7 ? .top : nil, animation: animation)
    }
}
