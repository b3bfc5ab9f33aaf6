import Foundation
import ReelTestSupport
import Testing

@Suite("reel preview", .serialized)
struct PreviewCommandTests {
    /// Starts `reel preview ARGUMENTS` and waits for its first line, the page's address.
    static func start(_ arguments: [String], in folder: URL) throws -> (running: TestTools.Running, url: String?) {
        let reel = try #require(ReelProcess.binary)
        let running = try TestTools.start(reel, ["preview"] + arguments, in: folder)
        // Until the server says where it is (or ends): a guard against a hung start.
        for _ in 0..<600 {
            if let line = running.stdoutSoFar.split(separator: "\n").first, line.hasPrefix("reel preview: http") {
                return (running, String(line.dropFirst("reel preview: ".count).split(separator: " ").first ?? ""))
            }
            if !running.process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return (running, nil)
    }

    /// The dashboard composition written into `folder` and `reel preview` of it started with
    /// `arguments` after it: the running server, the page's address, the file's name.
    static func startDashboard(_ arguments: [String] = [], in folder: URL) throws -> (server: TestTools.Running, address: String, composition: String) {
        let c = try RenderCommandTests.write(RenderCommandTests.dashboard, in: folder)
        let (server, url) = try start([c] + arguments, in: folder)
        if url == nil { server.process.terminate() }
        let address = try #require(url, "no address from reel preview: \(server.stderrSoFar)")
        return (server, address, c)
    }

    @Test(
        "the page in headless Chromium: plays, steps, seeks to exact frames, shows the compositor's metadata, follows edits",
        .requires(.reelBinary, .chromium))
    func thePageInABrowser() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, address, c) = try Self.startDashboard(["--scale", "1"], in: folder)
        defer { server.process.terminate() }
        #expect(address.hasPrefix("http://127.0.0.1:"))
        let script = TestFiles.packageRoot.appendingPathComponent("Tests/Browser/preview_page.py").path
        let screenshot = folder.appendingPathComponent("preview.png").path
        let browser = try TestTools.run("python3", [script, address, folder.appendingPathComponent(c).path, screenshot])
        #expect(browser.status == 0, "\(browser.stdout)\n\(browser.stderr)")
        #expect(browser.stdout.contains(" passed, 0 failed"), "\(browser.stdout)")
        // Kept for a person to look at (docs/playback.md shows one).
        if let keep = ProcessInfo.processInfo.environment["REEL_PREVIEW_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try? FileManager.default.copyItem(atPath: screenshot, toPath: keep)
        }
        server.process.terminate()
        let ended = try server.finish()
        #expect(ended.status == 0 || ended.status == 15 || ended.status == 143, "\(ended.stderr)")
    }

    @Test(
        "four pages at once, one dropped mid-play, leave no thread or descriptor behind; 1,000 random seeks leave memory within 5%",
        .requires(.reelBinary, .webSocketClient))
    func pagesLeaveNothingBehind() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, address, _) = try Self.startDashboard(in: folder)
        defer { server.process.terminate() }
        let script = TestFiles.packageRoot.appendingPathComponent("Benchmarks/preview-soak.py").path
        let soak = try TestTools.run("python3", [script, address, String(server.process.processIdentifier), "1000"])
        #expect(soak.status == 0, "\(soak.stdout)\n\(soak.stderr)")
        #expect(soak.stdout.contains("soak: passed"), "\(soak.stdout)")
        #expect(server.process.isRunning, "\(server.stderrSoFar)")
    }

    @Test("bad input: a missing or broken composition is one line and exit 2; --port and --scale are checked")
    func badInput() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = await ReelProcess.reel(["preview", "nothere.json"], in: folder)
        #expect(missing.status == 2 && missing.stderrLines.count == 1 && missing.stderr.contains("nothere.json"), "\(missing.stderr)")
        try Data(#"{"version": 1, "sources": [{"name": "a", "path": 7}]}"#.utf8).write(to: folder.appendingPathComponent("bad.json"))
        let broken = await ReelProcess.reel(["preview", "bad.json"], in: folder)
        #expect(broken.status == 2 && broken.stderrLines.count == 1 && broken.stderr.contains("sources[0].path"), "\(broken.stderr)")
        let media = await ReelProcess.reel(["preview", "nothere.mp4"], in: folder)
        #expect(media.status == 1 && media.stderrLines.count == 1, "\(media.stderr)")
        #expect(try await ReelProcess.reel(["preview", "c.json", "--port", "70000"], in: folder).status != 0)
        #expect(try await ReelProcess.reel(["preview", "c.json", "--scale", "0"], in: folder).status != 0)
    }

    @Test("off loopback the first line says who can see the preview", .requires(.reelBinary))
    func otherAddressesAreSaid() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = try RenderCommandTests.write(RenderCommandTests.dashboard, in: folder)
        let (server, url) = try Self.start([c, "--host", "0.0.0.0"], in: folder)
        defer { server.process.terminate() }
        #expect(url != nil)
        #expect(server.stdoutSoFar.split(separator: "\n").first?.contains("not only this machine") == true, "\(server.stdoutSoFar)")
    }
}
