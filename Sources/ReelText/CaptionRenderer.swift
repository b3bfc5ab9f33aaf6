import ReelCore

/// Draws the captions of a `CaptionGroup` into a frame (AVFoundation's
/// `AVCaptionRenderer`), with ReelText's FreeType glyphs and ``Canvas``.
///
/// The picture is a grid of 32 columns by 15 rows (CEA-608's, which cell lengths in a
/// `CaptionRegion` count). Each caption is laid out in its region (the bottom region
/// when it has none): its lines stacked by the region's display alignment, each line
/// placed by the caption's text alignment (centred by default) on a translucent black box,
/// each run in its style: bold and italic faces (DejaVu Sans), text colour, background
/// colour, underline, and size as a percentage of the default (a row's height x 0.75).
/// A line wider than its region is moved to stay inside the picture.
/// Ruby text is drawn at half size above its base text.
public final class CaptionRenderer: Sendable {
    /// The four faces a run may need.
    private let regular: FontFace, bold: FontFace, italic: FontFace, boldItalic: FontFace
    /// The box behind each line.
    public let lineBackground: Color

    /// A renderer with the DejaVu Sans faces (Debian's `fonts-dejavu-core` and
    /// `fonts-dejavu-extra`).
    /// - Throws: when a font file cannot be opened.
    public convenience init(lineBackground: Color = Color(red: 0, green: 0, blue: 0, alpha: 0.6)) throws(ReelError) {
        let folder = "/usr/share/fonts/truetype/dejavu/"
        try self.init(
            regular: FontFace(path: folder + "DejaVuSans.ttf"), bold: FontFace(path: folder + "DejaVuSans-Bold.ttf"),
            italic: FontFace(path: folder + "DejaVuSans-Oblique.ttf"), boldItalic: FontFace(path: folder + "DejaVuSans-BoldOblique.ttf"),
            lineBackground: lineBackground)
    }

    public init(
        regular: FontFace, bold: FontFace, italic: FontFace, boldItalic: FontFace,
        lineBackground: Color = Color(red: 0, green: 0, blue: 0, alpha: 0.6)
    ) {
        self.regular = regular
        self.bold = bold
        self.italic = italic
        self.boldItalic = boldItalic
        self.lineBackground = lineBackground
    }

    /// One run of a line, with its font.
    private struct Run {
        var text: String
        var style: CaptionStyle
        var font: Font
        var width: Int
    }

    /// Draws every caption of `group` into `buffer` (bgra, rgba or yuv420p).
    public func render(_ group: CaptionGroup, into buffer: PixelBuffer) throws(ReelError) {
        for caption in group.captions { try render(caption, into: buffer) }
    }

    /// Draws one caption into `buffer`.
    public func render(_ caption: Caption, into buffer: PixelBuffer) throws(ReelError) {
        let canvas = try Canvas(buffer)
        let w = Double(buffer.width), h = Double(buffer.height)
        let rowHeight = h / 15
        let region = caption.region ?? .bottom
        let rx = region.x.pixels(extent: w, cells: 32), ry = region.y.pixels(extent: h, cells: 15)
        let rw = region.width.pixels(extent: w, cells: 32), rh = region.height.pixels(extent: h, cells: 15)
        let basePixels = max(6, Int(rowHeight * 0.75))
        // The caption's lines as runs with their fonts.
        var lines: [[Run]] = [[]]
        for span in caption.spans {
            let parts = span.text.split(separator: "\n", omittingEmptySubsequences: false)
            for (k, part) in parts.enumerated() {
                if k > 0 { lines.append([]) }
                guard !part.isEmpty else { continue }
                let s = span.style
                let size = max(6, Int(Double(basePixels) * (s.fontSizePercent ?? 100) / 100))
                let isBold = s.fontWeight == .bold, isItalic = s.italic == true
                let face = isBold ? (isItalic ? boldItalic : bold) : (isItalic ? italic : regular)
                let font = Font(face: face, pixelSize: size)
                lines[lines.count - 1].append(Run(text: String(part), style: s, font: font, width: font.width(of: String(part))))
            }
        }
        let lineHeights = lines.map { line in
            max(Int(rowHeight), line.map { $0.font.lineHeight + ($0.style.ruby != nil ? $0.font.lineHeight / 2 : 0) }.max() ?? 0)
        }
        let total = lineHeights.reduce(0, +)
        var top: Int
        switch region.displayAlignment {
        case .before: top = Int(ry)
        case .center: top = Int(ry + (rh - Double(total)) / 2)
        case .after: top = Int(ry + rh) - total
        }
        let pad = max(2, basePixels / 6)
        for (line, lineHeight) in zip(lines, lineHeights) {
            defer { top += lineHeight }
            let width = line.reduce(0) { $0 + $1.width }
            guard width > 0 else { continue }
            var x: Int
            switch caption.textAlignment {
            case .left?, .start?: x = Int(rx) + pad
            case .right?, .end?: x = Int(rx + rw) - pad - width
            default: x = Int(rx + (rw - Double(width)) / 2)
            }
            // A line wider than its region (the narrow left and right ones) stays in the picture.
            x = max(pad, min(x, buffer.width - pad - width))
            canvas.fill(x: x - pad, y: top, width: width + 2 * pad, height: lineHeight, color: lineBackground)
            let ascender = line.map(\.font.ascender).max() ?? 0
            let descender = line.map(\.font.descender).min() ?? 0
            let baseline = top + (lineHeight + ascender + descender) / 2
            for run in line {
                if let bg = run.style.backgroundColor {
                    canvas.fill(x: x, y: top, width: run.width, height: lineHeight, color: Self.color(bg))
                }
                let color = Self.color(run.style.textColor ?? .white)
                canvas.draw(run.text, font: run.font, x: x, baseline: baseline, color: color)
                if run.style.underline == true {
                    canvas.fill(x: x, y: baseline + max(1, run.font.pixelSize / 10), width: run.width, height: max(1, run.font.pixelSize / 14), color: color)
                }
                if let ruby = run.style.ruby {
                    let small = Font(face: run.font.face, pixelSize: max(6, run.font.pixelSize / 2))
                    let y = ruby.position == .before ? baseline - run.font.ascender - 1 : baseline - descender + small.ascender + 1
                    canvas.draw(ruby.text, font: small, x: x + run.width / 2, baseline: y, color: color, alignment: .center)
                }
                x += run.width
            }
        }
    }

    /// A caption colour as ReelText's.
    static func color(_ c: CaptionColor) -> Color {
        Color(red: Double(c.red) / 255, green: Double(c.green) / 255, blue: Double(c.blue) / 255, alpha: Double(c.alpha) / 255)
    }
}
