import Foundation
import GPSDashboard
import Hummingbird
import NIOCore
import Reel
import ReelCore
import ReelDocuments
import ReelPreview
import ReelTestSupport
import ServiceLifecycle
import Testing

@Suite("PreviewServer", .serialized)
struct PreviewServerTests {
    /// The GPS dashboard example over the counter fixture (60 frames, 320x240), written into
    /// `folder` with absolute paths; the dashboard's accent colour is `accent`.
    static func writeDashboard(in folder: URL, accent: String = "#FFC83D") throws -> String {
        let example = TestFiles.packageRoot.appendingPathComponent("Examples/gps-dashboard/composition.json")
        var json = try String(contentsOf: example, encoding: .utf8)
        json = json.replacingOccurrences(of: "../../Fixtures/", with: TestFiles.packageRoot.appendingPathComponent("Fixtures").path + "/")
        json = json.replacingOccurrences(of: "\"accent\": \"#FFC83D\"", with: "\"accent\": \"\(accent)\"")
        let path = folder.appendingPathComponent("c.json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func server(path: String, scale: Double = 0.5) async throws -> PreviewServer {
        var registry = CompositorRegistry()
        registry.register(GPSDashboardCompositor.registration)
        let document = PreviewDocument(origin: .compositionFile(path: path, overrides: []), registry: registry)
        let state = try await document.load()
        return PreviewServer(document: document, renderer: PreviewRenderer(state: state, scale: scale))
    }

    /// Runs `server` on a loopback port the system picks while `body` runs with that port,
    /// then stops it as `reel preview` stops on a signal (a graceful shutdown).
    static func live<T>(_ server: PreviewServer, _ body: (Int) async throws -> T) async throws -> T {
        let (ports, ready) = AsyncStream<Int>.makeStream()
        let app = server.application(onReady: { _, port in
            ready.yield(port)
            ready.finish()
        })
        let group = ServiceGroup(services: [app], logger: PreviewServer.quietLogger)
        let running = Task { try await group.run() }
        defer { running.cancel() }
        var first = ports.makeAsyncIterator()
        guard let port = await first.next() else { throw LocalClient.Failure(description: "the server did not start") }
        let result = try await body(port)
        await group.triggerGracefulShutdown()
        try await running.value
        return result
    }

    @Test("the page and its files are served; no other path reaches the file system")
    func routes() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await Self.server(path: Self.writeDashboard(in: folder))
        try await Self.live(server) { port in
            let page = try await LocalClient.get(port: port, "/")
            #expect(page.status == .ok)
            #expect(page.text.contains("/preview.js"))
            for file in ["/preview.js", "/preview.css"] {
                #expect(try await LocalClient.get(port: port, file).status == .ok, "\(file)")
            }
            for bad in [
                "/../Package.swift", "/%2e%2e/Package.swift", "/Page/index.html", "/frames/../c.json", "/frames/60.png",
                "/frames/-1.png", "/frames/x.png", "/frames/1.jpg", "/preview.js/..", "/etc/passwd",
            ] {
                let status = try await LocalClient.get(port: port, bad).status
                #expect(status == .notFound, "\(bad): \(status)")
            }
            do {
                let response = try await LocalClient.get(port: port, "/info")
                #expect(response.status == .ok)
                let info = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(info?["frameCount"] as? Int == 60)
                #expect(info?["width"] as? Int == 160 && info?["height"] as? Int == 120)
                #expect(info?["frameDuration"] as? String != nil)
                let instructions = info?["instructions"] as? [[String: Any]]
                #expect(instructions?.first?["requiredSampleDataTrackIDs"] as? [Int] == [2])
            }
        }
    }

    @Test("every frame served is the engine's frame for that time at the same scale (200 random frames)")
    func framesAreTheEnginesFrames() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.writeDashboard(in: folder)
        let server = try await Self.server(path: path)
        let state = try #require(await server.document.state)
        // The reference: a render of its own at each frame's time.
        var scaled = state.videoComposition.mutableCopy()
        scaled.renderScale = 0.5
        let video = VideoComposition(scaled)
        @Sendable func reference(_ index: Int) async throws -> Data {
            var options = RenderEngine.Options(maximumRequestsInFlight: 1)
            let start = state.videoComposition.frameDuration * Int32(index)
            options.timeRange = TimeRange(start: start, duration: state.videoComposition.frameDuration)
            let engine = RenderEngine(
                composition: state.composition, videoComposition: video, sources: AssetRenderSources(files: state.sources.files), options: options)
            let frames = try await engine.renderAll()
            return try ImageEncoder.data(for: try #require(frames.first).pixelBuffer, as: .png)
        }
        var generator = SeededGenerator(seed: 7)
        let indices = (0..<200).map { _ in Int.random(in: 0..<60, using: &generator) }
        var references: [Int: Data] = [:]
        for index in Set(indices) { references[index] = try await reference(index) }
        let expected = references
        try await Self.live(server) { port in
            for index in indices {
                let response = try await LocalClient.get(port: port, "/frames/\(index).png")
                #expect(response.status == .ok)
                #expect(response.headers["Content-Type"] == ["image/png"])
                #expect(Data(buffer: response.body) == expected[index], "frame \(index)")
            }
        }
        #expect(references.count > 40)
    }

