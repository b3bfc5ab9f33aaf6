import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The preview server's tests' client: HTTP/1.1 `GET`s and WebSockets to a server on the
/// loopback, over swift-nio's own client pipeline. A request's target goes out exactly as
/// written (`/../Package.swift` stays that, where a URL library would tidy it), which the
/// path tests need. docs/architecture.md says why this is not Hummingbird's test client.
enum LocalClient {
    struct Response {
        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: ByteBuffer
        var text: String { String(buffer: body) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `GET target` on the loopback at `port`, on a connection of its own, with `fields`
    /// added to the request's header.
    static func get(port: Int, _ target: String, fields: [(String, String)] = []) async throws -> Response {
        let channel = try await ClientBootstrap(group: .singletonMultiThreadedEventLoopGroup)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: "127.0.0.1:\(port)")
            headers.add(name: "Connection", value: "close")
            for (name, value) in fields { headers.add(name: name, value: value) }
            // Head and end in one write: a server may answer a GET and close the connection as
            // soon as it has the head, and a second write would then fail (I/O on a closed
            // channel) although the response is on its way.
            try await outbound.write(contentsOf: [.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)), .end(nil)])
            var head: HTTPResponseHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let received): head = received
                case .body(var bytes): body.writeBuffer(&bytes)
                case .end:
                    guard let head else { throw Failure(description: "GET \(target): a response with no head") }
                    return Response(status: head.status, headers: head.headers, body: body)
                }
            }
            throw Failure(description: "GET \(target): the connection closed before the response ended")
        }
    }

    /// A message of a WebSocket, its frames joined.
    enum Message {
        case text(String)
        case binary(ByteBuffer)
    }

    /// One open WebSocket: read messages, send text or bytes.
    struct Socket {
        fileprivate var frames: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
        fileprivate let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>

        /// The next message, or nil once the server closes.
        mutating func next() async throws -> Message? {
            var kind: WebSocketOpcode?
            var data = ByteBuffer()
            while let frame = try await frames.next() {
                switch frame.opcode {
                case .ping:
                    try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData))
                    continue
                case .pong: continue
                case .connectionClose: return nil
                case .text, .binary: kind = frame.opcode
                case .continuation: break
                default: throw Failure(description: "a WebSocket frame of unknown kind \(frame.opcode)")
                }
                var payload = frame.unmaskedData
                data.writeBuffer(&payload)
                guard frame.fin else { continue }
                return kind == .text ? .text(String(buffer: data)) : .binary(data)
            }
            return nil
        }

        func send(_ text: String) async throws {
            try await outbound.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
        }

        func send(bytes: ByteBuffer) async throws {
            try await outbound.write(WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: bytes))
        }
    }

    private enum Upgrade: Sendable {
        case accepted(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        /// The connection the server answered without upgrading, to be closed (left open,
        /// it would keep the server's graceful shutdown waiting).
        case refused(any Channel)
    }

    /// A WebSocket to `target` at `port`, sending `origins` as its `Origin` headers (none:
    /// no header), used by `body` and closed after it. Throws when the server refuses it.
    static func webSocket<T>(port: Int, _ target: String, origins: [String] = [], _ body: (inout Socket) async throws -> T) async throws -> T {
        let upgrade = try await ClientBootstrap(group: .singletonMultiThreadedEventLoopGroup)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: 1 << 24) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            .accepted(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                        }
                    }
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "127.0.0.1:\(port)")
                    headers.add(name: "Content-Length", value: "0")
                    for origin in origins { headers.add(name: "Origin", value: origin) }
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                        upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers),
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { .refused(channel) } }
                    )
                    // The server sends its first message right after the 101: when both arrive in
                    // one read, the bytes after the response are the first WebSocket frame, which
                    // NIO's default for a client pipeline (`.dropBytes`) throws away, and the
                    // client then waits for it for ever.
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
        switch try await upgrade.get() {
        case .accepted(let accepted): channel = accepted
        case .refused(let connection):
            try? await connection.close()
            throw Failure(description: "the server refused the WebSocket to \(target) from \(origins)")
        }
        return try await channel.executeThenClose { inbound, outbound in
            var socket = Socket(frames: inbound.makeAsyncIterator(), outbound: outbound)
            let result = try await body(&socket)
            try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer()))
            return result
        }
    }
}
