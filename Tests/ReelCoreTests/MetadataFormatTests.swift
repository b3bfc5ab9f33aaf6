import Foundation
import ReelCore
import Testing

@Suite("MetadataFormat")
struct MetadataFormatTests {
    @Test func klvaReadsAsKLV() {
        #expect(MetadataFormat(rawValue: "KLVA") == .klv)
        #expect(MetadataFormat(rawValue: "KLVA").rawValue == "klv")
        #expect(MetadataFormat(knownCode: "KLVA") == .klv)
        #expect(MetadataFormat(rawValue: "klva") != .klv)
    }

    @Test func knownCodesOnly() {
        #expect(MetadataFormat(knownCode: "gpmd") == .gpmd)
        #expect(MetadataFormat(knownCode: "mebx") == .mebx)
        #expect(MetadataFormat(knownCode: "camm") == .camm)
        #expect(MetadataFormat(knownCode: "avc1") == nil)
        #expect(MetadataFormat(knownCode: "tmcd") == nil)
        #expect(MetadataFormat(rawValue: "tmcd").rawValue == "tmcd")
    }

    @Test func codableRoundTrip() throws {
        let formats: [MetadataFormat] = [.gpmd, .mebx, .camm, .klv, MetadataFormat(rawValue: "fdsc")]
        let json = try JSONEncoder().encode(formats)
        #expect(String(decoding: json, as: UTF8.self) == #"["gpmd","mebx","camm","klv","fdsc"]"#)
        #expect(try JSONDecoder().decode([MetadataFormat].self, from: json) == formats)
        #expect(try JSONDecoder().decode(MetadataFormat.self, from: Data(#""KLVA""#.utf8)) == .klv)
    }

    @Test func descriptionIsTheCode() {
        #expect(MetadataFormat.gpmd.description == "gpmd")
        #expect("\(MetadataFormat.klv) track" == "klv track")
        #expect(MetadataFormat(rawValue: "KLVA").description == "klv")
    }
}
