import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

@Suite("Asset loading")
struct AssetTests {
    let counter = TestFiles.fixture("counter-320x240.mp4")

    @Test("creating an asset reads nothing")
    func lazy() {
        let asset = Asset(url: counter)
        #expect(asset.openCount == 0)
        #expect(asset.status(of: .tracks).isNotYetLoaded)
        #expect(asset.status(of: .duration).isNotYetLoaded)
    }

    @Test("load returns a typed tuple for any number of properties")
    func parameterPack() async throws {
        let asset = Asset(url: counter)
        let (duration, tracks, common, formats, readable, creation) =
            try await asset.load(.duration, .tracks, .commonMetadata, .availableMetadataFormats, .isReadable, .creationDate)
        #expect(duration == MediaTime(value: 2, timescale: 1))
        #expect(tracks.map(\.mediaType) == [.video, .audio])
        #expect(common.first { $0.identifier == .commonIdentifierTitle }?.stringValue == "Reel counter")
        #expect(formats == [.iTunes, .container])
        #expect(readable)
        #expect(creation?.dateValue == Date(timeIntervalSince1970: 1_704_067_200))
        let single = try await asset.load(.duration)
        #expect(single == duration)
        #expect(asset.openCount == 1)
    }

    @Test("all four states: not yet loaded, loading, loaded, failed")
    func fourStates() async throws {
        let asset = Asset(url: counter)
        #expect(asset.status(of: .tracks).isNotYetLoaded)
        asset.suspendIO()
        let task = Task { try await asset.load(.tracks) }
        while !asset.status(of: .tracks).isLoading { await Task.yield() }
        #expect(asset.status(of: .tracks).isLoading)
        asset.resumeIO()
        let tracks = try await task.value
        guard case .loaded(let cached) = asset.status(of: .tracks) else {
            Issue.record("expected .loaded, got \(asset.status(of: .tracks))")
            return
        }
        #expect(cached == tracks)

        let missing = Asset(url: TestFiles.fixture("no-such-file.mp4"))
        await expectReelError(.fileNotFound) { try await missing.load(.tracks) }
        #expect(missing.status(of: .tracks).error?.code == .fileNotFound)
    }

    @Test("a second load returns the cached value without reopening")
    func cached() async throws {
        let asset = Asset(url: counter)
        let first = try await asset.load(.tracks)
        let second = try await asset.load(.tracks)
        #expect(first == second)
        #expect(asset.openCount == 1)
    }

    @Test("two concurrent loads of tracks open the file once")
    func concurrentLoadsShareWork() async throws {
        let asset = Asset(url: counter)
        asset.suspendIO()
        async let a = asset.load(.tracks)
        async let b = asset.load(.tracks)
        while asset.waiterCount(of: .tracks) < 2 { await Task.yield() }
        asset.resumeIO()
        let (ta, tb) = try await (a, b)
        #expect(ta == tb)
        #expect(ta.count == 2)
        #expect(asset.openCount == 1)
    }

    @Test("loads of different properties share one probe")
    func differentPropertiesOneOpen() async throws {
        let asset = Asset(url: counter)
        async let d = asset.load(.duration)
        async let m = asset.load(.metadata)
        async let t = asset.load(.tracks)
        _ = try await (d, m, t)
        #expect(asset.openCount == 1)
    }

    @Test("cancelling a waiting task leaves the cache whole")
    func cancellation() async throws {
        let asset = Asset(url: counter)
        asset.suspendIO()
        let task = Task { try await asset.load(.tracks) }
        while asset.waiterCount(of: .tracks) < 1 { await Task.yield() }
        task.cancel()
        let outcome = await task.result
        expectReelError(.cancelled) { try outcome.get() }
        if case .failure(let error as ReelError) = outcome { #expect(error.code == .cancelled) }
        // The work is still queued; it completes and fills the cache.
        #expect(asset.status(of: .tracks).isLoading)
        asset.resumeIO()
        let tracks = try await asset.load(.tracks)
        #expect(tracks.count == 2)
        #expect(asset.openCount == 1)
        #expect(asset.status(of: .tracks).value?.count == 2)
    }

    @Test("a task already cancelled gets a cancellation error and starts no work")
    func alreadyCancelled() async throws {
        let asset = Asset(url: counter)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await asset.load(.duration)
        }
        let outcome = await task.result
        guard case .failure(let error as ReelError) = outcome else {
            Issue.record("expected a cancellation error, got \(outcome)")
            return
        }
        #expect(error.code == .cancelled)
        #expect(asset.status(of: .duration).isNotYetLoaded)
        #expect(try await asset.load(.duration).seconds == 2)
    }

