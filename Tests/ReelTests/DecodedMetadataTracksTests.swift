import Foundation
import ReelComposition
import ReelCore
import ReelIO
import ReelTestSupport
import Testing

@testable import Reel
@testable import ReelDocuments

@Suite("A file's timed metadata, decoded once for the process")
struct DecodedMetadataTracksTests {
    @Test("the loader, the engine's source and the export's read share one decoding, and give what a reader of their own gives")
    func decodedOnceAndTheSame() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let id = try #require(try await AssetReader.open(url: url).tracks(withMediaType: .metadata).first).trackID

        // A store of this test's own: the process's is shared with the tests running beside
        // this one, whose tracks can push this one out of its recent few.
        let tracks = DecodedMetadataTracks()
        let groups = try await LoadedComposition.readGroups(url: url, trackID: id, decodedTracks: tracks)
        #expect(groups.count >= 10)
        #expect(tracks.counts(url: url, trackID: id) == (1, 1))

        let shared = AssetTimedMetadataSource(url: url, trackID: id, decodedTracks: tracks)
        // The same decoding through readers of its own: a `decode` of the caller's is never shared.
        let own = AssetTimedMetadataSource(url: url, trackID: id, decode: { try AssetReaderOutputMetadataAdaptor.defaultDecode($0) })
        let whole = TimeRange(start: .zero, duration: .positiveInfinity)
        let all = try await shared.samples(in: whole)
        #expect(all.map(\.group) == groups)
        let ranges = [
            whole,
            TimeRange(start: MediaTime(value: 1, timescale: 2), end: MediaTime(value: 6, timescale: 5)),
            TimeRange(start: MediaTime(value: 1, timescale: 1), end: MediaTime(value: 3, timescale: 2)),
            TimeRange(start: MediaTime(value: 37, timescale: 30), end: MediaTime(value: 38, timescale: 30)),
        ]
        for range in ranges {
            let mine = try await shared.samples(in: range), theirs = try await own.samples(in: range)
            #expect(!mine.isEmpty)
            #expect(mine == theirs, "\(range): \(mine.count) samples against \(theirs.count)")
        }
        // Forwards frame by frame, then backwards, then jumps.
        var times = (0..<70).map { MediaTime(value: Int64($0), timescale: 30) }
        times += times.reversed()
        times += [55, 3, 41, 0, 69, 12, 12, 30].map { MediaTime(value: $0, timescale: 30) }
        var found = 0
        for t in times {
            let mine = try await shared.sample(at: t), theirs = try await own.sample(at: t)
            #expect(mine == theirs, "at \(t.seconds) s")
            if mine != nil { found += 1 }
        }
        #expect(found > 100)
        // The source asked once (it keeps the track), and the loader's read answered it.
        #expect(tracks.counts(url: url, trackID: id) == (2, 1))
    }

    @Test("a file written again is read again")
    func aRewrittenFileIsReadAgain() async throws {
        let (folder, url) = try TestFiles.copyOfFixture("counter-gps.mp4")
        defer { try? FileManager.default.removeItem(at: folder) }
        let id = try #require(try await AssetReader.open(url: url).tracks(withMediaType: .metadata).first).trackID
        let first = try await LoadedComposition.readGroups(url: url, trackID: id)
        try FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: TestFiles.fixture("counter-320x240.mp4"), to: url)
        // The new file has no metadata track: the read fails, naming the track.
        await expectReelError(.invalidArgument) { _ = try await LoadedComposition.readGroups(url: url, trackID: id) }
        #expect(!first.isEmpty)
    }
}
