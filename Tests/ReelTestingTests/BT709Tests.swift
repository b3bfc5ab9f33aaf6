import ReelTesting
import Testing

@Suite struct BT709Tests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var rgb: RGBA
        var limited: (UInt8, UInt8, UInt8)
        var testDescription: String { name }
    }

    // Limited-range BT.709 values of the primaries, as published with the standard's
    // colour bars (and as FFmpeg's swscale produces them).
    static let cases: [Case] = [
        Case(name: "white", rgb: RGBA(255, 255, 255), limited: (235, 128, 128)),
        Case(name: "black", rgb: RGBA(0, 0, 0), limited: (16, 128, 128)),
        Case(name: "red", rgb: RGBA(255, 0, 0), limited: (63, 102, 240)),
        Case(name: "green", rgb: RGBA(0, 255, 0), limited: (173, 42, 26)),
        Case(name: "blue", rgb: RGBA(0, 0, 255), limited: (32, 240, 118)),
    ]

    @Test(arguments: cases)
    func convertsPrimaries(_ c: Case) {
        let v = BT709.ycbcr(c.rgb)
        #expect(v.y == c.limited.0 && v.cb == c.limited.1 && v.cr == c.limited.2)
        // Back to RGB within one step: 8-bit limited range cannot hold every RGB value exactly.
        let back = BT709.rgb(y: v.y, cb: v.cb, cr: v.cr)
        #expect(abs(Int(back.r) - Int(c.rgb.r)) <= 1 && abs(Int(back.g) - Int(c.rgb.g)) <= 1 && abs(Int(back.b) - Int(c.rgb.b)) <= 1)
    }

    @Test func fullRangeUsesTheWholeByte() {
        let white = BT709.ycbcr(RGBA(255, 255, 255), fullRange: true)
        let black = BT709.ycbcr(RGBA(0, 0, 0), fullRange: true)
        #expect(white.y == 255 && black.y == 0 && white.cb == 128 && white.cr == 128)
    }

    @Test(arguments: [false, true])
    func roundTripsWithinOneStep(fullRange: Bool) {
        // Limited range has fewer codes than RGB, so a round trip may move a channel by a step or two.
        var worst = 0
        for r in stride(from: 0, through: 255, by: 15) {
            for g in stride(from: 0, through: 255, by: 17) {
                for b in stride(from: 0, through: 255, by: 51) {
                    let p = RGBA(UInt8(r), UInt8(g), UInt8(b))
                    let v = BT709.ycbcr(p, fullRange: fullRange)
                    let back = BT709.rgb(y: v.y, cb: v.cb, cr: v.cr, fullRange: fullRange)
                    worst = max(worst, abs(Int(back.r) - r), abs(Int(back.g) - g), abs(Int(back.b) - b))
                }
            }
        }
        #expect(worst <= (fullRange ? 2 : 3))
    }
}
