// swift-tools-version: 6.1
// A compositor in a package of its own: it builds its own `reel` (named reel-sepia) with
// the sepia compositor registered, without changing Reel. See docs/first-compositor.md.
import PackageDescription

let package = Package(
    name: "custom-compositor",
    platforms: [.macOS(.v15)],
    dependencies: [
        // In your package: .package(url: "https://github.com/<you>/reel", branch: "main")
        .package(name: "Reel", path: "../..")
    ],
    targets: [
        .executableTarget(name: "reel-sepia", dependencies: [.product(name: "ReelCommandLine", package: "Reel")])
    ],
    swiftLanguageModes: [.v6]
)