    @Test("the WebSocket: only from the server's own origin; frames with their header; bad messages answered, not fatal")
    func webSocket() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await Self.server(path: Self.writeDashboard(in: folder))
        try await Self.live(server) { port in
            // Another site's page may not connect.
            await #expect(throws: (any Error).self) {
                try await LocalClient.webSocket(port: port, "/socket", origins: ["http://evil.example"]) { _ in }
            }
            // Nor may a request naming a second origin beside the server's own.
            await #expect(throws: (any Error).self) {
                try await LocalClient.webSocket(port: port, "/socket", origins: ["ws://localhost", "http://localhost:\(port)"]) { _ in }
            }
            // The server's own page (a browser names its origin), and a client that is no
            // browser (no origin).
            let own = try await LocalClient.webSocket(port: port, "/socket") { socket in try await socket.next() }
            guard case .text(let ownInfo) = own else { Issue.record("no info message without an origin"); return }
            #expect(ownInfo.contains("\"type\":\"info\""))
            var replies: [String] = []
            try await LocalClient.webSocket(port: port, "/socket", origins: ["http://127.0.0.1:\(port)"]) { socket in
                let info = try #require(try await socket.next())
                guard case .text(let infoText) = info else { Issue.record("the first message is not text"); return }
                #expect(infoText.contains("\"type\":\"info\""))
                try await socket.send(#"{"type": "seek", "frame": 45}"#)
                let header = try #require(try await socket.next())
                let jpeg = try #require(try await socket.next())
                if case .text(let text) = header { replies.append(text) }
                if case .binary(let bytes) = jpeg {
                    #expect(bytes.readableBytes > 1000 && bytes.getBytes(at: 0, length: 2) == [0xFF, 0xD8])
                } else {
                    Issue.record("no JPEG")
                }
                for bad in ["not json", #"{"type": "seek", "frame": 600}"#, #"{"type": "warp"}"#] {
                    try await socket.send(bad)
                    if case .text(let text) = try #require(try await socket.next()) { replies.append(text) }
                }
                try await socket.send(bytes: ByteBuffer(string: "??"))
                if case .text(let text) = try #require(try await socket.next()) { replies.append(text) }
                // Still answering after all that.
                try await socket.send(#"{"type": "seek", "frame": 2}"#)
                if case .text(let text) = try #require(try await socket.next()) { replies.append(text) }
            }
            let got = replies
            #expect(got.count == 6)
            #expect(got.first?.contains("\"index\":45") == true && got.first?.contains("\"trackID\":2") == true, "\(got.first ?? "")")
            #expect(got.dropFirst().prefix(4).allSatisfy { $0.contains("\"type\":\"error\"") }, "\(got)")
            #expect(got.last?.contains("\"index\":2") == true)
        }
        #expect(await server.connectedPages == 0)
    }

    @Test("saving the composition file re-renders the frame shown; a file that no longer loads is reported and the last good one stays")
    func reload() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.writeDashboard(in: folder)
        let server = try await Self.server(path: path)
        try await Self.live(server) { port in
            let watcher = Task { await server.watchDocument() }
            defer { watcher.cancel() }
            try await LocalClient.webSocket(port: port, "/socket") { socket in
                _ = try await socket.next()
                try await socket.send(#"{"type": "seek", "frame": 30}"#)
                let first = try #require(try await socket.next())
                guard case .text(let firstHeader) = first, case .binary(let firstJPEG) = try #require(try await socket.next()) else {
                    Issue.record("no frame"); return
                }
                #expect(firstHeader.contains("\"generation\":1"))
                // A new accent colour: the same frame comes again, drawn anew.
                try await Task.sleep(for: .milliseconds(1100))  // a modification time of its own
                _ = try Self.writeDashboard(in: folder, accent: "#3DA5FF")
                var texts: [String] = []
                var again: ByteBuffer?
                while again == nil, let message = try await socket.next() {
                    switch message {
                    case .text(let text): texts.append(text)
                    case .binary(let bytes): again = bytes
                    }
                }
                #expect(texts.contains { $0.contains("\"type\":\"info\"") && $0.contains("\"generation\":2") }, "\(texts)")
                #expect(texts.last?.contains("\"index\":30") == true && texts.last?.contains("\"generation\":2") == true)
                #expect(again != nil && again != firstJPEG)
                // Half an edit: the page is told why, and no frame is sent.
                try await Task.sleep(for: .milliseconds(1100))
                try Data(#"{"version": 1, "sources": [{"name": "camera", "path": 7}]}"#.utf8).write(to: URL(fileURLWithPath: path))
                let problem = try #require(try await socket.next())
                guard case .text(let problemText) = problem else { Issue.record("no problem message"); return }
                #expect(problemText.contains("\"type\":\"invalid\"") && problemText.contains("sources[0].path"), "\(problemText)")
                // The last good state still renders.
                try await socket.send(#"{"type": "seek", "frame": 31}"#)
                if case .text(let text) = try #require(try await socket.next()) {
                    #expect(text.contains("\"index\":31") && text.contains("\"generation\":2"), "\(text)")
                }
            }
        }
    }
}

/// A small deterministic generator (SplitMix64), so the random frames are the same every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
