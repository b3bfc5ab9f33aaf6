import Foundation
import Reel
import Testing
import ReelTestSupport

/// Assets at `http://` URLs, read through FFmpeg's own protocols from a server on the
/// loopback address that the test starts.
@Suite("remote assets over HTTP")
struct RemoteAssetTests {
    static let fixtures = TestFiles.packageRoot.appendingPathComponent("Fixtures")
    static let clip = "counter-320x240.mp4"
    static var clipSize: Int { (try? Data(contentsOf: fixtures.appendingPathComponent(clip)).count) ?? 0 }

    @Test("a remote file loads as the local one does: duration, tracks, metadata in their key spaces, chapters",
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

    @Test("reel inspect of an http URL prints the local file's report but for the name",
          .requires(.reelBinary))
    func inspectCommand() throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures)
        defer { server.stop() }
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = server.url(Self.clip).absoluteString
        let local = Self.fixtures.appendingPathComponent(Self.clip).path
        for extra in [[], ["--json"]] {
            let remote = try ReelProcess.reel(["inspect", url] + extra, in: folder)
            let file = try ReelProcess.reel(["inspect", local] + extra, in: folder)
            #expect(remote.status == 0, "stderr: \(remote.stderr)")
            #expect(remote.stdout.replacingOccurrences(of: url, with: local) == file.stdout)
            #expect(!remote.stdout.isEmpty)
        }
    }

    @Test("reel inspect of a server that dies or stalls mid-file: one line naming the URL and what happened, exit 1",
          .requires(.reelBinary), arguments: [LoopbackHTTPServer.Failure.close, .stall])
    func inspectDeadServer(failure: LoopbackHTTPServer.Failure) throws {
        let server = try LoopbackHTTPServer(folder: Self.fixtures, failAt: Self.clipSize / 2, failure: failure)
        defer { server.stop() }
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = server.url(Self.clip).absoluteString
        let result = try ReelProcess.reel(["inspect", url, "--network-timeout", "1"], in: folder)
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)")
        let said = failure == .close ? "the connection was lost at byte" : "timed out: the server sent nothing for 1.0 seconds"
        #expect(result.stderr.hasPrefix("reel: \(url): \(said)"), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("Invalid data"))
    }
}
