import Foundation
import ReelTestSupport
import Testing

/// docs/porting.md cannot drift: every ```swift block in it is type-checked against the
/// Reel modules this test was built with, all blocks in one `swiftc` run.
@Suite struct PortingGuideTests {
    static let guide = TestFiles.packageRoot.appendingPathComponent("docs/porting.md")

    /// The Swift blocks of `markdown`, each with the line its first code line is on (1-based).
    static func swiftBlocks(in markdown: String) -> [(line: Int, code: String)] {
        var blocks: [(line: Int, code: String)] = []
        var current: (line: Int, lines: [String])?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var open = current {
                if trimmed == "```" {
                    blocks.append((open.line, open.lines.joined(separator: "\n")))
                    current = nil
                } else {
                    open.lines.append(String(line))
                    current = open
                }
            } else if trimmed == "```swift" {
                current = (index + 2, [])
            }
        }
        return blocks
    }

    /// The folder holding `Reel.swiftmodule` for the build this test runs from.
    static var modulesFolder: URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let modules = folder.appendingPathComponent("Modules")
            if FileManager.default.fileExists(atPath: modules.appendingPathComponent("Reel.swiftmodule").path) { return modules }
            folder.deleteLastPathComponent()
        }
        let fallback = TestFiles.packageRoot.appendingPathComponent(".build/debug/Modules")
        return FileManager.default.fileExists(atPath: fallback.appendingPathComponent("Reel.swiftmodule").path) ? fallback : nil
    }

    static var swiftc: String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map { "\($0)/swiftc" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func blocksAreFoundWithTheirLines() {
        let text = "intro\n```swift\nlet a = 1\n```\ntext\n```sh\nls\n```\n  ```swift\nlet b = 2\nlet c = 3\n  ```\n"
        let blocks = Self.swiftBlocks(in: text)
        #expect(blocks.map(\.line) == [3, 10])
        #expect(blocks.map(\.code) == ["let a = 1", "let b = 2\nlet c = 3"])
    }

    @Test(.requires(Prerequisite("swiftc and the built Reel modules") { swiftc != nil && modulesFolder != nil }))
    func everySnippetCompiles() throws {
        let markdown = try String(contentsOf: Self.guide, encoding: .utf8)
        let blocks = Self.swiftBlocks(in: markdown)
        #expect(blocks.count >= 3, "the guide should hold the walkthrough, images and presets blocks")
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // One file per block; #sourceLocation makes the compiler name the guide's lines.
        var files: [String] = []
        for (n, block) in blocks.enumerated() {
            let file = folder.appendingPathComponent("snippet\(n).swift")
            let text = "import Foundation\nimport Reel\n#sourceLocation(file: \"\(Self.guide.path)\", line: \(block.line))\n\(block.code)\n#sourceLocation()\n"
            try text.write(to: file, atomically: true, encoding: .utf8)
            files.append(file.path)
        }
        let root = TestFiles.packageRoot.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.swiftc))
        process.arguments =
            [
                "-typecheck", "-swift-version", "6", "-module-name", "PortingGuide",
                "-I", try #require(Self.modulesFolder).path,
                "-I", "\(root)/Sources/CFFmpeg", "-I", "\(root)/Sources/CFreeType", "-I", "\(root)/Sources/CTurboJPEG",
                // Reel depends on ReelText, whose FreeType module needs its headers.
                "-Xcc", "-I/usr/include/freetype2",
            ] + files
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let diagnostics = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "docs/porting.md does not compile:\n\(diagnostics)")
        #expect(!diagnostics.contains("warning:"), "docs/porting.md compiles with warnings:\n\(diagnostics)")
    }
}
