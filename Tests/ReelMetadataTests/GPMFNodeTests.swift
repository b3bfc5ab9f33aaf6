import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("GPMFNode: the KLV tree")
struct GPMFNodeTests {
    /// Builds one KLV: header plus payload padded to 4 bytes.
    static func klv(_ key: String, _ type: UInt8, _ size: Int, _ count: Int, _ payload: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.append(contentsOf: FourCC(key).bytes)
        w.u8(type)
        w.u8(UInt8(size))
        w.u16be(UInt16(count))
        w.append(contentsOf: payload)
        while w.bytes.count % 4 != 0 { w.u8(0) }
        return w.bytes
    }

    @Test func walksNestedTreeWithAlignment() throws {
        let inner = Self.klv("DVID", 0x4C, 4, 1, [0, 0, 0, 7]) + Self.klv("DVNM", 0x63, 1, 5, Array("Cam 1".utf8))
        let payload = Self.klv("DEVC", 0, 1, inner.count, inner)
        let nodes = try GPMFNode.parse(Data(payload))
        #expect(nodes.count == 1)
        #expect(nodes[0].key == "DEVC")
        #expect(nodes[0].children.map(\.key) == ["DVID", "DVNM"])
        #expect(nodes[0].children[1].offset == 20)
        #expect(try nodes[0].children[0].values() == [[.uint(7)]])
        #expect(try nodes[0].children[1].values() == [[.string("Cam 1")]])
    }

    @Test(arguments: [
        (UInt8(ascii: "b"), [UInt8(0xFF)], GPMFValue.int(-1)),
        (UInt8(ascii: "B"), [0xFF], .uint(255)),
        (UInt8(ascii: "s"), [0xFF, 0xFE], .int(-2)),
        (UInt8(ascii: "S"), [0xFF, 0xFE], .uint(65534)),
        (UInt8(ascii: "l"), [0xFF, 0xFF, 0xFF, 0xFD], .int(-3)),
        (UInt8(ascii: "L"), [0x00, 0x01, 0x00, 0x00], .uint(65536)),
        (UInt8(ascii: "j"), [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFC], .int(-4)),
        (UInt8(ascii: "J"), [0, 0, 0, 1, 0, 0, 0, 0], .uint(4_294_967_296)),
        (UInt8(ascii: "f"), [0x3F, 0xC0, 0, 0], .real(1.5)),
        (UInt8(ascii: "d"), [0x40, 0x04, 0, 0, 0, 0, 0, 0], .real(2.5)),
        (UInt8(ascii: "q"), [0xFF, 0xFE, 0x80, 0x00], .real(-1.5)),
        (UInt8(ascii: "Q"), [0, 0, 0, 3, 0x40, 0, 0, 0], .real(3.25)),
        (UInt8(ascii: "F"), Array("SNOW".utf8), .fourCC("SNOW")),
        (UInt8(ascii: "U"), Array("191118234514.000".utf8), .string("191118234514.000")),
        (UInt8(ascii: "G"), Array(0..<16), .bytes(Data(0..<16))),
        (UInt8(ascii: "c"), [0x6D, 0x2F, 0x73, 0xB2], .string("m/s²")),
    ])
    func decodesEveryTypeCharacter(type: UInt8, bytes: [UInt8], expected: GPMFValue) throws {
        let nodes = try GPMFNode.parse(Data(Self.klv("TEST", type, bytes.count, 1, bytes)))
        #expect(nodes[0].type.rawValue == type)
        #expect(try nodes[0].values() == [[expected]])
    }

    @Test func multiElementStructuresAndUnitStrings() throws {
        let accl = try GPMFNode.parse(Data(Self.klv("ACCL", 0x73, 6, 2, [0, 1, 0, 2, 0xFF, 0xFF, 0, 4, 0, 5, 0, 6])))[0]
        #expect(try accl.values() == [[.int(1), .int(2), .int(-1)], [.int(4), .int(5), .int(6)]])
        let unit = try GPMFNode.parse(Data(Self.klv("UNIT", 0x63, 3, 3, Array("degm\0\0m/s".utf8))))[0]
        #expect(try unit.values() == [[.string("deg")], [.string("m")], [.string("m/s")]])
    }

    @Test func complexTypeNeedsAMatchingLayout() throws {
        // "Ff[2]" = FourCC + 2 floats = 12 bytes.
        let bytes: [UInt8] = Array("SNOW".utf8) + [0x3F, 0x80, 0, 0, 0x40, 0, 0, 0]
        let node = try GPMFNode.parse(Data(Self.klv("SCEN", 0x3F, 12, 1, bytes)))[0]
        let layout = try GPMFStructLayout(parsing: "Ff[2]")
        #expect(try node.values(layout: layout) == [[.fourCC("SNOW"), .real(1), .real(2)]])
        expectReelError(.metadataFormat) { try node.values() }
        expectReelError(.metadataFormat) { try node.values(layout: GPMFStructLayout(parsing: "Ff")) }
    }

    @Test func errorsNameTheKeyAndOffset() {
        // STRM claims 100 bytes inside a DEVC that has 12.
        let strm = [UInt8]("STRM".utf8) + [0, 1, 0, 100] + [0, 0, 0, 0]
        let devc = Self.klv("DEVC", 0, 1, strm.count, strm)
        do {
            _ = try GPMFNode.parse(Data(devc))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .corruptData)
            #expect(error.message.contains("DEVC/STRM"))
            #expect(error.message.contains("offset 8"))
        }
        do {
            _ = try GPMFNode.parse(Data(Self.klv("ACCL", UInt8(ascii: "x"), 1, 1, [1])))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .metadataFormat)
            #expect(error.message.contains("ACCL") && error.message.contains("'x'"))
        }
    }

    @Test func trailingZeroPaddingIsAllowedButNotGarbage() throws {
        let base = Self.klv("TMPC", 0x66, 4, 1, [0x41, 0xC8, 0, 0])
        #expect(try GPMFNode.parse(Data(base + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])).count == 1)
        expectReelError(.corruptData) { try GPMFNode.parse(Data(base + [0, 0, 1])) }
    }

    @Test func deepNestingIsRefused() {
        var payload: [UInt8] = Self.klv("LEAF", 0x42, 1, 1, [1])
        for _ in 0..<40 { payload = Self.klv("NEST", 0, 1, payload.count, payload) }
        expectReelError(.metadataFormat) { try GPMFNode.parse(Data(payload)) }
    }
}
