import Foundation

/// CEA-608 (line 21) caption codes: odd parity, the character sets, preamble address
/// codes, mid-row codes and the miscellaneous control codes (CTA-608-E; 47 CFR 15.119).
///
/// Bytes here are without their parity bit unless a name says otherwise.
enum CEA608 {
    // MARK: Parity

    /// The byte with bit 7 set so that it has an odd number of one bits.
    static func withParity(_ b: UInt8) -> UInt8 {
        let v = b & 0x7F
        return v.nonzeroBitCount % 2 == 0 ? v | 0x80 : v
    }

    static func hasOddParity(_ b: UInt8) -> Bool { b.nonzeroBitCount % 2 == 1 }

    // MARK: Commands

    /// The miscellaneous control codes (second byte, after 0x14/0x1C/0x15/0x1D).
    enum Command: UInt8 {
        case resumeCaptionLoading = 0x20, backspace = 0x21, alarmOff = 0x22, alarmOn = 0x23
        case deleteToEndOfRow = 0x24, rollUp2 = 0x25, rollUp3 = 0x26, rollUp4 = 0x27
        case flashOn = 0x28, resumeDirectCaptioning = 0x29, textRestart = 0x2A, resumeTextDisplay = 0x2B
        case eraseDisplayedMemory = 0x2C, carriageReturn = 0x2D, eraseNonDisplayedMemory = 0x2E, endOfCaption = 0x2F
    }

    /// A caption channel, CC1-CC4: data channel 1 or 2 of field 1 or 2.
    struct Channel: Hashable, Sendable {
        var number: Int
        /// 0x08 in a control code's first byte for data channel 2 (CC2, CC4).
        var dataChannelBit: UInt8 { number % 2 == 0 ? 0x08 : 0 }
        /// 0x01 in a miscellaneous control code's first byte for field 2 (CC3, CC4).
        var fieldBit: UInt8 { number >= 3 ? 0x01 : 0 }
    }

    /// The text attributes a preamble address code or mid-row code sets.
    struct Style: Hashable {
        /// Index into ``colors`` (0 white ... 6 magenta).
        var color: Int = 0
        var italic = false
        var underline = false

        var captionStyle: CaptionStyle {
            CaptionStyle(italic: italic ? true : nil, underline: underline ? true : nil, textColor: color == 0 ? nil : CEA608.colors[color])
        }

        /// The closest 608 style to a caption style (colours 608 lacks become white).
        init(_ s: CaptionStyle) {
            let n = s.normalized
            color = n.textColor.flatMap { CEA608.colors.firstIndex(of: $0) } ?? 0
            italic = n.italic == true
            underline = n.underline == true
        }

        init(color: Int = 0, italic: Bool = false, underline: Bool = false) {
            self.color = color
            self.italic = italic
            self.underline = underline
        }

        /// The 5-bit attribute of a mid-row code: colour or italics, and underline.
        var midRowAttribute: UInt8 { (italic ? 7 : UInt8(color)) << 1 | (underline ? 1 : 0) }
    }

    /// The foreground colours, in code order.
    static let colors: [CaptionColor] = [.white, .green, .blue, .cyan, .red, .yellow, .magenta]

    /// Rows 1-15 by (first byte & 0x07, second byte & 0x20) of a preamble address code.
    static let pacRows: [[Int]] = [[11, 11], [1, 2], [3, 4], [12, 13], [14, 15], [5, 6], [7, 8], [9, 10]]

    /// The two bytes (without parity) of the preamble address code for `row` (1-15) with
    /// either an indent (a multiple of 4, white) or a style at column 0.
    static func pac(row: Int, indent: Int?, style: Style, channel: Channel) -> (UInt8, UInt8) {
        var first: UInt8 = 0, high: UInt8 = 0
        for (i, rows) in pacRows.enumerated() {
            if let k = rows.firstIndex(of: row) { first = 0x10 | UInt8(i); high = k == 1 ? 0x20 : 0; break }
        }
        let attribute = indent.map { 0x10 | UInt8(min(7, $0 / 4)) << 1 | (style.underline ? 1 : 0) } ?? style.midRowAttribute
        return (first | channel.dataChannelBit, 0x40 | high | attribute)
    }

    // MARK: Characters

    /// The basic characters that differ from ASCII.
    static let basicExceptions: [UInt8: Character] = [
        0x2A: "á", 0x5C: "é", 0x5E: "í", 0x5F: "ó", 0x60: "ú", 0x7B: "ç", 0x7C: "÷", 0x7D: "Ñ", 0x7E: "ñ", 0x7F: "█",
    ]

    /// The special characters (0x11/0x19, 0x30-0x3F).
    static let special: [Character] = ["®", "°", "½", "¿", "™", "¢", "£", "♪", "à", "\u{A0}", "è", "â", "ê", "î", "ô", "û"]

    /// The extended characters (0x12/0x1A and 0x13/0x1B, 0x20-0x3F).
    static let extended: [[Character]] = [
        [
            "Á", "É", "Ó", "Ú", "Ü", "ü", "‘", "¡", "*", "'", "─", "©", "℠", "•", "“", "”",
            "À", "Â", "Ç", "È", "Ê", "Ë", "ë", "Î", "Ï", "ï", "Ô", "Ù", "ù", "Û", "«", "»",
        ],
        [
            "Ã", "ã", "Í", "Ì", "ì", "Ò", "ò", "Õ", "õ", "{", "}", "\\", "^", "_", "|", "~",
            "Ä", "ä", "Ö", "ö", "ß", "¥", "¤", "│", "Å", "å", "Ø", "ø", "┌", "┐", "└", "┘",
        ],
    ]

    static func basicCharacter(_ b: UInt8) -> Character {
        basicExceptions[b] ?? Character(Unicode.Scalar(b))
    }

    /// How a character is sent.
    enum Code: Equatable {
        case basic(UInt8)
        case special(UInt8)
        /// An extended character: first byte 0x12 or 0x13, the second, and the basic
        /// character sent before it for decoders that lack the extended set.
        case extended(UInt8, UInt8, fallback: UInt8)
    }

    /// The code of every character in the 608 set.
    static let codes: [Character: Code] = {
        var d: [Character: Code] = [:]
        for b in UInt8(0x20)...0x7F { d[basicCharacter(b)] = .basic(b) }
        for (i, ch) in special.enumerated() where d[ch] == nil { d[ch] = .special(0x30 + UInt8(i)) }
        for (t, table) in extended.enumerated() {
            for (i, ch) in table.enumerated() where d[ch] == nil {
                d[ch] = .extended(0x12 + UInt8(t), 0x20 + UInt8(i), fallback: fallback(ch))
            }
        }
        return d
    }()

    /// A basic character close to `ch` (the letter without its accent), else a space.
    private static func fallback(_ ch: Character) -> UInt8 {
        let base = ch.unicodeScalars.first.map { scalar -> UInt8 in
            let folded = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars.first?.value ?? 0x20
            return folded >= 0x41 && folded <= 0x7A && basicExceptions[UInt8(folded)] == nil ? UInt8(folded) : 0x20
        }
        return base ?? 0x20
    }

    /// Whether the character can be sent in CEA-608.
    static func canEncode(_ ch: Character) -> Bool { ch == "\n" || codes[ch] != nil }
}
