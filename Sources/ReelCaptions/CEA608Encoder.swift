import Foundation

/// CEA-608 words for captions. Pop-on: erase non-displayed memory, resume caption loading,
/// then per row a preamble address code placing it, tab offsets, mid-row codes where the
/// style changes, and the characters (two a word). Roll-up and paint-on: see
/// ``revealSteps(_:afterShowing:channel:)``.
enum CEA608Encoder {
    /// One row of a caption as 608 cells: characters with their 608 styles.
    typealias Line = [(character: Character, style: CEA608.Style)]

    /// A miscellaneous control code with parity, as a word.
    static func control(_ c: CEA608.Command, _ ch: CEA608.Channel) -> UInt16 {
        word(0x14 | ch.dataChannelBit | ch.fieldBit, c.rawValue)
    }

    static func word(_ b1: UInt8, _ b2: UInt8) -> UInt16 {
        UInt16(CEA608.withParity(b1)) << 8 | UInt16(CEA608.withParity(b2))
    }

    /// Packs characters two a word, and control codes (sent twice) between them.
    struct Packer {
        var words: [UInt16] = []
        var pending: UInt8?

        mutating func character(_ b: UInt8) {
            if let p = pending { words.append(CEA608Encoder.word(p, b)); pending = nil } else { pending = b }
        }

        mutating func control(_ b1: UInt8, _ b2: UInt8) {
            flush()
            let w = CEA608Encoder.word(b1, b2)
            words += [w, w]
        }

        mutating func flush() {
            if let p = pending { words.append(CEA608Encoder.word(p, 0)); pending = nil }
        }
    }

    /// The rows of `caption` as 608 cells: characters 608 lacks are sent as their
    /// unaccented letter where it has it (else dropped), rows are trimmed, cut at 32 columns
    /// and at 15 rows, and empty rows left out.
    static func lines(_ caption: Caption) -> [Line] {
        var lines: [Line] = [[]]
        for span in caption.spans {
            let style = CEA608.Style(span.style)
            for ch in span.text {
                if ch == "\n" { lines.append([]); continue }
                if CEA608.codes[ch] != nil { lines[lines.count - 1].append((ch, style)); continue }
                let folded = String(ch).decomposedStringWithCanonicalMapping.first.map { Character(String($0.unicodeScalars.first!)) }
                if let folded, CEA608.codes[folded] != nil { lines[lines.count - 1].append((folded, style)) }
            }
        }
        lines = lines.map { line in
            var l = line[...]
            while l.first?.0 == " " { l = l.dropFirst() }
            while l.last?.0 == " " { l = l.dropLast() }
            return Array(l.prefix(32))
        }.filter { !$0.isEmpty }
        return Array(lines.prefix(15))
    }

    /// Sends `line[from...]` at the cursor, whose style is `style`: a mid-row code where the
    /// style changes (a space before a restyled word becomes that code), special and
    /// extended characters by their codes, until column 32 (`used` counts the columns).
    static func send(
        _ line: Line, from: Int = 0, style: inout CEA608.Style, used: inout Int,
        into p: inout Packer, channel ch: CEA608.Channel
    ) {
        for i in from..<line.count where used < 32 {
            let (character, charStyle) = line[i]
            if character == " ", i + 1 < line.count, line[i + 1].1 != style {
                // The space becomes the mid-row code that styles the next word.
                style = line[i + 1].1
                p.control(0x11 | ch.dataChannelBit, 0x20 + style.midRowAttribute)
                used += 1
                continue
            }
            if character != " ", charStyle != style {
                style = charStyle
                p.control(0x11 | ch.dataChannelBit, 0x20 + style.midRowAttribute)
                used += 1
                guard used < 32 else { break }
            }
            switch CEA608.codes[character]! {
            case .basic(let b): p.character(b)
            case .special(let b): p.control(0x11 | ch.dataChannelBit, b)
            case .extended(let b1, let b2, let fallback):
                p.character(fallback)
                p.control(b1 | ch.dataChannelBit, b2)
            }
            used += 1
        }
    }

    /// The words that load `caption` into non-displayed memory (without the end of caption).
    static func popOnLoad(_ caption: Caption, channel ch: CEA608.Channel) -> [UInt16] {
        var p = Packer()
        p.words = [
            control(.eraseNonDisplayedMemory, ch), control(.eraseNonDisplayedMemory, ch),
            control(.resumeCaptionLoading, ch), control(.resumeCaptionLoading, ch),
        ]
        let lines = lines(caption)
        let top = caption.region.map { $0.isInUpperHalf(rows: 15) } ?? false
        let firstRow = top ? 1 : 16 - lines.count
        for (k, line) in lines.enumerated() {
            // Each style change not at a space takes a cell for its mid-row code.
            var cells = line.count
            for i in 1..<max(1, line.count) where line[i].1 != line[i - 1].1 && line[i - 1].0 != " " && line[i].0 != " " { cells += 1 }
            cells = min(32, cells)
            let column: Int
            switch caption.textAlignment {
            case .left?, .start?: column = 0
            case .right?, .end?: column = 32 - cells
            default: column = (32 - cells) / 2
            }
            var style = line[0].1
            let row = firstRow + k
            if style == CEA608.Style(underline: style.underline) {
                let (b1, b2) = CEA608.pac(row: row, indent: column / 4 * 4, style: style, channel: ch)
                p.control(b1, b2)
                if column % 4 > 0 { p.control(0x17 | ch.dataChannelBit, 0x20 + UInt8(column % 4)) }
            } else if column == 0 {
                let (b1, b2) = CEA608.pac(row: row, indent: nil, style: style, channel: ch)
                p.control(b1, b2)
            } else {
                let (b1, b2) = CEA608.pac(row: row, indent: (column - 1) / 4 * 4, style: CEA608.Style(), channel: ch)
                p.control(b1, b2)
                if (column - 1) % 4 > 0 { p.control(0x17 | ch.dataChannelBit, 0x20 + UInt8((column - 1) % 4)) }
                p.control(0x11 | ch.dataChannelBit, 0x20 + style.midRowAttribute)
            }
            var used = column
            send(line, style: &style, used: &used, into: &p, channel: ch)
        }
        p.flush()
        return p.words
    }
}
