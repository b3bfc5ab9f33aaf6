/// Roll-up and paint-on: captions whose characters appear as they arrive
/// (`Caption.Animation.characterReveal`), written into displayed memory.
///
/// A run of such captions, each starting where the one before ends, is one screen changing:
/// each caption is what the screen shows after a change. A change that adds characters to
/// the last row, rolls the rows up by one (CR), or rolls and starts a new row, is sent as
/// just that; the run is roll-up (RU2-RU4, base row 15) when every change is one of these,
/// it starts with one row, has at most four rows and sits in the lower half, else paint-on
/// (RDC), where a change adds characters or a row below, and any other change erases the
/// screen and draws it again.
extension CEA608Encoder {
    /// What to send for one caption of a run: `setup` changes nothing on screen and goes
    /// in the frames before the caption starts; `words` start on its first frame, the
    /// first of them changing the screen. `redrawn` when the screen is erased first, so the
    /// caption shows a few frames late.
    struct RevealStep {
        var setup: [UInt16] = []
        var words: [UInt16] = []
        var redrawn = false
    }

    enum RevealMode: Equatable { case rollUp(rows: Int), paintOn }

    /// How one caption's rows follow the rows before them in roll-up with `rows` rows.
    enum RollChange: Equatable {
        /// Characters added to the last row, from this column of it.
        case append(from: Int)
        /// The rows move up one, the top one leaving (a carriage return on a full window);
        /// the base row is left empty.
        case roll
        /// The rows move up one and a new last row starts (the window was not full).
        case rollAndAppend
        /// A new last row on the empty base row a roll left.
        case newRow
    }

    /// The change from `previous` to `next` rows in a roll-up window of `rows` rows, whose
    /// base row is empty after a roll (`baseEmpty`); nil when roll-up cannot make it.
    static func rollChange(from previous: [String], to next: [String], rows: Int, baseEmpty: Bool) -> RollChange? {
        let grows = next.count == previous.count + 1 && Array(next.dropLast()) == previous
        if baseEmpty { return grows ? .newRow : nil }
        if next.count == previous.count, let last = next.last, let before = previous.last, next.dropLast() == previous.dropLast(),
            last.count > before.count, last.hasPrefix(before)
        {
            return .append(from: before.count)
        }
        if previous.count == rows, next == Array(previous.dropFirst()) { return .roll }
        if previous.count < rows, grows { return .rollAndAppend }
        return nil
    }

    /// The changes of a run in roll-up with `rows` rows, nil when one cannot be made.
    static func rollChanges(_ texts: [[String]], rows: Int) -> [RollChange]? {
        var changes: [RollChange] = []
        var baseEmpty = false
        for (previous, next) in zip(texts, texts.dropFirst()) {
            guard let change = rollChange(from: previous, to: next, rows: rows, baseEmpty: baseEmpty) else { return nil }
            changes.append(change)
            baseEmpty = change == .roll
        }
        return changes
    }

    /// The mode for a run of character-reveal captions.
    static func revealMode(_ run: [Caption]) -> RevealMode {
        let texts = run.map { lines($0).map { String($0.map(\.character)) } }
        let most = texts.map(\.count).max() ?? 0
        guard texts.first?.count == 1, most <= 4,
            !run.contains(where: { $0.region?.isInUpperHalf(rows: 15) == true })
        else { return .paintOn }
        for rows in max(2, most)...4 where rollChanges(texts, rows: rows) != nil { return .rollUp(rows: rows) }
        return .paintOn
    }

    /// The steps for a run of character-reveal captions; `afterShowing` when another
    /// caption shows until the run's first starts (it is replaced, not erased first).
    static func revealSteps(_ run: [Caption], afterShowing: Bool, channel ch: CEA608.Channel) -> [RevealStep] {
        let rows = run.map(lines)
        switch revealMode(run) {
        case .rollUp(let n):
            return rollUpSteps(rows, windowRows: n, afterShowing: afterShowing, channel: ch)
        case .paintOn:
            let top = run.first?.region?.isInUpperHalf(rows: 15) == true
            let most = rows.map(\.count).max() ?? 1
            return paintOnSteps(rows, firstRow: top ? 1 : 16 - min(15, most), afterShowing: afterShowing, channel: ch)
        }
    }

