import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Reel

/// `reel preview`'s local web server: the page, the document's description, its frames as
/// still images over a WebSocket, and each frame as a lossless PNG by URL.
///
/// - `GET /`, `/preview.js`, `/preview.css`: the page, from the package's resources. No
///   other path reaches the file system: everything else is 404.
/// - `GET /info`: the document (`PreviewInfo`) as JSON.
/// - `GET /frames/N.png`: frame N, lossless, as the page's frames are rendered.
/// - `GET /sound.wav`: the document's sound from its first frame (`PreviewSound`), with
///   range requests; 404 when it has none.
/// - `GET /socket`: the WebSocket (``PreviewRequest`` in, a frame's JSON header then its
///   JPEG out), accepted only from the server's own origin.
///
/// The document is watched: a saved composition file re-renders the frame every page shows;
/// one that no longer loads is reported on the page, and the last good one stays.
public struct PreviewServer: Sendable {
    public let document: PreviewDocument
    public let renderer: PreviewRenderer
    public let host: String
    public let port: Int
    /// The origins a WebSocket is accepted from, once the port is known.
    private let origins = Lock<Set<String>>([])
    let hub = PreviewHub()

    /// The server's log: warnings and errors only, on standard error (standard output's
    /// first line is the page's address).
    public static var quietLogger: Logger {
        var logger = Logger(label: "reel.preview") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        return logger
    }

    /// How many pages are connected now.
    public var connectedPages: Int { get async { await hub.count } }

    /// JPEG quality of the frames sent to the page, on libjpeg's scale: 85 is as close to
    /// the picture (34.8 dB PSNR on a grainy 960x540 frame) as the 34.0 dB of the mjpeg
    /// encoder's quantiser 5 that the preview used before.
    static let jpegQuality = 85

    public init(document: PreviewDocument, renderer: PreviewRenderer, host: String = "127.0.0.1", port: Int = 0) {
        self.document = document
        self.renderer = renderer
        self.host = host
        self.port = port
    }

    /// The server as a Hummingbird application. `onReady` gets the address it listens on
    /// (its port chosen by the system when ``port`` is 0).
    public func application(
        logger: Logger = PreviewServer.quietLogger,
        onReady: @escaping @Sendable (String, Int) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        let page = PreviewPage()
        router.get("/") { _, _ in try page.response("index.html") }
        router.get("/preview.js") { _, _ in try page.response("preview.js") }
        router.get("/preview.css") { _, _ in try page.response("preview.css") }
        router.get("/info") { _, _ in await self.infoResponse() }
        router.get("/frames/:name") { _, context in try await self.pngResponse(context.parameters.get("name") ?? "") }
        router.get("/sound.wav") { request, _ in try await self.soundResponse(range: request.headers[.range]) }
        let host = self.host
        let origins = self.origins
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(configuration: .init(ws: .init(maxFrameSize: 1 << 22))) { request, _, _ in
                guard request.path == "/socket" else { return .dontUpgrade }
                // Pages of other sites must not drive the preview (or read its frames): a
                // browser names the page's origin, which must be this server's own. A client
                // that is no browser may send none, or its own `ws://` loopback origin.
                if let origin = request.headerFields[.origin], !origins.withLock({ $0.contains(origin) }) { return .dontUpgrade }
                return .upgrade([:]) { inbound, outbound, _ in
                    await PreviewConnection(server: self, outbound: outbound).run(inbound)
                }
            },
            configuration: .init(address: .hostname(host, port: port), serverName: "reel preview"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                let names = Set([host, "127.0.0.1", "localhost", "[::1]"])
                origins.withLock { $0 = Set(names.map { "http://\($0):\(bound)" }).union(["ws://localhost", "ws://127.0.0.1", "ws://[::1]"]) }
                await onReady(host, bound)
            },
            logger: logger
        )
    }

    // MARK: HTTP

    func infoResponse() async -> Response {
        guard let text = await infoMessage() else {
            return Response(
                status: .serviceUnavailable, headers: [.contentType: "text/plain"],
                body: .init(byteBuffer: ByteBuffer(string: await document.problem ?? "the document is not loaded")))
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The `info` message for the document's current state; nil before it loads.
    func infoMessage() async -> String? {
        guard let state = await document.state else { return nil }
        let size = await renderer.pixelSize
        return PreviewReply.json(PreviewInfo(name: document.displayName, state: state, pixelSize: size, problem: await document.problem))
    }

    /// `N.png`: frame N, lossless.
    func pngResponse(_ name: String) async throws -> Response {
        guard name.hasSuffix(".png"), let index = Int(name.dropLast(4)), index >= 0 else {
            throw HTTPError(.notFound)
        }
        guard index < (await renderer.frameCount) else { throw HTTPError(.notFound, message: "frame \(index) is past the end") }
        let frame = try await renderer.frame(index)
        let buffer = frame.pixelBuffer
        let png = try await onDedicatedThread(named: "reel.preview.png") { () throws(ReelError) in try ImageEncoder.data(for: buffer, as: .png) }
        return Response(
            status: .ok, headers: [.contentType: "image/png", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: png)))
    }

    /// The document's sound as a WAV, or the part `range` asks for.
    func soundResponse(range: String?) async throws -> Response {
        guard let state = await document.state, let sound = PreviewSound(state) else {
            throw HTTPError(.notFound, message: "the document has no sound")
        }
        return try await sound.response(range: range)
    }

    /// The header and JPEG of the frame `seek` lands on, as the page gets them.
    func frameMessages(_ seek: PreviewSeek) async throws(ReelError) -> (header: String, jpeg: Data) {
        let frame = try await renderer.frame(
            seek.frame, toleranceBefore: seek.toleranceBefore, toleranceAfter: seek.toleranceAfter, playing: seek.isPlaying)
        let buffer = frame.pixelBuffer
        let jpeg = try await onDedicatedThread(named: "reel.preview.jpeg") { () throws(ReelError) in
            try ImageEncoder.data(for: buffer, as: .jpeg(quality: Self.jpegQuality))
        }
        return (PreviewReply.json(PreviewFrameHeader(frame)), jpeg)
    }
}

extension PreviewServer {
    /// How often the document's file is looked at.
    static let watchInterval = Duration.milliseconds(150)

    /// Watches the document until the task is cancelled: a saved composition file is loaded
    /// again, and every page is told (its frame rendered again, or the problem shown).
    public func watchDocument() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.watchInterval)
            guard let change = await document.reloadIfChanged() else { continue }
            switch change {
            case .reloaded(let state):
                await renderer.update(state)
                await hub.documentChanged(info: await infoMessage())
            case .invalid(let message):
                await hub.documentInvalid(message)
            }
        }
    }

    /// Runs the server and the watcher until the process is told to stop (SIGINT, SIGTERM).
    public func run(logger: Logger = PreviewServer.quietLogger, onReady: @escaping @Sendable (String, Int) async -> Void) async throws {
        let app = application(logger: logger, onReady: onReady)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.watchDocument() }
            group.addTask { try await app.runService() }
            // The server ends first (a signal); the watcher then stops.
            try await group.next()
            group.cancelAll()
        }
    }
}
