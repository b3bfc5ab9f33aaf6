import Foundation
import ReelIO
import ReelTestSupport
import Testing

@Suite("FormatDescription.codecConfiguration")
struct FormatDescriptionCodecConfigurationTests {
    @Test func h264AndAACCarryTheirConfigurationAndDataTracksNone() async throws {
        let reader = try await AssetReader.open(url: TestFiles.fixture("counter-gps.mp4"))
        let video = try #require(reader.tracks(withMediaType: .video).first).formatDescription.codecConfiguration
        // An avcC record: version 1, then the profile (High, 100).
        #expect(video.count > 7 && video.first == 1 && video[video.startIndex + 1] == 100, "\(Array(video.prefix(8)))")
        let audio = try #require(reader.tracks(withMediaType: .audio).first).formatDescription.codecConfiguration
        // An AudioSpecificConfig: AAC-LC (object type 2) in the top 5 bits.
        #expect(audio.count >= 2 && audio.first.map { $0 >> 3 } == 2)
        let metadata = try #require(reader.tracks(withMediaType: .metadata).first).formatDescription.codecConfiguration
        #expect(metadata.isEmpty)
    }
}
