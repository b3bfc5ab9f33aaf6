import Foundation
import HummingbirdWebSocket
import NIOCore
import Reel

/// One page's WebSocket: reads its requests, renders the frame it asked for last, and sends
/// each frame's header and JPEG, one message after the other, from one writer. While the
/// page plays (asks for frame after frame, forwards), the next few frames are rendered and
/// encoded ahead between its requests (``RenderAhead``), so that playing costs the page's
/// round trip or the render, whichever is longer, not both.
struct PreviewConnection {
    let server: PreviewServer
    let outbound: WebSocketOutboundWriter

    /// The largest message read; a larger one closes the connection (1009, message too big).
    static let maximumMessageSize = 1 << 16

    /// What the writer sends, in order.
    enum Outgoing: Sendable {
        case text(String)
        case frame(header: String, jpeg: Data)
    }

    func run(_ inbound: WebSocketInboundStream) async {
        let (outgoing, send) = AsyncStream<Outgoing>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let target = SeekSlot()
        let id = await server.hub.register(send: send, target: target)
        defer { send.finish() }
        if let info = await server.infoMessage() { send.yield(.text(info)) }
        if let problem = await server.document.problem { send.yield(.text(PreviewReply.problem("invalid", problem))) }
        await withTaskGroup(of: Void.self) { group in
            // The writer: the only task that writes to the socket.
            group.addTask {
                for await message in outgoing {
                    do {
                        switch message {
                        case .text(let text):
                            try await outbound.write(.text(text))
                        case .frame(let header, let jpeg):
                            try await outbound.write(.text(header))
                            try await outbound.write(.binary(ByteBuffer(bytes: jpeg)))
                        }
                    } catch {
                        return
                    }
                }
            }
            // The renderer: the newest frame asked for, one at a time; between requests,
            // while the page plays, the frames after it.
            group.addTask {
                var ahead = RenderAhead()
                while !target.isClosed {
                    if !target.hasPending, let next = ahead.nextToRender(frameCount: await server.renderer.frameCount) {
                        let generation = await server.renderer.generation
                        if let made = try? await server.frameMessages(PreviewSeek(frame: next, isPlaying: true)) {
                            ahead.store(next, header: made.header, jpeg: made.jpeg, generation: generation)
                        } else {
                            ahead.reset()
                        }
                        continue
                    }
                    guard var seek = await target.next() else { break }
                    let generation = await server.renderer.generation
                    if seek.isExact {
                        if let ready = ahead.take(seek.frame, generation: generation) {
                            send.yield(.frame(header: ready.header, jpeg: ready.jpeg))
                            continue
                        }
                        seek.isPlaying = ahead.isPlaying
                    } else {
                        // A scrub, not playing.
                        ahead.reset()
                    }
                    do throws(ReelError) {
                        let (header, jpeg) = try await server.frameMessages(seek)
                        send.yield(.frame(header: header, jpeg: jpeg))
                    } catch {
                        ahead.reset()
                        send.yield(.text(PreviewReply.problem("error", "frame \(seek.frame): \(error.description)")))
                    }
                }
            }
            // The reader: requests in, until the page goes.
            do {
                for try await message in inbound.messages(maxSize: Self.maximumMessageSize) {
                    guard case .text(let text) = message else {
                        send.yield(.text(PreviewReply.problem("error", "binary messages are not read: send JSON text")))
                        continue
                    }
                    do throws(ReelError) {
                        switch try PreviewRequest.parse(text, frameCount: await server.renderer.frameCount) {
                        case .seek(let frame, let before, let after):
                            target.offer(PreviewSeek(frame: frame, toleranceBefore: before, toleranceAfter: after))
                        case .info: if let info = await server.infoMessage() { send.yield(.text(info)) }
                        }
                    } catch {
                        send.yield(.text(PreviewReply.problem("error", error.message)))
                    }
                }
            } catch {
                // The connection closed or broke: nothing to answer.
            }
            target.close()
            send.finish()
            group.cancelAll()
        }
        // The last page gone: no reader stays open for nobody.
        if await server.hub.unregister(id) { await server.renderer.releaseSources() }
    }
}

/// A frame a page asked for: frame `frame`, or any from `frame - toleranceBefore` to
/// `frame + toleranceAfter`, the quickest to show.
struct PreviewSeek: Sendable, Hashable {
    var frame: Int
    var toleranceBefore = 0
    var toleranceAfter = 0
    /// Asked for by a page that plays on from it: its render reads on from it rather than
    /// giving it first, as a seek's frame is given.
    var isPlaying = false

    var isExact: Bool { toleranceBefore == 0 && toleranceAfter == 0 }
}

