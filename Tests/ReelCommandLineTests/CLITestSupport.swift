import Foundation
import ReelTestSupport

/// The media the CLI tests run `reel` over.
enum CLITestSupport {
    /// The container extensions the fixture checks cover.
    static let mediaExtensions: Set<String> = ["mp4", "mov", "m4v", "ts", "mkv"]

    /// Every media file in Fixtures/ (not the README, golden files, GPX or CSV tracks).
    static var fixtureNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestFiles.fixtures.path)) ?? []
        return names.filter { mediaExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
    }

    /// The containers in ../shared/media (mp4, mov, ts).
    static var sharedContainerNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestFiles.sharedMedia.path)) ?? []
        return names.filter { ["mp4", "mov", "ts"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
    }
}
