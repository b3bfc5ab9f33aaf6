import Foundation
import ReelDocuments
import ReelTestSupport
import Testing

@testable import Reel

@Suite struct MetadataOutputFormatTests {
    struct Case: Sendable, CustomStringConvertible {
        var sources: [MetadataFormat]
        var fileType: AssetWriter.FileType
        var requested: MetadataOutputFormat
        var format: MetadataFormat
        var converts: Bool
        var description: String { "\(sources) -> .\(fileType.rawValue) (\(requested.rawValue))" }
    }

    static let cases: [Case] = [
        // auto keeps a format the container holds...
        Case(sources: [.gpmd], fileType: .mp4, requested: .auto, format: .gpmd, converts: false),
        Case(sources: [.mebx], fileType: .mov, requested: .auto, format: .mebx, converts: false),
        Case(sources: [.camm], fileType: .mp4, requested: .auto, format: .camm, converts: false),
        Case(sources: [MetadataFormat(rawValue: "KLVA")], fileType: .mpegts, requested: .auto, format: .klv, converts: false),
        Case(sources: [.klv, MetadataFormat(rawValue: "KLVA")], fileType: .mpegts, requested: .auto, format: .klv, converts: false),
        // ...and converts to the container's natural one otherwise.
        Case(sources: [.klv], fileType: .mp4, requested: .auto, format: .gpmd, converts: true),
        Case(sources: [.gpmd], fileType: .mpegts, requested: .auto, format: .klv, converts: true),
        Case(sources: [.mebx], fileType: .mpegts, requested: .auto, format: .klv, converts: true),
        Case(sources: [.gpmd, .mebx], fileType: .mov, requested: .auto, format: .mebx, converts: true),
        Case(sources: [.gpmd, .camm], fileType: .mp4, requested: .auto, format: .gpmd, converts: true),
        // An asked format is written when the container holds it.
        Case(sources: [.gpmd], fileType: .mp4, requested: .mebx, format: .mebx, converts: true),
        Case(sources: [.gpmd], fileType: .mov, requested: .camm, format: .camm, converts: true),
        Case(sources: [.klv], fileType: .mpegts, requested: .klv, format: .klv, converts: false),
    ]

    @Test(arguments: cases)
    func resolves(_ c: Case) throws {
        let (format, converts) = try c.requested.resolve(sourceFormats: c.sources, fileType: c.fileType, trackID: 3, path: "out")
        #expect(format == c.format)
        #expect(converts == c.converts)
    }

    @Test func matroskaHoldsNoTimedMetadata() {
        let error = expectReelError(.invalidArgument) {
            try MetadataOutputFormat.auto.resolve(sourceFormats: [.gpmd], fileType: .mkv, trackID: 3, path: "out.mkv", leaveOut: "--no-metadata")
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.trackID == 3)
        // The way out is the caller's; the track is named once, by the error's track ID.
        #expect(error?.message.contains("(--no-metadata)") == true)
        #expect(error.map { $0.description.components(separatedBy: "track 3").count - 1 } == 1, "\(String(describing: error))")
    }

    @Test func aFormatTheContainerCannotHoldIsRefused() {
        let error = expectReelError(.invalidArgument) {
            try MetadataOutputFormat.mebx.resolve(sourceFormats: [.gpmd], fileType: .mpegts, trackID: 2, path: "out.ts")
        }
        #expect(error?.message.contains("klv") == true)
        expectReelError(.invalidArgument) {
            try MetadataOutputFormat.klv.resolve(sourceFormats: [.gpmd], fileType: .mp4, trackID: 2, path: "out.mp4")
        }
    }
}
