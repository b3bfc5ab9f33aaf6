import Reel
import Testing

/// The spellings Reel had before it took AVFoundation's names still compile, as deprecated
/// aliases of the new ones: code written against them builds (with a warning) and means
/// the same. Removing an alias breaks this file's build.
@Suite struct DeprecatedSpellingsTests {
    /// Every old spelling, next to the new one it stands for.
    @available(*, deprecated, message: "uses the deprecated spellings on purpose")
    static func oldAndNew() -> [(old: MetadataIdentifier, new: MetadataIdentifier)] {
        [
            (.commonTitle, .commonIdentifierTitle), (.commonCreationDate, .commonIdentifierCreationDate),
            (.commonLocation, .commonIdentifierLocation), (.commonMake, .commonIdentifierMake),
            (.commonModel, .commonIdentifierModel), (.commonSoftware, .commonIdentifierSoftware),
        ]
    }

    @available(*, deprecated, message: "uses the deprecated spellings on purpose")
    @Test func oldMetadataIdentifiersAreTheCommonIdentifiers() {
        for (old, new) in Self.oldAndNew() { #expect(old == new) }
        #expect(Set(Self.oldAndNew().map(\.new)).count == 6)
    }

    @available(*, deprecated, message: "uses the deprecated spellings on purpose")
    @Test func theStandardInstructionIsTheInstruction() {
        var old = VideoCompositionStandardInstruction()
        old.timeRange = TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1))
        old.requiredSourceSampleDataTrackIDs = [4]
        let new: VideoCompositionInstruction = old
        #expect(new.requiredSourceSampleDataTrackIDs == [4] && new.timeRange == old.timeRange)
    }

    @available(*, deprecated, message: "uses the deprecated spellings on purpose")
    @Test func theOldPixelBufferKeysAreTheNewOnes() {
        var attributes = PixelBufferAttributes(pixelFormats: [.bgra])
        #expect(attributes.pixelFormatType == [.bgra])
        attributes.pixelFormats = [.yuv420p]
        #expect(attributes.pixelFormatType == [.yuv420p] && attributes.pixelFormats == [.yuv420p])
        #expect(attributes == PixelBufferAttributes(pixelFormatType: [.yuv420p]))
    }
}
