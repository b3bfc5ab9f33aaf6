import Foundation
import ReelIO
import ReelTestSupport
import Testing

@Suite struct H264NonReferencePictureTests {
    /// NAL units (each a header byte and a little payload), length-prefixed by `size` bytes.
    func lengthPrefixed(_ units: [[UInt8]], size: Int = 4) -> [UInt8] {
        units.flatMap { unit in (0..<size).reversed().map { UInt8(truncatingIfNeeded: unit.count >> (8 * $0)) } + unit }
    }

    func holds(_ bytes: [UInt8], lengthSize: Int?) -> Bool {
        bytes.withUnsafeBytes { H264NonReferencePicture.holds($0, lengthSize: lengthSize) }
    }

    // Header bytes: nal_ref_idc in bits 5-6, the type in bits 0-4.
    let sei: [UInt8] = [0x06, 0x05, 0x01, 0x80]
    let nonReferenceSlice: [UInt8] = [0x01, 0x9A, 0x02, 0x04]
    let referenceSlice: [UInt8] = [0x21, 0x9A, 0x02, 0x04]
    let idrSlice: [UInt8] = [0x65, 0x88, 0x80, 0x40]

    @Test func aPictureWhoseSlicesAllHaveNalRefIdcZeroIsNotAReference() {
        #expect(holds(lengthPrefixed([sei, nonReferenceSlice]), lengthSize: 4))
        #expect(holds(lengthPrefixed([nonReferenceSlice, nonReferenceSlice], size: 2), lengthSize: 2))
        #expect(holds(lengthPrefixed([nonReferenceSlice], size: 1), lengthSize: 1))
    }

    @Test func aReferenceSliceAnIDROrALayeredUnitMakesItOneThatMayBeReferredTo() {
        for idc: UInt8 in [0x20, 0x40, 0x60] {
            #expect(!holds(lengthPrefixed([[idc | 0x01, 0x9A]]), lengthSize: 4), "nal_ref_idc \(idc >> 5)")
        }
        #expect(!holds(lengthPrefixed([nonReferenceSlice, referenceSlice]), lengthSize: 4))
        #expect(!holds(lengthPrefixed([idrSlice]), lengthSize: 4))
        // Data partitions A to C carry the slice's nal_ref_idc too.
        #expect(holds(lengthPrefixed([[0x02, 0x80], [0x03, 0x80], [0x04, 0x80]]), lengthSize: 4))
        #expect(!holds(lengthPrefixed([[0x22, 0x80], [0x23, 0x80]]), lengthSize: 4))
        // A prefix unit or a slice extension (SVC, MVC): another layer may refer to the picture.
        for type: UInt8 in [14, 15, 20, 21] {
            #expect(!holds(lengthPrefixed([[type, 0x80], nonReferenceSlice]), lengthSize: 4), "NAL type \(type)")
        }
    }

    @Test func bytesWithoutASliceOrThatDoNotParseAreNotLeftOut() {
        #expect(!holds([], lengthSize: 4))
        #expect(!holds(lengthPrefixed([sei]), lengthSize: 4))
        // A length past the end, a zero length, a length size out of range, a lone length.
        #expect(!holds([0, 0, 0, 9] + nonReferenceSlice, lengthSize: 4))
        #expect(!holds([0, 0, 0, 0] + lengthPrefixed([nonReferenceSlice]), lengthSize: 4))
        #expect(!holds(lengthPrefixed([nonReferenceSlice], size: 4), lengthSize: 5))
        #expect(!holds(lengthPrefixed([nonReferenceSlice]) + [0, 0], lengthSize: 4))
    }

    @Test func annexBUnitsAreFoundAfterTheirStartCodes() {
        let shortCode: [UInt8] = [0, 0, 1], longCode: [UInt8] = [0, 0, 0, 1]
        #expect(holds(longCode + sei + shortCode + nonReferenceSlice, lengthSize: nil))
        #expect(!holds(longCode + nonReferenceSlice + longCode + referenceSlice, lengthSize: nil))
        #expect(!holds(longCode + idrSlice, lengthSize: nil))
        #expect(!holds(nonReferenceSlice, lengthSize: nil), "no start code")
        #expect(!holds(longCode + sei, lengthSize: nil), "no slice")
    }

    @Test("in a file encoded with B-pyramids, the pictures found are those the bitstream marks nal_ref_idc 0")
    func theFixturesNonReferencePictures() async throws {
        // counter-320x240.mp4: 60 pictures, IBBBP with B-pyramids; 28 carry nal_ref_idc 0
        // (ffmpeg's trace_headers), the outer two of each three B-frames and each pair.
        let reader = try await AssetReader.open(url: TestFiles.fixture("counter-320x240.mp4"))
        let packets = AssetReaderTrackOutput(trackID: 1, settings: .passthrough)
        try reader.add(packets)
        try reader.startReading()
        var found = 0, count = 0
        for try await buffer in packets.sampleBuffers {
            count += 1
            if buffer.data.withUnsafeBytes({ H264NonReferencePicture.holds($0, lengthSize: 4) }) { found += 1 }
        }
        #expect(count == 60 && found == 28)
    }
}
