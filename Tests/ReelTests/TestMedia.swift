import Foundation

/// Paths of the fixtures and a scratch folder for outputs.
enum TestMedia {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ name: String) -> URL {
        packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    /// A new empty folder under the system's temporary folder.
    static func scratchFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reel-tests-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