/// The frame a page asked for last and not yet rendered: a later seek replaces an earlier
/// one, so the renderer always takes the newest ("newest seek wins").
final class SeekSlot: Sendable {
    private struct State {
        var pending: PreviewSeek?
        var waiter: CheckedContinuation<PreviewSeek?, Never>?
        var closed = false
        /// The last request taken: the frame the page shows (or is about to).
        var shown: PreviewSeek?
    }
    private let state = Lock(State())

    /// Asks for `seek`, replacing any request not yet taken.
    func offer(_ seek: PreviewSeek) {
        let waiter = state.withLock { s -> CheckedContinuation<PreviewSeek?, Never>? in
            guard !s.closed else { return nil }
            if let w = s.waiter {
                s.waiter = nil
                s.shown = seek
                return w
            }
            s.pending = seek
            return nil
        }
        waiter?.resume(returning: seek)
    }

    /// Asks again for the frame last taken (after the document changed).
    func offerShownAgain() {
        if let shown = state.withLock({ $0.shown }) { offer(shown) }
    }

    /// The newest frame asked for, waiting for one; nil once closed.
    func next() async -> PreviewSeek? {
        await withCheckedContinuation { (continuation: CheckedContinuation<PreviewSeek?, Never>) in
            let ready = state.withLock { s -> PreviewSeek?? in
                if s.closed { return .some(nil) }
                if let p = s.pending {
                    s.pending = nil
                    s.shown = p
                    return .some(p)
                }
                s.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Whether a request waits to be taken.
    var hasPending: Bool { state.withLock { $0.pending != nil } }
    /// Whether the page has gone.
    var isClosed: Bool { state.withLock { $0.closed } }

    func close() {
        let waiter = state.withLock { s -> CheckedContinuation<PreviewSeek?, Never>? in
            s.closed = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }
}

/// The pages connected now, so that a change of the document reaches each.
actor PreviewHub {
    private var pages: [Int: (send: AsyncStream<PreviewConnection.Outgoing>.Continuation, target: SeekSlot)] = [:]
    private var lastID = 0

    var count: Int { pages.count }

    func register(send: AsyncStream<PreviewConnection.Outgoing>.Continuation, target: SeekSlot) -> Int {
        lastID += 1
        pages[lastID] = (send, target)
        return lastID
    }

    /// The page is gone; true when it was the last one.
    func unregister(_ id: Int) -> Bool {
        pages[id] = nil
        return pages.isEmpty
    }

    /// The document loaded again: each page gets its description and its frame, rendered anew.
    func documentChanged(info: String?) {
        for page in pages.values {
            if let info { page.send.yield(.text(info)) }
            page.target.offerShownAgain()
        }
    }

    /// The document no longer loads: each page shows why, and keeps its last frame.
    func documentInvalid(_ message: String) {
        for page in pages.values { page.send.yield(.text(PreviewReply.problem("invalid", message))) }
    }
}

/// The frames rendered ahead of a playing page: after two requests that each move forward
/// by a few frames, the frames after the last one asked for (up to ``lead``) are rendered
/// and encoded while the page shows that one. Any other request (a seek, a step back), a
/// failed render or a new state of the document drops them.
struct RenderAhead {
    /// Frames rendered past the last one asked for.
    static let lead = 8
    /// The largest step forward between two requests still taken for playing.
    static let playingStep = 8

    struct Ready {
        var header: String
        var jpeg: Data
        var generation: Int
    }
    private var ready: [Int: Ready] = [:]
    private var lastAsked: Int?
    private var forwardSteps = 0

    /// Whether the page plays forward: its last two requests each moved ahead by a little.
    var isPlaying: Bool { forwardSteps >= 2 }

    /// The frame to render next, ahead of the last one asked for; nil when not playing or
    /// far enough ahead.
    func nextToRender(frameCount: Int) -> Int? {
        guard isPlaying, let lastAsked else { return nil }
        return (lastAsked + 1...lastAsked + Self.lead).first { $0 < frameCount && ready[$0] == nil }
    }

    mutating func store(_ index: Int, header: String, jpeg: Data, generation: Int) {
        ready[index] = Ready(header: header, jpeg: jpeg, generation: generation)
    }

    /// Frame `index` asked for: the one rendered ahead when there is one of this document
    /// state. Notes the request; frames before it are dropped.
    mutating func take(_ index: Int, generation: Int) -> Ready? {
        if let last = lastAsked, index > last, index - last <= Self.playingStep {
            forwardSteps += 1
        } else {
            forwardSteps = 0
            ready.removeAll()
        }
        lastAsked = index
        let found = ready.removeValue(forKey: index)
        ready = ready.filter { $0.key > index && $0.value.generation == generation }
        guard let found, found.generation == generation else {
            if found != nil { ready.removeAll() }
            return nil
        }
        return found
    }

    mutating func reset() {
        ready.removeAll()
        forwardSteps = 0
    }
}
