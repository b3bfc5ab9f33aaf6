import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

@Suite("MediaSelectionGroup")
struct MediaSelectionGroupTests {
    let selection = TestFiles.fixture("selection.mp4")

    @Test("audible: one option per sound track by language, the default one first")
    func audible() async throws {
        let asset = Asset(url: selection)
        let group = try #require(try await asset.loadMediaSelectionGroup(for: .audible))
        #expect(group.options.map(\.trackID) == [2, 3])
        #expect(group.options.map(\.extendedLanguageTag) == ["en", "fr"])
        #expect(group.options.map(\.mediaSubTypes) == [["mp4a"], ["mp4a"]])
        #expect(group.defaultOption?.trackID == 2)
        #expect(!group.allowsEmptySelection)
        #expect(group.options[1].hasMediaCharacteristic(.dubbedTranslation))
        #expect(!group.options[0].hasMediaCharacteristic(.dubbedTranslation))
        #expect(group.options.allSatisfy { $0.isPlayable && $0.hasMediaCharacteristic(.audible) })
        #expect(group.options.map(\.displayName) == ["English", "French"])
        #expect(group.option(withTrackID: 3)?.locale?.language.languageCode?.identifier == "fr")
    }

    @Test("legible: subtitles by language, the forced one flagged, an empty selection allowed")
    func legible() async throws {
        let asset = Asset(url: selection)
        let group = try #require(try await asset.loadMediaSelectionGroup(for: .legible))
        #expect(group.options.map(\.trackID) == [4, 5])
        #expect(group.allowsEmptySelection)
        let forced = MediaSelectionGroup.mediaSelectionOptions(from: group.options, withMediaCharacteristics: [.containsOnlyForcedSubtitles])
        #expect(forced.map(\.trackID) == [5])
        #expect(forced.first?.displayName == "French Forced")
        let full = MediaSelectionGroup.mediaSelectionOptions(from: group.options, withoutMediaCharacteristics: [.containsOnlyForcedSubtitles])
        #expect(full.map(\.trackID) == [4])
        #expect(try await asset.load(.availableMediaCharacteristicsWithMediaSelectionOptions) == [.audible, .legible, .visual])
    }

    @Test("options filtered and sorted by preferred languages (BCP 47, regions ignored)")
    func preferredLanguages() async throws {
        let group = try #require(try await Asset(url: selection).loadMediaSelectionGroup(for: .audible))
        let sorted = MediaSelectionGroup.mediaSelectionOptions(
            from: group.options,
            filteredAndSortedAccordingToPreferredLanguages: ["fr-CA", "de", "en-US"])
        #expect(sorted.map(\.trackID) == [3, 2])
        #expect(MediaSelectionGroup.mediaSelectionOptions(from: group.options, with: Locale(identifier: "en_GB")).map(\.trackID) == [2])
        #expect(MediaSelectionGroup.mediaSelectionOptions(from: group.options, filteredAndSortedAccordingToPreferredLanguages: ["ja"]).isEmpty)
        #expect(MediaSelectionGroup.playableMediaSelectionOptions(from: group.options).count == 2)
    }

    @Test("no group for a characteristic no track has; the cover picture is no visual option")
    func absent() async throws {
        let counter = Asset(url: TestFiles.fixture("counter-320x240.mp4"))
        #expect(try await counter.loadMediaSelectionGroup(for: .legible) == nil)
        let visual = try #require(try await Asset(url: selection).loadMediaSelectionGroup(for: .visual))
        #expect(visual.options.map(\.trackID) == [1])
        let music = Asset(url: TestFiles.fixture("tags.mp3"))
        #expect(try await music.loadMediaSelectionGroup(for: .visual) == nil)
    }
}
