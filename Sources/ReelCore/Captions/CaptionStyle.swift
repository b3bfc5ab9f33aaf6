import Foundation

/// How a stretch of caption text looks: the attributes AVFoundation's `AVCaption` keeps per
/// character range (font weight and style, decoration, colours, size, ruby).
///
/// Every attribute is optional: `nil` means "not set here", so styles layered over the same
/// characters merge (``merging(_:)``), and a format's default applies where nothing is set.
public struct CaptionStyle: Sendable, Hashable, Codable {
    /// `AVCaption.FontWeight`.
    public enum FontWeight: String, Sendable, Hashable, Codable { case normal, bold }

    /// Ruby text (`AVCaption.Ruby`): small annotation text over or under its base characters.
    public struct Ruby: Sendable, Hashable, Codable {
        /// Where the ruby sits relative to the base text.
        public enum Position: String, Sendable, Hashable, Codable { case before, after }
        public var text: String
        public var position: Position
        public init(_ text: String, position: Position = .before) {
            self.text = text
            self.position = position
        }
    }

    public var fontWeight: FontWeight?
    public var italic: Bool?
    public var underline: Bool?
    public var textColor: CaptionColor?
    public var backgroundColor: CaptionColor?
    /// Font size as a percentage of the format's default size (100 is the default).
    public var fontSizePercent: Double?
    public var ruby: Ruby?

    public init(
        fontWeight: FontWeight? = nil, italic: Bool? = nil, underline: Bool? = nil,
        textColor: CaptionColor? = nil, backgroundColor: CaptionColor? = nil,
        fontSizePercent: Double? = nil, ruby: Ruby? = nil
    ) {
        self.fontWeight = fontWeight
        self.italic = italic
        self.underline = underline
        self.textColor = textColor
        self.backgroundColor = backgroundColor
        self.fontSizePercent = fontSizePercent
        self.ruby = ruby
    }

    /// No attribute set.
    public static let plain = CaptionStyle()

    public var isPlain: Bool { self == .plain }

    /// This style with every attribute `other` sets taking its value from `other`.
    public func merging(_ other: CaptionStyle) -> CaptionStyle {
        CaptionStyle(
            fontWeight: other.fontWeight ?? fontWeight, italic: other.italic ?? italic,
            underline: other.underline ?? underline, textColor: other.textColor ?? textColor,
            backgroundColor: other.backgroundColor ?? backgroundColor,
            fontSizePercent: other.fontSizePercent ?? fontSizePercent, ruby: other.ruby ?? ruby)
    }

    /// This style with attributes equal to a format's defaults dropped, so that "bold: no"
    /// and "not set" compare equal.
    public var normalized: CaptionStyle {
        var s = self
        if s.fontWeight == .normal { s.fontWeight = nil }
        if s.italic == false { s.italic = nil }
        if s.underline == false { s.underline = nil }
        if s.textColor == .white { s.textColor = nil }
        if s.fontSizePercent == 100 { s.fontSizePercent = nil }
        return s
    }

    /// The attributes this style sets to something other than the default.
    public var attributes: Attributes {
        let s = normalized
        var a: Attributes = []
        if s.fontWeight != nil { a.insert(.bold) }
        if s.italic != nil { a.insert(.italic) }
        if s.underline != nil { a.insert(.underline) }
        if s.textColor != nil { a.insert(.textColor) }
        if s.backgroundColor != nil { a.insert(.backgroundColor) }
        if s.fontSizePercent != nil { a.insert(.fontSize) }
        if s.ruby != nil { a.insert(.ruby) }
        return a
    }

    /// Kinds of style attribute, for what a ``CaptionFormat`` can hold.
    public struct Attributes: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let bold = Attributes(rawValue: 1 << 0)
        public static let italic = Attributes(rawValue: 1 << 1)
        public static let underline = Attributes(rawValue: 1 << 2)
        public static let textColor = Attributes(rawValue: 1 << 3)
        public static let backgroundColor = Attributes(rawValue: 1 << 4)
        public static let fontSize = Attributes(rawValue: 1 << 5)
        public static let ruby = Attributes(rawValue: 1 << 6)
        public static let all: Attributes = [.bold, .italic, .underline, .textColor, .backgroundColor, .fontSize, .ruby]

