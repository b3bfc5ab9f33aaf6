import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

@Suite("AssetTrack and MetadataItem loading")
struct AssetTrackLoadingTests {
    func tracks(_ name: String) async throws -> [AssetTrack] {
        try await Asset(url: TestFiles.fixture(name)).load(.tracks)
    }

    @Test("status(of:) on a track is loaded with the property's value")
    func status() async throws {
        let audio = try #require(try await tracks("selection.mp4").first { $0.trackID == 3 })
        #expect(audio.status(of: .extendedLanguageTag).value == "fr")
        #expect(audio.status(of: .languageCode).value == "fra")
        #expect(audio.status(of: .isPlayable).value == true)
        #expect(audio.status(of: .isDecodable).value == true)
        let (tag, playable) = try await audio.load(.extendedLanguageTag, .isPlayable)
        #expect(tag == "fr" && playable)
    }

    @Test("key-value loading on a track: known keys loaded, an unknown key failed with the reason")
    func keyValue() async throws {
        let video = try #require(try await tracks("counter-320x240.mp4").first)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            video.loadValuesAsynchronously(forKeys: ["naturalSize", "playable"]) { done.resume() }
        }
        var error: ReelError?
        #expect(video.statusOfValue(forKey: "naturalSize", error: &error) == .loaded)
        #expect(error == nil)
        #expect(video.statusOfValue(forKey: "bogus", error: &error) == .failed)
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("bogus") == true)
    }

    @Test("every track key names a property that loads")
    func keysMatchProperties() async throws {
        let video = try #require(try await tracks("counter-320x240.mp4").first)
        let properties: [String] = [
            AssetProperty<AssetTrack, Int32>.trackID.key, AssetProperty<AssetTrack, Bool>.isPlayable.key,
            AssetProperty<AssetTrack, Bool>.isDecodable.key, AssetProperty<AssetTrack, String?>.extendedLanguageTag.key,
            AssetProperty<AssetTrack, [MetadataItem]>.commonMetadata.key,
            AssetProperty<AssetTrack, [MetadataKeySpace]>.availableMetadataFormats.key,
        ]
        var error: ReelError?
        for key in properties { #expect(video.statusOfValue(forKey: key, error: &error) == .loaded, "\(key)") }
    }

    @Test("a metadata item loads its values and reports its keys")
    func metadataItem() async throws {
        let item = MetadataItem(identifier: .commonIdentifierTitle, value: .string("42"), extendedLanguageTag: "en")
        let (string, number, language) = try await item.load(.stringValue, .numberValue, .extendedLanguageTag)
        #expect(string == "42" && number == 42 && language == "en")
        #expect(item.status(of: .dateValue).value == .some(nil))
        var error: ReelError?
        #expect(item.statusOfValue(forKey: "value", error: &error) == .loaded)
        #expect(item.statusOfValue(forKey: "commonKeyX", error: &error) == .failed)
        #expect(error?.code == .invalidArgument)
    }

    @Test("associated tracks: each track's chapter list is the chapter text track")
    func chapterList() async throws {
        let all = try await tracks("selection.mp4")
        let video = try #require(all.first)
        let chapters = try await video.loadAssociatedTracks(ofType: .chapterList)
        #expect(chapters.count == 1)
        #expect(chapters.first?.format == "text")
        #expect(try await video.loadAssociatedTracks(ofType: .audioFallback).isEmpty)
        #expect(try await video.loadAssociatedTracks(ofType: .forcedSubtitlesOnly).isEmpty)
        #expect(try await video.loadAssociatedTracks(ofType: .selectionFollower).isEmpty)
    }

    @Test("associated tracks from 'fall', 'forc' and 'folw' references: each from its own track, to the one it names")
    func fallbackForcedAndFollower() async throws {
        let all = try await tracks("selection.mp4")
        func track(_ id: Int32) throws -> AssetTrack { try #require(all.first { $0.trackID == id }) }
        func associated(_ id: Int32, _ type: TrackAssociationType) async throws -> [Int32] {
            try await track(id).loadAssociatedTracks(ofType: type).map(\.trackID)
        }
        // The French dub (3) falls back to the English track (2), not the other way round.
        #expect(try await associated(3, .audioFallback) == [2])
        #expect(try await associated(2, .audioFallback) == [])
        // The English subtitles (4) name their forced-only track (5).
        #expect(try await associated(4, .forcedSubtitlesOnly) == [5])
        #expect(try await associated(5, .forcedSubtitlesOnly) == [])
        // The forced track (5) follows the French audio's selection (3).
        #expect(try await associated(5, .selectionFollower) == [3])
        #expect(try await associated(4, .selectionFollower) == [])
        // A reference of one type is not read as another.
        #expect(try await associated(3, .forcedSubtitlesOnly) == [])
        #expect(try await associated(3, .selectionFollower) == [])
        #expect(try await associated(3, .chapterList).count == 1)
    }
}
