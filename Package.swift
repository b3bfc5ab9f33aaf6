// swift-tools-version: 6.1
import Foundation
import PackageDescription

let package = Package(
    name: "Reel",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Reel", targets: ["Reel"]),
        .library(name: "ReelCore", targets: ["ReelCore"]),
        .library(name: "ReelMetadata", targets: ["ReelMetadata"]),
        .library(name: "ReelCaptions", targets: ["ReelCaptions"]),
        .library(name: "ReelComposition", targets: ["ReelComposition"]),
        .library(name: "ReelTesting", targets: ["ReelTesting"]),
        .library(name: "ReelText", targets: ["ReelText"]),
        .library(name: "ReelDocuments", targets: ["ReelDocuments"]),
        .library(name: "ReelCommandLine", targets: ["ReelCommandLine"]),
        .library(name: "ReelPreview", targets: ["ReelPreview"]),
        .executable(name: "reel", targets: ["ReelMain"]),
        .executable(name: "reel-bench", targets: ["ReelBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        // The preview's local web server (`reel preview`): HTTP and a WebSocket, with no
        // configuration-file support (the trait left off).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // The preview tests' HTTP and WebSocket client (Tests/ReelPreviewTests/LocalClient.swift),
        // and the graceful stop of the server they run.
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // `swift package generate-documentation` (scripts/docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The one C boundary: FFmpeg's headers plus a shim for the macros Swift cannot import.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale libswresample",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        // FreeType, for text in compositors (glyphs rasterised once, then cached).
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        // libjpeg-turbo's TurboJPEG API, for JPEG stills (the preview's frames, thumbnails).
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // The system zlib, for ReelTesting's PNG files.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Pure Swift: time, pixel buffers, metadata values, errors.
        .target(name: "ReelCore"),
        // Pure Swift codecs for timed-metadata payloads.
        .target(name: "ReelMetadata", dependencies: ["ReelCore"]),
        // Pure Swift caption file formats: iTT, SCC (CEA-608), SRT, WebVTT.
        .target(name: "ReelCaptions", dependencies: ["ReelCore"]),
        // Everything that touches FFmpeg.
        .target(name: "ReelIO", dependencies: ["ReelCore", "ReelMetadata", "ReelCaptions", "CFFmpeg", "CTurboJPEG"]),
        // Composition model, compositor protocol and render engine; no FFmpeg.
        .target(name: "ReelComposition", dependencies: ["ReelCore"]),
        // The AVFoundation-shaped library users import: assets, readers, writers, export
        // sessions, image generators and players; wires files to the engine.
        .target(name: "Reel", dependencies: ["ReelCore", "ReelMetadata", "ReelCaptions", "ReelIO", "ReelComposition", "ReelText"]),
        // The documents the command line reads and writes, and the work they describe:
        // composition files and their compositor registry, render plans and scale-out, metadata
        // documents, OpenTimelineIO.
        .target(name: "ReelDocuments", dependencies: ["Reel", "ReelText"]),
        // Text and shapes drawn straight into BGRA or YUV frames, with FreeType glyphs.
        .target(name: "ReelText", dependencies: ["ReelCore", "CFreeType"]),
        // The GPS dashboard example's compositor (Examples/gps-dashboard), built into `reel`.
        .target(name: "GPSDashboard", dependencies: ["Reel", "ReelDocuments", "ReelText"], path: "Examples/gps-dashboard/Sources/GPSDashboard"),
        // Test support for compositor authors; never FFmpeg.
        .target(name: "ReelTesting", dependencies: ["ReelCore", "ReelMetadata", "ReelComposition", "CZlib"]),
        // `reel preview`'s server and page: a composition's frames, timeline and metadata in
        // the browser. Its own target, so that Reel and ReelComposition gain no dependency.
        .target(
            name: "ReelPreview",
            dependencies: [
                "Reel", "ReelDocuments", "ReelCore", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ],
            resources: [.copy("Page")]
        ),
        // Every `reel` command as a library, so a package with its own compositors builds its
        // own `reel` (docs/plugins.md).
        .target(
            name: "ReelCommandLine",
            dependencies: ["Reel", "ReelDocuments", "ReelText", "ReelPreview", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // `reel`: one `@main` file, the command line with the GPS dashboard compositor built in.
        .executableTarget(name: "ReelMain", dependencies: ["ReelCommandLine", "GPSDashboard"]),

        // Decode benchmark against the ffmpeg CLI (Benchmarks/decode/run.sh runs both).
        .executableTarget(name: "ReelBenchDecode", dependencies: ["ReelIO"], path: "Benchmarks/decode", exclude: ["run.sh", "README.md"]),
        // The Reel side of Benchmarks/run.
        .executableTarget(name: "ReelBench", dependencies: ["Reel", "ReelDocuments"], path: "Benchmarks/ReelBench"),

        // Examples/custom-compositor's `reel` (its own package), also built here so the tests
        // run it without building a second copy of Reel.
        .executableTarget(name: "reel-sepia", dependencies: ["Reel", "ReelCommandLine"], path: "Examples/custom-compositor/Sources/reel-sepia"),

        // What every test target shares: prerequisites (`.requires`), paths, running programs.
        .target(name: "ReelTestSupport", dependencies: ["ReelCore"], path: "Tests/Support"),

        .testTarget(name: "ReelCoreTests", dependencies: ["ReelTestSupport", "ReelCore", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(name: "ReelMetadataTests", dependencies: ["ReelTestSupport", "ReelMetadata"]),
        .testTarget(name: "ReelCaptionsTests", dependencies: ["ReelTestSupport", "ReelCaptions"]),
        .testTarget(name: "ReelIOTests", dependencies: ["ReelTestSupport", "ReelIO", "ReelCaptions"]),
        .testTarget(name: "ReelCompositionTests", dependencies: ["ReelTestSupport", "ReelComposition", "ReelTesting"]),
        .testTarget(name: "ReelTestingTests", dependencies: ["ReelTestSupport", "ReelTesting"]),
        .testTarget(name: "ReelTests", dependencies: ["ReelTestSupport", "Reel", "ReelDocuments", "ReelText", "ReelTesting"]),
        .testTarget(name: "ReelDocumentsTests", dependencies: ["ReelTestSupport", "Reel", "ReelDocuments"]),
        .testTarget(name: "ReelTextTests", dependencies: ["ReelTestSupport", "ReelText", "ReelTesting"]),
        .testTarget(name: "ReelCommandLineTests", dependencies: ["ReelTestSupport", "Reel", "ReelDocuments", "ReelCommandLine", "GPSDashboard"]),
        .testTarget(
            name: "ReelPreviewTests",
            dependencies: [
                "ReelTestSupport", "ReelPreview", "Reel", "ReelDocuments", "GPSDashboard",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(name: "ExamplesTests", dependencies: ["ReelTestSupport", "Reel", "ReelDocuments", "GPSDashboard", "ReelTesting"], exclude: ["Goldens"]),
        .testTarget(
            name: "ReelRenderTests", dependencies: ["ReelTestSupport", "Reel", "ReelDocuments", "ReelText", "GPSDashboard", "ReelTesting"], exclude: ["Goldens"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `REEL_LIBRARY_ONLY=1` (CI's ThreadSanitizer build: `REEL_LIBRARY_ONLY=1 scripts/test --sanitize=thread`):
// the library and its tests alone, without the preview's server, the command line, the
// examples and the benchmarks, and so without building the web server's and the argument
// parser's packages, which are most of a cold build (they are still resolved).
if ProcessInfo.processInfo.environment["REEL_LIBRARY_ONLY"] == "1" {
    let left: Set<String> = [
        "ReelPreview", "ReelCommandLine", "ReelMain", "ReelBenchDecode", "ReelBench", "reel-sepia", "GPSDashboard",
        "ReelCommandLineTests", "ReelPreviewTests", "ExamplesTests", "ReelRenderTests",
    ]
    package.targets.removeAll { left.contains($0.name) }
    package.products.removeAll { product in
        let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
        return targets.contains { left.contains($0) }
    }
}