    private static func text(_ lines: [Line]) -> [String] { lines.map { String($0.map(\.character)) } }

    /// The words sending `line[from...]` after a cursor in `style`.
    private static func characters(_ line: Line, from: Int = 0, after style: CEA608.Style, channel ch: CEA608.Channel) -> [UInt16] {
        var p = Packer()
        var s = style, used = from
        send(line, from: from, style: &s, used: &used, into: &p, channel: ch)
        p.flush()
        return p.words
    }

    private static func twice(_ b: (UInt8, UInt8)) -> [UInt16] { [word(b.0, b.1), word(b.0, b.1)] }

    private static func rollUpSteps(_ rows: [[Line]], windowRows n: Int, afterShowing: Bool, channel ch: CEA608.Channel) -> [RevealStep] {
        let ru = control(CEA608.Command(rawValue: 0x23 + UInt8(n))!, ch), cr = control(.carriageReturn, ch)
        let pac = twice(CEA608.pac(row: 15, indent: 0, style: CEA608.Style(), channel: ch))
        let changes = rollChanges(rows.map(text), rows: n) ?? []
        var steps: [RevealStep] = []
        for (k, lines) in rows.enumerated() {
            var step = RevealStep()
            guard let last = lines.last else { steps.append(step); continue }
            if k == 0 {
                // A new roll-up screen: switching to roll-up clears what shows, so after
                // another caption the switch is the change; else it goes ahead.
                let start = [ru, ru] + pac
                if afterShowing { step.words = start } else { step.setup = start }
                step.words += characters(last, after: CEA608.Style(), channel: ch)
            } else {
                switch changes[k - 1] {
                case .append(let from):
                    step.words = characters(last, from: from, after: rows[k - 1].last?.last?.style ?? CEA608.Style(), channel: ch)
                case .roll:
                    step.words = [cr, cr]
                case .rollAndAppend:
                    // Rolling a window that is not full changes no text: it goes ahead.
                    step.setup = [cr, cr]
                    step.words = characters(last, after: CEA608.Style(), channel: ch)
                case .newRow:
                    step.words = characters(last, after: CEA608.Style(), channel: ch)
                }
            }
            steps.append(step)
        }
        return steps
    }

    private static func paintOnSteps(_ rows: [[Line]], firstRow: Int, afterShowing: Bool, channel ch: CEA608.Channel) -> [RevealStep] {
        let rdc = control(.resumeDirectCaptioning, ch), edm = control(.eraseDisplayedMemory, ch)
        func pac(_ k: Int) -> [UInt16] { twice(CEA608.pac(row: min(15, firstRow + k), indent: 0, style: CEA608.Style(), channel: ch)) }
        /// Every row, each placed by its preamble address code.
        func draw(_ lines: [Line]) -> [UInt16] {
            lines.enumerated().flatMap { k, line in pac(k) + characters(line, after: CEA608.Style(), channel: ch) }
        }
        var steps: [RevealStep] = []
        for (k, lines) in rows.enumerated() {
            var step = RevealStep()
            let previous = k > 0 ? text(rows[k - 1]) : []
            let next = text(lines)
            if k == 0, !afterShowing, let first = lines.first {
                step.setup = [rdc, rdc] + pac(0)
                step.words =
                    characters(first, after: CEA608.Style(), channel: ch)
                    + lines.enumerated().dropFirst().flatMap { r, line in pac(r) + characters(line, after: CEA608.Style(), channel: ch) }
            } else if k > 0, case .append(let from)? = rollChange(from: previous, to: next, rows: 0, baseEmpty: false), let last = lines.last {
                step.words = characters(last, from: from, after: rows[k - 1].last?.last?.style ?? CEA608.Style(), channel: ch)
            } else if k > 0, next.count == previous.count + 1, Array(next.dropLast()) == previous, firstRow + next.count - 1 <= 15,
                let last = lines.last
            {
                step.setup = pac(next.count - 1)
                step.words = characters(last, after: CEA608.Style(), channel: ch)
            } else {
                step.words = [edm, edm, rdc, rdc] + draw(lines)
                step.redrawn = true
            }
            steps.append(step)
        }
        return steps
    }
}
