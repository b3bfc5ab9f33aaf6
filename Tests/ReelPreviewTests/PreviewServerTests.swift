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
    /// Without `sound`, the composition's output has no sound (the example plays the clip's).
    static func writeDashboard(in folder: URL, accent: String = "#FFC83D", sound: Bool = true) throws -> String {
        let example = TestFiles.packageRoot.appendingPathComponent("Examples/gps-dashboard/composition.json")
        var json = try String(contentsOf: example, encoding: .utf8)
        json = json.replacingOccurrences(of: "../../Fixtures/", with: TestFiles.packageRoot.appendingPathComponent("Fixtures").path + "/")
        json = json.replacingOccurrences(of: "\"accent\": \"#FFC83D\"", with: "\"accent\": \"\(accent)\"")
        if !sound { json = json.replacingOccurrences(of: #""output": {"#, with: #""output": {"audio": false, "#) }
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

    @Test("the sound: a WAV of the mix from the first frame, its ranges the same bytes, none for a document without sound", .requires(.ffprobe))
    func sound() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await Self.server(path: Self.writeDashboard(in: folder))
        let state = try #require(await server.document.state)
        // The mix the export would encode, as 16-bit PCM: what the WAV must hold.
        let mixer = try #require(AssetSoundSource(composition: state.composition, audioMix: state.audioMix, sources: state.sources))
        let pcm = try await mixer.samples(from: .zero, frameCount: 96000).flatMap { sample -> [UInt8] in
            let v = UInt16(bitPattern: Int16((min(max(sample, -1), 1) * 32767).rounded()))
            return [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        try await Self.live(server) { port in
            let info = try JSONSerialization.jsonObject(with: Data(buffer: try await LocalClient.get(port: port, "/info").body)) as? [String: Any]
            #expect(info?["hasSound"] as? Bool == true)
            let whole = try await LocalClient.get(port: port, "/sound.wav")
            #expect(whole.status == .ok)
            #expect(whole.headers.first(name: "Content-Type") == "audio/wav")
            #expect(whole.headers.first(name: "Accept-Ranges") == "bytes")
            let bytes = [UInt8](Data(buffer: whole.body))
            // The clip's 2 s at 48 kHz in stereo, after a 44-byte header.
            #expect(bytes.count == 44 + 96000 * 4)
            func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
            func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
            #expect(String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF" && String(decoding: bytes[8..<16], as: UTF8.self) == "WAVEfmt ")
            #expect(u32(4) == bytes.count - 8)
            #expect(u16(20) == 1 && u16(22) == 2 && u32(24) == 48000 && u32(28) == 192_000 && u16(32) == 4 && u16(34) == 16)
            #expect(String(decoding: bytes[36..<40], as: UTF8.self) == "data" && u32(40) == 96000 * 4)
            #expect(Array(bytes[44...]) == pcm, "the samples are not the mix's")
            // Read by FFmpeg as what the header says.
            let wav = folder.appendingPathComponent("sound.wav")
            try Data(bytes).write(to: wav)
            let probe = try TestTools.run(
                "ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels,duration", "-of", "csv=p=0", wav.path])
            #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "pcm_s16le,48000,2,2.000000", "\(probe.stdout)\(probe.stderr)")
            // A range is the same bytes as the whole, from the header or inside a sample (a
            // mix started within the first tenth of a second decodes the clip from its start).
            // Further in, or counted from the end, a mix starts there and decodes the clip from
            // a tenth of a second before: the same samples to within 1e-3 of full scale, 32
            // steps of the 16 bits (AAC decoded after a seek gave up to 18; a sample's
            // misplacement of the clip's tone is hundreds).
            func samples(_ bytes: ArraySlice<UInt8>) -> [Int] {
                stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map { Int(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)) }
            }
            let ranges = [
                ("bytes=0-43", 0, 43, 0), ("bytes=40-1001", 40, 1001, 0), ("bytes=1001-2002", 1001, 2002, 0), ("bytes=200044-260043", 200_044, 260_043, 32),
                ("bytes=-4000", bytes.count - 4000, bytes.count - 1, 32),
            ]
            for (range, first, last, steps) in ranges {
                let part = try await LocalClient.get(port: port, "/sound.wav", fields: [("Range", range)])
                #expect(part.status == .partialContent, "\(range)")
                #expect(part.headers.first(name: "Content-Range") == "bytes \(first)-\(last)/\(bytes.count)", "\(range)")
                let got = [UInt8](Data(buffer: part.body))
                if steps == 0 {
                    #expect(got == Array(bytes[first...last]), "\(range): not the same bytes as the whole")
                } else {
                    #expect(got.count == last - first + 1, "\(range)")
                    let worst = zip(samples(got[...]), samples(bytes[first...last])).map { abs($0 - $1) }.max() ?? .max
                    #expect(worst <= steps, "\(range): \(worst) steps from the whole")
                }
            }
            let past = try await LocalClient.get(port: port, "/sound.wav", fields: [("Range", "bytes=\(bytes.count)-")])
            #expect(past.status == .rangeNotSatisfiable)
            #expect(past.headers.first(name: "Content-Range") == "bytes */\(bytes.count)")
        }
        // The example with `"audio": false` in its output: no sound to serve.
        let silent = try await Self.server(path: Self.writeDashboard(in: folder, sound: false))
        try await Self.live(silent) { port in
            let info = try JSONSerialization.jsonObject(with: Data(buffer: try await LocalClient.get(port: port, "/info").body)) as? [String: Any]
            #expect(info?["hasSound"] as? Bool == false)
            #expect(try await LocalClient.get(port: port, "/sound.wav").status == .notFound)
        }
    }

    @Test("a reload that leaves the sound as it was keeps its sound generation, so the page keeps the sound it buffered")
    func soundGenerationFollowsTheSoundOnly() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.writeDashboard(in: folder)
        var registry = CompositorRegistry()
        registry.register(GPSDashboardCompositor.registration)
        let document = PreviewDocument(origin: .compositionFile(path: path, overrides: []), registry: registry)
        let first = try await document.load()
        #expect(first.generation == 1 && first.soundGeneration == 1)
        /// Saves the file again, dated `seconds` later, so the reload sees a change.
        func save(_ write: () throws -> Void, seconds: Double) async throws -> PreviewDocument.State? {
            try write()
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: seconds)], ofItemAtPath: path)
            guard case .reloaded(let state) = await document.reloadIfChanged() else { return nil }
            return state
        }
        // A new accent colour: the picture changes, the sound does not.
        let recoloured = try #require(try await save({ _ = try Self.writeDashboard(in: folder, accent: "#3DA5FF") }, seconds: 10))
        #expect(recoloured.generation == 2 && recoloured.soundGeneration == 1)
        // The sound switched off: a new sound.
        let silent = try #require(try await save({ _ = try Self.writeDashboard(in: folder, sound: false) }, seconds: 20))
        #expect(silent.generation == 3 && silent.soundGeneration == 3)
        // The sound back: new again (the page had none to keep).
        let back = try #require(try await save({ _ = try Self.writeDashboard(in: folder) }, seconds: 30))
        #expect(back.generation == 4 && back.soundGeneration == 4)
        // The info the page reads carries it.
        _ = try #require(try await save({ _ = try Self.writeDashboard(in: folder, accent: "#3DA5FF") }, seconds: 40))
        let server = PreviewServer(document: document, renderer: PreviewRenderer(state: back, scale: 0.5))
        try await Self.live(server) { port in
            let info = try JSONSerialization.jsonObject(with: Data(buffer: try await LocalClient.get(port: port, "/info").body)) as? [String: Any]
            #expect(info?["generation"] as? Int == 5 && info?["soundGeneration"] as? Int == 4, "\(info ?? [:])")
        }
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
