import Foundation
import Reel
import ReelTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Assets at `http://` URLs, read through FFmpeg's own protocols from a server on the
/// loopback address that the test starts.
@Suite("remote assets over HTTP")
struct RemoteAssetTests {
    static let fixtures = TestFiles.packageRoot.appendingPathComponent("Fixtures")
    static let clip = "counter-320x240.mp4"
    static var clipSize: Int { (try? Data(contentsOf: fixtures.appendingPathComponent(clip)).count) ?? 0 }

    @Test(
        "a remote file loads as the local one does: duration, tracks, metadata in their key spaces, chapters",
        arguments: ["counter-320x240.mp4", "selection.mp4"])
    func sameAsLocal(name: String) async throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures)
        defer { server.stop() }
        let remote = Asset(url: server.url(name))
        let local = Asset(url: Self.fixtures.appendingPathComponent(name))
        let (rd, rt, rm, rc) = try await remote.load(.duration, .tracks, .metadata, .chapters)
        let (ld, lt, lm, lc) = try await local.load(.duration, .tracks, .metadata, .chapters)
        #expect(rd == ld)
        #expect(rt.map(\.trackID) == lt.map(\.trackID))
        #expect(rt.map(\.format) == lt.map(\.format))
        #expect(rt.map(\.timeRange) == lt.map(\.timeRange))
        #expect(rm == lm)
        #expect(rc == lc)
        #expect(try await remote.load(.trackGroups) == local.load(.trackGroups))
        #expect(try await remote.load(.isPlayable))
        #expect(remote.description.contains("http://127.0.0.1:"))
        #expect(try await remote.load(.containerFormat).isSeekable)
        // The clip is larger than FFmpeg's read buffer: reading its index and the boxes Reel
        // reads itself took byte ranges past its start, not whole-file reads.
        if name == Self.clip {
            #expect(server.rangeRequests.contains { $0 != nil && $0 != "bytes=0-" }, "\(server.rangeRequests)")
        }
    }

    @Test(
        "a server that ignores byte ranges: the asset says the file reads forward only; reel inspect says so in one line")
    func serverWithoutRanges() async throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures, servesRanges: false)
        defer { server.stop() }
        let name = "selection.mp4"
        let format = try await Asset(url: server.url(name)).load(.containerFormat)
        #expect(!format.isSeekable)
        #expect(try await Asset(url: Self.fixtures.appendingPathComponent(name)).load(.containerFormat).isSeekable)
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = server.url(name).absoluteString
        let result = await ReelProcess.reel(["inspect", url], in: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("reel: warning: \(url): the server ignores byte-range requests"), "stderr: \(result.stderr)")
        #expect(result.stdout.contains("tracks:"))
        // A server that serves ranges gets no such line.
        let ranged = try LoopbackHTTPServer(folder: Self.fixtures)
        defer { ranged.stop() }
        let complete = await ReelProcess.reel(["inspect", ranged.url(name).absoluteString], in: folder)
        #expect(complete.status == 0 && complete.stderr.isEmpty, "stderr: \(complete.stderr)")
    }

    /// An https server on the loopback address: `openssl s_server -WWW` with a certificate
    /// made for the test. FFmpeg's TLS protocol checks no certificate unless told to
    /// (`tls_verify`), so a self-signed one serves. `-WWW` sends the whole file for every
    /// request, without byte ranges or a length: the file is read from start to end, so
    /// the clip is one whose index comes first.
    @Test("an https URL loads through FFmpeg's TLS protocol", .requires(.openssl))
    func https() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = "counter-gps.mp4"
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        try TestTools.output(
            "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem",
                "-days", "1", "-subj", "/CN=127.0.0.1",
            ], in: folder)
        let port = try LoopbackHTTPServer.freePort()
        let server = try TestTools.start(
            try #require(TestTools.which("openssl")),
            ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", "cert.pem", "-key", "key.pem", "-WWW", "-quiet"],
            in: folder)
        defer {
            // SIGKILL: the server inherits the test thread's signal mask, which blocks SIGTERM.
            kill(server.process.processIdentifier, SIGKILL)
            _ = try? server.finish()
        }
        try LoopbackHTTPServer.waitUntilListening(port: port) { server.process.isRunning }
        let remote = Asset(url: try #require(URL(string: "https://127.0.0.1:\(port)/\(name)")))
        let local = Asset(url: Self.fixtures.appendingPathComponent(name))
        let (rd, rt) = try await remote.load(.duration, .tracks)
        let (ld, lt) = try await local.load(.duration, .tracks)
        #expect(rd == ld)
        #expect(rt.map(\.trackID) == lt.map(\.trackID))
        #expect(rt.map(\.format) == lt.map(\.format))
        #expect(try await !remote.load(.containerFormat).isSeekable)
    }

    @Test(
        "reel thumbnail and reel export read an http URL as they read the file",
        .requires(.ffprobe))
    func thumbnailAndExportOfAURL() async throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures)
        defer { server.stop() }
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = server.url(Self.clip).absoluteString
        let thumbnail = await ReelProcess.reel(["thumbnail", url, "--at", "1", "-o", "t.png"], in: folder)
        #expect(thumbnail.status == 0, "stderr: \(thumbnail.stderr)")
        let local = await ReelProcess.reel(["thumbnail", Self.fixtures.appendingPathComponent(Self.clip).path, "--at", "1", "-o", "l.png"], in: folder)
        #expect(local.status == 0, "stderr: \(local.stderr)")
        let made = try Data(contentsOf: folder.appendingPathComponent("t.png"))
        let fromFile = try Data(contentsOf: folder.appendingPathComponent("l.png"))
        #expect(!made.isEmpty && made == fromFile)
        let export = await ReelProcess.reel(["export", url, "-o", "copy.mp4", "--preset", "passthrough"], in: folder)
        #expect(export.status == 0, "stderr: \(export.stderr)")
        let frames = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-count_packets", "-select_streams", "v:0",
                "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0",
                folder.appendingPathComponent("copy.mp4").path,
            ])
        #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "60")
        // A missing remote file is the server's answer, not "no such file".
        let missing = await ReelProcess.reel(["thumbnail", server.url("nothing.mp4").absoluteString, "--at", "0", "-o", "m.png"], in: folder)
        #expect(missing.status != 0 && !missing.stderr.contains("no such file"), "stderr: \(missing.stderr)")
    }

    @Test("a server that dies part-way through the file: a clear error, not a file cut short")
    func serverClosesMidFile() async throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures, failAt: Self.clipSize / 2, failure: .close)
        defer { server.stop() }
        let error = await expectReelError(.unreadable) { try await Asset(url: server.url(Self.clip)).load(.tracks) }
        #expect(error?.code == .unreadable)
        #expect(error?.path?.hasPrefix("http://127.0.0.1:") == true)
        // Said as the connection lost, where, and of how much; not FFmpeg's "invalid data".
        #expect(error?.message == "the connection was lost at byte \(Self.clipSize / 2) of \(Self.clipSize)", "\(String(describing: error))")
        #expect(error?.description.contains("Invalid data") == false)
    }

    @Test("a server that stops sending: the read fails after the network timeout instead of waiting for ever")
    func serverStalls() async throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures, failAt: Self.clipSize / 2, failure: .stall)
        defer { server.stop() }
        let asset = Asset(url: server.url(Self.clip), options: .init(networkTimeout: .seconds(1)))
        let error = await expectReelError(.unreadable) { try await asset.load(.tracks) }
        #expect(error?.code == .unreadable)
        #expect(error?.message.hasPrefix("timed out: the server sent nothing for 1.0 seconds (at byte ") == true, "\(String(describing: error))")
        #expect(error?.description.contains("Invalid data") == false)
    }

    @Test("an AssetReader of a remote asset waits as long as the asset's network timeout says, not 30 s")
    func readerKeepsTheAssetsTimeout() async throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures, failAt: Self.clipSize / 2, failure: .stall)
        defer { server.stop() }
        let asset = Asset(url: server.url(Self.clip), options: .init(networkTimeout: .seconds(1)))
        let error = await expectReelError(.unreadable) { _ = try await AssetReader.open(asset: asset) }
        #expect(error?.message.hasPrefix("timed out: the server sent nothing for 1.0 seconds (at byte ") == true, "\(String(describing: error))")
        let good = try LoopbackHTTPServer(folder: Self.fixtures)
        defer { good.stop() }
        let reader = try await AssetReader.open(asset: Asset(url: good.url(Self.clip), options: .init(networkTimeout: .seconds(7))))
        #expect(reader.networkTimeout == .seconds(7))
        #expect(try await AssetReader.open(url: good.url(Self.clip)).networkTimeout == .seconds(30))
    }

    @Test("a missing remote file and a scheme FFmpeg has no protocol for are clear errors")
    func refusals() async throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures)
        defer { server.stop() }
        let missing = await expectReelError(.unreadable) { try await Asset(url: server.url("nothing.mp4")).load(.tracks) }
        #expect(missing?.code == .unreadable)
        #expect(missing?.description.contains("nothing.mp4") == true)
        let odd = await expectReelError(.unsupportedFormat) { try await Asset(url: URL(string: "nosuchscheme://127.0.0.1/clip.mp4")!).load(.tracks) }
        #expect(odd?.code == .unsupportedFormat)
        #expect(odd?.message.contains("\"nosuchscheme\"") == true)
        #expect(odd?.message.contains("http") == true)
    }

    @Test(
        "reel inspect of an http URL prints the local file's report but for the name")
    func inspectCommand() async throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures)
        defer { server.stop() }
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = server.url(Self.clip).absoluteString
        let local = Self.fixtures.appendingPathComponent(Self.clip).path
        for extra in [[], ["--json"]] {
            let remote = await ReelProcess.reel(["inspect", url] + extra, in: folder)
            let file = await ReelProcess.reel(["inspect", local] + extra, in: folder)
            #expect(remote.status == 0, "stderr: \(remote.stderr)")
            #expect(remote.stdout.replacingOccurrences(of: url, with: local) == file.stdout)
            #expect(!remote.stdout.isEmpty)
        }
    }

    @Test(
        "reel inspect of a server that dies or stalls mid-file: one line naming the URL and what happened, exit 1",
        arguments: [LoopbackHTTPServer.Failure.close, .stall])
    func inspectDeadServer(failure: LoopbackHTTPServer.Failure) async throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures, failAt: Self.clipSize / 2, failure: failure)
        defer { server.stop() }
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = server.url(Self.clip).absoluteString
        let result = await ReelProcess.reel(["inspect", url, "--network-timeout", "1"], in: folder)
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)")
        let said = failure == .close ? "the connection was lost at byte" : "timed out: the server sent nothing for 1.0 seconds"
        #expect(result.stderr.hasPrefix("reel: \(url): \(said)"), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("Invalid data"))
    }
}
