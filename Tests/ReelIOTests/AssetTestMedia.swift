import Foundation

/// Where the asset tests find media: the package's own Fixtures/ and, when present, the
/// shared camera files in `../shared/media` beside the package.
enum AssetTestMedia {
    /// The package root, found from this file's path.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ name: String) -> URL {
        packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    static let sharedFolder = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/media")

    static func shared(_ name: String) -> URL { sharedFolder.appendingPathComponent(name) }

    /// Whether `../shared/media` is there (it is not in a user's clone).
    static var isSharedAvailable: Bool {
        FileManager.default.fileExists(atPath: shared("gpmf-parser_max-heromode.mp4").path)
    }
}
