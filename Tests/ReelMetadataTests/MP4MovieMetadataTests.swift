import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("MP4MovieMetadata: udta, meta, keys and ilst")
struct MP4MovieMetadataTests {
    /// A box of `type` (Latin-1, so `©nam` works) around `payload`.
    func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(payload.count + 8)
        return [UInt8(size >> 24), UInt8(truncatingIfNeeded: size >> 16), UInt8(truncatingIfNeeded: size >> 8), UInt8(truncatingIfNeeded: size)]
            + type.unicodeScalars.map { UInt8($0.value) } + payload
    }
    func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
    /// A QuickTime user-data text entry.
    func text(_ s: String, language: UInt16) -> [UInt8] { u16(UInt16(s.utf8.count)) + u16(language) + Array(s.utf8) }
    /// An ilst `data` box: well-known type, locale, value.
    func data(_ type: UInt32, _ value: [UInt8], language: UInt16 = 0) -> [UInt8] { box("data", u32(type) + u16(0) + u16(language) + value) }
    func hdlr(_ handler: String) -> [UInt8] { box("hdlr", u32(0) + u32(0) + Array(handler.utf8) + [UInt8](repeating: 0, count: 13)) }
    let und: UInt16 = 0x55C4
    let eng: UInt16 = 5 << 10 | 14 << 5 | 7

    var sample: [UInt8] {
        let udta = box(
            "udta",
            box("\u{A9}nam", text("Hello", language: und) + text("Bonjour", language: 1))
                + box("\u{A9}day", text("2024", language: 0))
                + box("cprt", u32(0) + u16(eng) + Array("© 2024 Reel".utf8) + [0])
                + box("titl", u32(0) + u16(eng) + [0xFE, 0xFF, 0x00, 0x48, 0x00, 0x69, 0, 0])
                + box("yrrc", u32(0) + u16(2024))
                + box("XTRA", [1, 2, 3])
                + box(
                    "meta",
                    u32(0) + hdlr("mdir")
                        + box(
                            "ilst",
                            box("\u{A9}ART", data(1, Array("Artist".utf8)))
                                + box("covr", data(14, [0x89, 0x50, 0x4E, 0x47]))
                                + box("tmpo", data(21, [0x00, 0x78]))
                                + box(
                                    "----",
                                    box("mean", u32(0) + Array("com.apple.iTunes".utf8)) + box("name", u32(0) + Array("MOOD".utf8))
                                        + data(1, Array("calm".utf8))))))
        let meta = box(
            "meta",
            hdlr("mdta")
                + box("keys", u32(0) + u32(2) + box("mdta", Array("com.apple.quicktime.make".utf8)) + u32(9) + Array("udta".utf8) + Array("X".utf8))
                + box("ilst", box("\0\0\0\u{01}", data(1, Array("Reel".utf8), language: eng)) + box("\0\0\0\u{02}", data(22, [7]))))
        return box("moov", box("mvhd", [UInt8](repeating: 0, count: 100)) + udta + meta)
    }

    @Test("each box's items land in its key space, with their languages and types")
    func keySpaces() throws {
        let items = try MP4MovieMetadata.items(moov: sample)
        func find(_ space: MetadataKeySpace, _ key: String) -> [MetadataItem] { items.filter { $0.keySpace == space && $0.key == key } }
        let titles = find(.quickTimeUserData, "\u{A9}nam")
        #expect(titles.map(\.stringValue) == ["Hello", "Bonjour"])
        #expect(titles.map(\.extendedLanguageTag) == [nil, "fr"])
        #expect(find(.quickTimeUserData, "\u{A9}day").first?.extendedLanguageTag == "en")
        #expect(find(.quickTimeUserData, "\u{A9}day").first?.dateValue == Date(timeIntervalSince1970: 1_704_067_200))
        let copyright = try #require(find(.isoUserData, "cprt").first)
        #expect(copyright.stringValue == "© 2024 Reel" && copyright.extendedLanguageTag == "en")
        #expect(find(.quickTimeUserData, "titl").first?.stringValue == "Hi")
        #expect(find(.quickTimeUserData, "yrrc").first?.numberValue == 2024)
        #expect(find(.iTunes, "\u{A9}ART").first?.stringValue == "Artist")
        let cover = try #require(find(.iTunes, "covr").first)
        #expect(cover.dataValue == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(cover.dataType == "com.apple.metadata.datatype.PNG")
        #expect(find(.iTunes, "tmpo").first?.numberValue == 120)
        #expect(find(.iTunes, "----:com.apple.iTunes:MOOD").first?.stringValue == "calm")
        let make = try #require(find(.quickTimeMetadata, "com.apple.quicktime.make").first)
        #expect(make.stringValue == "Reel" && make.extendedLanguageTag == "en")
        #expect(find("udta", "X").first?.numberValue == 7)
        #expect(!items.contains { $0.key == "XTRA" }, "unknown user-data boxes are skipped")
    }

    @Test("damaged boxes are errors naming the box, never crashes")
    func damaged() {
        let overlong = box("moov", box("udta", box("\u{A9}nam", u16(50) + u16(und) + Array("short".utf8))))
        #expect { try MP4MovieMetadata.items(moov: overlong) } throws: { error in
            (error as? ReelError)?.message.contains("©nam") == true
        }
        let missingKey = box(
            "moov",
            box(
                "meta",
                hdlr("mdta") + box("keys", u32(0) + u32(0))
                    + box("ilst", box("\0\0\0\u{05}", data(1, [0x41])))))
        #expect { try MP4MovieMetadata.items(moov: missingKey) } throws: { error in
            (error as? ReelError)?.message.contains("key 5") == true
        }
        let badText = box("moov", box("udta", box("meta", u32(0) + hdlr("mdir") + box("ilst", box("\u{A9}nam", data(1, [0xFF, 0xFE]))))))
        expectReelError(.metadataFormat) { try MP4MovieMetadata.items(moov: badText) }
        expectReelError(.metadataFormat) { try MP4MovieMetadata.items(moov: box("free", [])) }
        // Every truncation of the sample is an error or a shorter list, never a crash.
        let whole = sample
        for cut in stride(from: 0, to: whole.count, by: 7) {
            _ = try? MP4MovieMetadata.items(moov: Array(whole.prefix(cut)))
        }
    }

    @Test("the fixtures: QuickTime user data, iTunes items with cover art")
    func fixtures() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures")
        let userData = try MP4File(contentsOf: fixtures.appendingPathComponent("userdata.mov")).movieMetadata()
        #expect(
            userData.map(\.key) == [
                "\u{A9}ART", "\u{A9}nam", "\u{A9}aut", "\u{A9}alb", "\u{A9}day", "\u{A9}des", "\u{A9}cmt", "\u{A9}gen",
                "\u{A9}cpy", "\u{A9}key", "\u{A9}src", "\u{A9}lnk",
            ])
        #expect(userData.allSatisfy { $0.keySpace == .quickTimeUserData })
        #expect(userData[1].stringValue == "Reel user data")
        let iTunes = try MP4File(contentsOf: fixtures.appendingPathComponent("selection.mp4")).movieMetadata()
        #expect(iTunes.allSatisfy { $0.keySpace == .iTunes })
        #expect(iTunes.first { $0.key == "\u{A9}nam" }?.stringValue == "Reel selection")
        #expect(iTunes.first { $0.key == "covr" }?.dataValue?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }
}