        public var description: String {
            let names: [(Attributes, String)] = [
                (.bold, "bold"), (.italic, "italic"), (.underline, "underline"),
                (.textColor, "text colour"), (.backgroundColor, "background colour"),
                (.fontSize, "font size"), (.ruby, "ruby"),
            ]
            return names.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
        }
    }
}

/// An sRGB colour with alpha, as caption formats name them.
public struct CaptionColor: Sendable, Hashable, Codable, CustomStringConvertible {
    public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let white = CaptionColor(red: 255, green: 255, blue: 255)
    public static let black = CaptionColor(red: 0, green: 0, blue: 0)
    public static let red = CaptionColor(red: 255, green: 0, blue: 0)
    public static let green = CaptionColor(red: 0, green: 255, blue: 0)
    public static let blue = CaptionColor(red: 0, green: 0, blue: 255)
    public static let cyan = CaptionColor(red: 0, green: 255, blue: 255)
    public static let magenta = CaptionColor(red: 255, green: 0, blue: 255)
    public static let yellow = CaptionColor(red: 255, green: 255, blue: 0)

    /// The colours with a CSS/TTML name that caption formats use, by name.
    public static let named: [(name: String, color: CaptionColor)] = [
        ("white", .white), ("black", .black), ("red", .red), ("lime", .green), ("green", CaptionColor(red: 0, green: 128, blue: 0)),
        ("blue", .blue), ("cyan", .cyan), ("aqua", .cyan), ("magenta", .magenta), ("fuchsia", .magenta), ("yellow", .yellow),
        ("transparent", CaptionColor(red: 0, green: 0, blue: 0, alpha: 0)),
    ]

    /// Parses `#rrggbb`, `#rrggbbaa`, `#rgb`, `rgb(r,g,b)`, `rgba(r,g,b,a)` and the colour
    /// names of ``named``; nil for anything else.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t.hasPrefix("#") {
            let hex = Array(t.dropFirst())
            func byte(_ i: Int, _ n: Int) -> UInt8? { UInt8(String(hex[i..<(i + n)]), radix: 16) }
            switch hex.count {
            case 3:
                guard let r = byte(0, 1), let g = byte(1, 1), let b = byte(2, 1) else { return nil }
                self.init(red: r * 17, green: g * 17, blue: b * 17)
            case 6, 8:
                guard let r = byte(0, 2), let g = byte(2, 2), let b = byte(4, 2) else { return nil }
                let a = hex.count == 8 ? byte(6, 2) : 255
                guard let a else { return nil }
                self.init(red: r, green: g, blue: b, alpha: a)
            default: return nil
            }
        } else if t.hasPrefix("rgb"), let open = t.firstIndex(of: "("), t.hasSuffix(")") {
            let parts = t[t.index(after: open)..<t.index(before: t.endIndex)].split(separator: ",")
                .map { UInt8($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3 || parts.count == 4, parts.allSatisfy({ $0 != nil }) else { return nil }
            self.init(red: parts[0]!, green: parts[1]!, blue: parts[2]!, alpha: parts.count == 4 ? parts[3]! : 255)
        } else if let hit = CaptionColor.named.first(where: { $0.name == t }) {
            self = hit.color
        } else {
            return nil
        }
    }

    /// `#rrggbb`, or `#rrggbbaa` when not opaque.
    public var hexString: String {
        let hex = { (v: UInt8) in String(v, radix: 16).count == 1 ? "0" + String(v, radix: 16) : String(v, radix: 16) }
        return "#" + hex(red) + hex(green) + hex(blue) + (alpha == 255 ? "" : hex(alpha))
    }

    /// The colour's name when it has one in ``named``, else ``hexString``.
    public var description: String { CaptionColor.named.first { $0.color == self }?.name ?? hexString }
}
