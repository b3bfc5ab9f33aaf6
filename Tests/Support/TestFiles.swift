import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the tests find the checkout, its fixtures, the camera files and the `reel` binary,
/// and where they write.
public enum TestFiles {
    /// The package's root folder.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let fixtures = packageRoot.appendingPathComponent("Fixtures")
    /// The real camera files beside the checkout.
    public static let sharedMedia = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/media")
    public static let dejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    public static func fixture(_ name: String) -> URL { fixtures.appendingPathComponent(name) }
    public static func sharedMedia(_ name: String) -> URL { sharedMedia.appendingPathComponent(name) }
    /// The bytes of a camera file in `../shared/media`.
    public static func sharedMediaData(_ name: String) throws -> Data { try Data(contentsOf: sharedMedia(name)) }

    /// The `reel` binary beside the test bundle (the same build), if it was built.
    public static var reelBinary: URL? { builtProduct("reel") }

    /// An executable product of this build (`reel`, `reel-sepia`), found beside the test
    /// bundle, else in the package's debug build.
    public static func builtProduct(_ name: String) -> URL? {
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var folder = exe.deletingLastPathComponent()
            while folder.pathExtension == "xctest" || ["MacOS", "Contents"].contains(folder.lastPathComponent) {
                folder = folder.deletingLastPathComponent()
            }
            candidates.append(folder.appendingPathComponent(name))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/\(name)"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A new empty folder for one test; the test removes it. Folders live under
    /// `reel-tests/<pid>` in the temporary directory, and the folders of test processes
    /// that are gone (a crash leaves them) are removed the first time one is asked for.
    /// A copy of fixture `name` in a scratch folder of its own (remove the folder when done):
    /// a file no other test reads, for checks of what the process shares by file.
    public static func copyOfFixture(_ name: String, as copyName: String? = nil) throws -> (folder: URL, url: URL) {
        let folder = try scratchFolder()
        let url = folder.appendingPathComponent(copyName ?? name)
        try FileManager.default.copyItem(at: fixture(name), to: url)
        return (folder, url)
    }

    public static func scratchFolder() throws -> URL {
        let url = processFolder.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static let processFolder: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reel-tests")
        let own = getpid()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {
            if let pid = Int32(name), pid != own, kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(at: root.appendingPathComponent(name))
            }
        }
        return root.appendingPathComponent(String(own))
    }()
}
