import Foundation
import Testing

/// Something a test needs from the machine: a program, a font, the real camera files in
/// `../shared/media`, the built `reel` binary.
///
/// A test names what it needs with `.requires(...)`. Where something is missing the test is
/// skipped with a line saying what, unless `REEL_REQUIRE_ALL=1` is set (as CI does): then
/// the test fails, naming what is missing, so a machine that lacks it cannot pass quietly.
/// The camera files are the one exception a run can declare: `REEL_WITHOUT_SHARED_MEDIA=1`
/// (set by CI when the folder is absent, with a line saying so) skips their tests.
public struct Prerequisite: Sendable, CustomStringConvertible {
    /// What is needed, and where it comes from.
    public let description: String
    private let check: @Sendable () -> Bool
    /// The environment variable that, set to 1, lets a run go without it.
    private let waiver: String?

    public init(_ description: String, waiver: String? = nil, _ check: @escaping @Sendable () -> Bool) {
        self.description = description
        self.waiver = waiver
        self.check = check
    }

    public var isAvailable: Bool { check() }

    /// Whether a test needing this must fail when it is missing.
    var isRequired: Bool {
        guard Self.everyOneRequired else { return false }
        return waiver.map { ProcessInfo.processInfo.environment[$0] != "1" } ?? true
    }

    /// Whether every prerequisite must be met (`REEL_REQUIRE_ALL=1`).
    public static var everyOneRequired: Bool { ProcessInfo.processInfo.environment["REEL_REQUIRE_ALL"] == "1" }

    /// A program on the PATH, from a Debian package.
    public static func program(_ name: String, package: String) -> Prerequisite {
        Prerequisite("\(name) (Debian package \(package))") { TestTools.which(name) != nil }
    }

    public static let ffmpeg = program("ffmpeg", package: "ffmpeg")
    public static let ffprobe = program("ffprobe", package: "ffmpeg")
    public static let exiftool = program("exiftool", package: "libimage-exiftool-perl")
    /// For counting the files a command opens (`strace -e trace=openat`).
    public static let strace = program("strace", package: "strace")
    /// For an https server on the loopback address (`openssl s_server`).
    public static let openssl = program("openssl", package: "openssl")
    /// The font the examples and ReelText's tests draw with.
    public static let dejaVuFont = Prerequisite("DejaVu Sans (Debian package fonts-dejavu-core)") {
        FileManager.default.fileExists(atPath: TestFiles.dejaVuSans)
    }
    /// The real camera files beside the checkout (`../shared/media`).
    public static let sharedMedia = Prerequisite("the camera files in ../shared/media", waiver: "REEL_WITHOUT_SHARED_MEDIA") {
        FileManager.default.fileExists(atPath: TestFiles.sharedMedia.appendingPathComponent("README.md").path)
    }
    /// OpenTimelineIO's Python library with its CMX 3600 adapter and `otioconvert`
    /// (`pip install opentimelineio otio-cmx3600-adapter`, by scripts/install-deps).
    public static let openTimelineIO = Prerequisite("python3 with opentimelineio, otio-cmx3600-adapter and otioconvert (pip, scripts/install-deps)") {
        openTimelineIOFound
    }
    private static let openTimelineIOFound: Bool = {
        guard TestTools.which("otioconvert") != nil,
            let out = try? TestTools.run("python3", ["-c", "import opentimelineio, otio_cmx3600_adapter"])
        else { return false }
        return out.status == 0
    }()
    /// Headless Chromium with its WebDriver (Debian's chromium and chromium-driver) and
    /// Selenium's Python library (pip), for the preview page's browser test.
    public static let chromium = Prerequisite("chromium and chromium-driver (Debian) with python3's selenium (pip, scripts/install-deps)") {
        chromiumFound
    }
    private static let chromiumFound: Bool = {
        guard TestTools.which("chromium") != nil, TestTools.which("chromedriver") != nil,
            let out = try? TestTools.run("python3", ["-c", "import selenium"])
        else { return false }
        return out.status == 0
    }()
    /// Python's websocket-client (pip; Selenium depends on it), which speaks the preview
    /// page's protocol in Benchmarks/preview-soak.py.
    public static let webSocketClient = Prerequisite("python3's websocket-client (pip, scripts/install-deps)") {
        (try? TestTools.run("python3", ["-c", "import websocket"]))?.status == 0
    }
    /// The `reel` binary of this build (`swift build`).
    public static let reelBinary = Prerequisite("the reel binary (swift build)") { TestFiles.reelBinary != nil }
    /// The custom-compositor example's `reel-sepia` binary of this build.
    public static let sepiaBinary = Prerequisite("the reel-sepia binary (swift build)") { TestFiles.builtProduct("reel-sepia") != nil }
    /// FFmpeg's HEVC encoder (libx265).
    public static let hevcEncoder = Prerequisite("ffmpeg with libx265 (Debian package ffmpeg)") {
        guard let out = try? TestTools.run("ffmpeg", ["-hide_banner", "-encoders"]) else { return false }
        return out.status == 0 && out.stdout.contains("libx265")
    }
}

/// A test's prerequisite is missing while `REEL_REQUIRE_ALL=1` asks for every one.
public struct MissingPrerequisite: Error, CustomStringConvertible {
    public let missing: [String]
    public var description: String {
        "missing \(missing.joined(separator: ", ")); REEL_REQUIRE_ALL=1 requires every prerequisite (install it, or unset REEL_REQUIRE_ALL to skip)"
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where every prerequisite is met; with `REEL_REQUIRE_ALL=1` a
    /// missing one fails the test instead of skipping it.
    public static func requires(_ prerequisites: Prerequisite..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        .enabled("needs \(prerequisites.map(\.description).joined(separator: " and "))", sourceLocation: sourceLocation) {
            let missing = prerequisites.filter { !$0.isAvailable }
            if missing.isEmpty { return true }
            let required = missing.filter(\.isRequired)
            if !required.isEmpty { throw MissingPrerequisite(missing: required.map(\.description)) }
            return false
        }
    }
}