    @Test("a failed load names the file and the reason, and status says failed with that error")
    func failure() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-asset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("notes.mp4")
        try Data("this is not a video\n".utf8).write(to: text)
        let asset = Asset(url: text)
        var thrown: ReelError?
        do { _ = try await asset.load(.duration, .tracks) } catch { thrown = error }
        let error = try #require(thrown)
        #expect(error.path == text.path)
        #expect(error.description.contains("notes.mp4"))
        #expect(error.description.contains("not a media file"))
        guard case .failed(let stored) = asset.status(of: .duration) else {
            Issue.record("expected .failed, got \(asset.status(of: .duration))")
            return
        }
        #expect(stored.description == error.description)
        // isReadable loads as false rather than failing.
        #expect(try await asset.load(.isReadable) == false)
        #expect(asset.openCount == 1)
    }

    @Test("a file whose stream information cannot be read fails with an error, not a crash")
    func unreadableStreamInfo() async throws {
        // metadata.mov with one byte of its sample data changed: the header opens, but
        // avformat_find_stream_info fails.
        var bytes = try Data(contentsOf: TestFiles.fixture("metadata.mov"))
        try #require(bytes.count > 17107)
        bytes[17107] = 130
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-asset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let damaged = folder.appendingPathComponent("damaged.mov")
        try bytes.write(to: damaged)
        let asset = Asset(url: damaged)
        var thrown: ReelError?
        do { _ = try await asset.load(.tracks) } catch { thrown = error }
        let error = try #require(thrown)
        #expect(error.code == .corruptData)
        #expect(error.description.contains("damaged.mov"))
        #expect(error.description.contains("stream information"))
    }

    @Test("the key-based API reports loaded, failed and unknown keys")
    func keyValueLoading() async throws {
        let asset = Asset(url: counter)
        var error: ReelError?
        #expect(asset.statusOfValue(forKey: "duration", error: &error) == .unknown)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            asset.loadValuesAsynchronously(forKeys: ["duration", "tracks", "bogus"]) { done.resume() }
        }
        #expect(asset.statusOfValue(forKey: "duration", error: &error) == .loaded)
        #expect(asset.statusOfValue(forKey: "tracks", error: &error) == .loaded)
        #expect(error == nil)
        #expect(asset.statusOfValue(forKey: "bogus", error: &error) == .failed)
        #expect(error?.code == .invalidArgument)
        #expect(try await asset.load(.duration).seconds == 2)
    }

    @Test("cancelLoading abandons running loads; a later load starts again")
    func cancelLoading() async throws {
        let asset = Asset(url: counter)
        asset.suspendIO()
        let task = Task { try await asset.load(.tracks) }
        while asset.waiterCount(of: .tracks) < 1 { await Task.yield() }
        asset.cancelLoading()
        var error: ReelError?
        #expect(asset.statusOfValue(forKey: "tracks", error: &error) == .cancelled)
        #expect(asset.status(of: .tracks).isNotYetLoaded)
        let outcome = await task.result
        expectReelError(.cancelled) { try outcome.get() }
        asset.resumeIO()
        #expect(try await asset.load(.tracks).count == 2)
        #expect(asset.statusOfValue(forKey: "tracks", error: &error) == .loaded)
    }

    @Test("tracks by media type, id and characteristic")
    func trackQueries() async throws {
        let asset = Asset(url: counter)
        #expect(try await asset.loadTracks(withMediaType: .audio).map(\.trackID) == [2])
        #expect(try await asset.loadTrack(withTrackID: 1)?.mediaType == .video)
        #expect(try await asset.loadTrack(withTrackID: 9) == nil)
        #expect(try await asset.loadTracks(withMediaCharacteristic: .visual).map(\.trackID) == [1])
        #expect(try await asset.loadTracks(withMediaCharacteristic: .audible).map(\.trackID) == [2])
        #expect(try await asset.loadTracks(withMediaCharacteristic: .containsTimedMetadata).isEmpty)
    }

    @Test("isPlayable and the \"playable\" key: true for decodable sound or pictures, false for a file that cannot be read")
    func playable() async throws {
        let asset = Asset(url: counter)
        var error: ReelError?
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            asset.loadValuesAsynchronously(forKeys: ["playable"]) { done.resume() }
        }
        #expect(asset.statusOfValue(forKey: "playable", error: &error) == .loaded)
        #expect(error == nil)
        #expect(try await asset.load(.isPlayable))
        #expect(asset.status(of: .isPlayable).value == true)
        let missing = Asset(url: URL(fileURLWithPath: "/nonexistent/clip.mp4"))
        #expect(try await missing.load(.isPlayable) == false)
        let music = Asset(url: TestFiles.fixture("tags.mp3"))
        #expect(try await music.load(.isPlayable))
    }

    @Test("chapters in the language that best matches the preferred ones (MP4 chapter track, eng)")
    func chaptersByPreferredLanguage() async throws {
        let asset = Asset(url: TestFiles.fixture("selection.mp4"))
        #expect(try await asset.load(.availableChapterLocales).map(\.identifier) == ["en"])
        let english = try await asset.loadChapterMetadataGroups(bestMatchingPreferredLanguages: ["de-CH", "en-GB", "fr"])
        #expect(english.map { $0.item(.commonIdentifierTitle)?.stringValue } == ["Début", "Fin"])
        #expect(english.map { $0.item(.commonIdentifierTitle)?.extendedLanguageTag } == ["en", "en"])
        #expect(english.map(\.timeRange.start.seconds) == [0, 0.5])
        // No preferred language matches: the chapters as they are.
        let fallback = try await asset.loadChapterMetadataGroups(bestMatchingPreferredLanguages: ["ja"])
        #expect(fallback == english)
        // Matroska chapters carry no language.
        let mkv = Asset(url: TestFiles.fixture("chapters.mkv"))
        #expect(try await mkv.load(.availableChapterLocales).isEmpty)
        #expect(try await mkv.loadChapterMetadataGroups(bestMatchingPreferredLanguages: ["en"]).count == 2)
    }

    @Test("a localised title tag is taken for its language")
    func localisedChapterTitle() {
        let range = TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1))
        let group = TimedMetadataGroup(
            timeRange: range,
            items: [
                MetadataItem(identifier: .commonIdentifierTitle, value: .string("Opening")),
                MetadataItem(identifier: MetadataIdentifier(keySpace: .container, key: "title-fra"), value: .string("Ouverture")),
            ])
        let french = Asset.titled(group, language: "fr-CA")
        #expect(french?.item(.commonIdentifierTitle)?.stringValue == "Ouverture")
        #expect(french?.item(.commonIdentifierTitle)?.extendedLanguageTag == "fr")
        #expect(Asset.titled(group, language: "de") == nil)
    }

    @Test("track groups: the tracks of each MP4 alternate group; none in Matroska")
    func trackGroups() async throws {
        let groups = try await Asset(url: TestFiles.fixture("selection.mp4")).load(.trackGroups)
        #expect(groups == [AssetTrackGroup(trackIDs: [2, 3]), AssetTrackGroup(trackIDs: [4, 5])])
        #expect(try await Asset(url: TestFiles.fixture("chapters.mkv")).load(.trackGroups).isEmpty)
    }

    @Test("chapters of a Matroska file")
    func chapters() async throws {
        let asset = Asset(url: TestFiles.fixture("chapters.mkv"))
        let groups = try await asset.loadChapterMetadataGroups(withTitleLocale: nil, containingItemsWithCommonKeys: ["title"])
        #expect(groups.map { $0.item(.commonIdentifierTitle)?.stringValue } == ["Opening", "Closing"])
        #expect(groups.map(\.timeRange.start.seconds) == [0, 0.5])
        #expect(groups.map(\.timeRange.end.seconds) == [0.5, 1])
        #expect(groups.allSatisfy { $0.items.count == 1 })
    }

    @Test("precise timing reads the samples")
    func preciseTiming() async throws {
        let asset = Asset(url: TestFiles.fixture("vfr.mp4"), options: .init(preferPreciseDurationAndTiming: true))
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        #expect(video.minFrameDuration == MediaTime(value: 1, timescale: 30))
        #expect(video.timeRange.start == .zero)
        #expect(video.estimatedDataRate > 0)
        #expect(asset.openCount == 1)
    }

    @Test("MPEG-TS: the timeline starts at the first timestamp and track IDs are PIDs")
    func transportStream() async throws {
        let asset = Asset(url: TestFiles.fixture("counter.ts"))
        let (tracks, duration, format) = try await asset.load(.tracks, .duration, .containerFormat)
        #expect(tracks.map(\.trackID) == [0x100, 0x101])
        #expect(format.name == "mpegts")
        let metadata = try await asset.load(.metadata)
        #expect(metadata.map(\.identifier.rawValue) == ["container/service_name", "container/service_provider"])
        #expect(metadata.first?.stringValue == "Service01")
        #expect(duration.isNumeric && duration.seconds > 0.9 && duration.seconds < 1.1)
    }
}
