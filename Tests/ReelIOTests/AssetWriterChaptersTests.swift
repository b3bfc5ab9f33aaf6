import Foundation
import ReelCore
import ReelIO
import ReelTestSupport
import Testing

@Suite struct AssetWriterChaptersTests {
    static func chapter(_ title: String, from start: Int, to end: Int) -> TimedMetadataGroup {
        let range = TimeRange(start: MediaTime(value: Int64(start), timescale: 30), end: MediaTime(value: Int64(end), timescale: 30))
        return TimedMetadataGroup(
            timeRange: range,
            items: [
                MetadataItem(
                    identifier: .commonIdentifierTitle, value: .string(title),
                    time: range.start, duration: range.duration)
            ])
    }

    /// Writes 30 frames (1 s) with `chapters`.
    static func write(_ chapters: [TimedMetadataGroup], to url: URL, as fileType: AssetWriter.FileType) async throws {
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        writer.chapters = chapters
        let video = AssetWriterInput(settings: .video(.init(codec: .h264, width: 64, height: 48, preset: "ultrafast")))
        try writer.add(video)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for i in 0..<30 {
            try await video.append(PixelBuffer(width: 64, height: 48, format: .yuv420p), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
        }
        try await writer.finishWriting()
    }

    @Test("chapters written are read back with their titles and times", arguments: [AssetWriter.FileType.mp4, .mov, .mkv])
    func chaptersRoundTrip(fileType: AssetWriter.FileType) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.\(fileType.rawValue)")
        let written = [Self.chapter("Intro", from: 0, to: 10), Self.chapter("Harbour — ünïcode", from: 10, to: 25), Self.chapter("End", from: 25, to: 30)]
        try await Self.write(written, to: url, as: fileType)
        #expect(AssetWriter.canWriteChapters(into: fileType))
        let read = try await Asset(url: url).load(.chapters)
        try #require(read.count == 3, "\(read.map(\.timeRange))")
        for (got, want) in zip(read, written) {
            #expect(
                got.items.first { $0.identifier == .commonIdentifierTitle }?.stringValue
                    == want.items.first?.stringValue)
            // MP4 and MOV keep chapter times in milliseconds.
            #expect(abs((got.timeRange.start - want.timeRange.start).seconds) < 0.002, "\(got.timeRange) \(want.timeRange)")
        }
        // The picture is untouched by the chapter track: 30 frames, 1 s.
        let video = try await Asset(url: url).load(.tracks).filter { $0.mediaType == .video }
        #expect(video.count == 1)
    }

    @Test func mpegTSHoldsNoChapters() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.ts")
        #expect(!AssetWriter.canWriteChapters(into: .mpegts))
        try await Self.write([Self.chapter("Intro", from: 0, to: 30)], to: url, as: .mpegts)
        #expect(try await Asset(url: url).load(.chapters).isEmpty)
    }
}
