import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelText

@Suite("Font")
struct FontTests {
    @Test(.requires(.dejaVuFont))
    func opensDejaVuAndMeasures() throws {
        let font = try Font(path: FontFace.dejaVuSansPath, pixelSize: 40)
        #expect(font.face.familyName == "DejaVu Sans")
        #expect(font.ascender > 25 && font.ascender <= 40)
        #expect(font.descender > 0 && font.descender < 20)
        // DejaVu's digits all have the same advance.
        #expect(font.width(of: "1111") == font.width(of: "8888"))
        #expect(font.width(of: "88") == 2 * font.width(of: "8"))
        #expect(font.width(of: "") == 0)
    }

    @Test(.requires(.dejaVuFont))
    func glyphsAreRasterisedOnceAndCached() throws {
        let font = try Font(path: FontFace.dejaVuSansPath, pixelSize: 24)
        let a = font.glyph("8")
        #expect(a.width > 5 && a.height > 10)
        #expect(a.coverage.count == a.width * a.height)
        #expect(a.coverage.contains(255))
        _ = font.glyphs("888 888")
        #expect(font.cachedGlyphCount == 2)
        #expect(font.glyph("8") == a)
        // A space has an advance but no pixels.
        #expect(font.glyph(" ").advance > 0)
        #expect(font.glyph(" ").coverage.allSatisfy { $0 == 0 })
    }

    @Test func missingFontFileIsAClearError() {
        expectReelError(.fileNotFound) { try FontFace(path: "/nonexistent/font.ttf") }
        do {
            _ = try FontFace(path: "/nonexistent/font.ttf")
        } catch {
            #expect(error.code == .fileNotFound)
            #expect(error.description.contains("/nonexistent/font.ttf"))
        }
    }

    @Test func aFileThatIsNotAFontIsAClearError() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-font-\(UUID().uuidString).ttf")
        try Data("hello".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try FontFace(path: url.path)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unsupportedFormat)
        }
    }
}
