/// Where a caption sits, as the placements of SubRip's and ASS's `{\anN}` override tags
/// (the numeric keypad: 7-9 top, 4-6 middle, 1-3 bottom; the left column left-aligned,
/// the right one right-aligned) and SSA's `{\aN}` (1-3 bottom, 5-7 top, 9-11 middle).
///
/// A caption's placement is its region (``CaptionRegion/top``, ``middle``,
/// ``CaptionRegion/bottom``) and its text alignment (left, right; centred is the default
/// and left unset).
enum CaptionPlacement {
    /// A band across the middle of the picture, lines centred in it (`{\an5}`).
    static let middle = CaptionRegion(
        identifier: "middle", x: .percent(0), y: .percent(42.5), width: .percent(100), height: .percent(15),
        displayAlignment: .center)

    /// The region and alignment of keypad position `n` (1-9); nil for other numbers.
    static func keypad(_ n: Int) -> (region: CaptionRegion, alignment: Caption.TextAlignment?)? {
        guard (1...9).contains(n) else { return nil }
        let region: CaptionRegion = n >= 7 ? .top : n >= 4 ? middle : .bottom
        let alignment: Caption.TextAlignment? =
            switch (n - 1) % 3 {
            case 0: .left
            case 2: .right
            default: nil
            }
        return (region, alignment)
    }

    /// The keypad position of SSA's legacy `\aN` numbering (1-3 bottom, 5-7 top, 9-11
    /// middle); nil for other numbers.
    static func keypad(legacy n: Int) -> Int? {
        switch n {
        case 1...3: n
        case 5...7: n + 2
        case 9...11: n - 5
        default: nil
        }
    }

    /// The keypad position of a caption: its row from its region (none: bottom), its
    /// column from its text alignment (`start` is taken as left, `end` as right).
    static func keypad(of caption: Caption) -> Int {
        var row = 0  // 0 bottom, 3 middle, 6 top
        if let region = caption.region {
            let centre = region.y.pixels(extent: 100, cells: 15) + region.height.pixels(extent: 100, cells: 15) / 2
            row = centre < 40 ? 6 : centre <= 60 ? 3 : 0
        }
        let column =
            switch caption.textAlignment {
            case .left?, .start?: 1
            case .right?, .end?: 3
            default: 2
            }
        return row + column
    }

    /// The `{\anN}` tag that places `caption`, or "" at the default place (bottom, centred).
    static func keypadTag(of caption: Caption) -> String {
        let n = keypad(of: caption)
        return n == 2 ? "" : "{\\an\(n)}"
    }
}
