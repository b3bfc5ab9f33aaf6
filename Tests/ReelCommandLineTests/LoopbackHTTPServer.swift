import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for remote-asset tests: serves the files of one
/// folder with byte ranges (`Range: bytes=a-b`, 206 with `Content-Range`), one thread per
/// connection. It can play a server that dies part-way through a file: from byte `failAt`
/// of any file it either closes the connection (`.close`) or stops sending and keeps the
/// connection open (`.stall`) until ``stop()``. With `servesRanges` false it plays a
/// server that ignores `Range:` (as `python3 -m http.server` does): every answer is the
/// whole file, 200, without `Accept-Ranges`. It keeps the `Range:` header of every request
/// (``rangeRequests``).
final class LoopbackHTTPServer: @unchecked Sendable {
    // @unchecked: the listening socket and the open connections are guarded by `lock`;
    // each connection's thread owns its socket until it is listed for closing.
    enum Failure { case close, stall }

    let folder: URL
    let failAt: Int?
    let failure: Failure
    let servesRanges: Bool
    private(set) var port: UInt16 = 0
    private var ranges: [String?] = []
    private var listener: Int32 = -1
    private var connections: Set<Int32> = []
    private var stopped = false
    private let lock = NSCondition()

    init(folder: URL, failAt: Int? = nil, failure: Failure = .close, servesRanges: Bool = true) throws {
        self.folder = folder
        self.failAt = failAt
        self.failure = failure
        self.servesRanges = servesRanges
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { close(listener); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A port on 127.0.0.1 no one listens on now, for a server started as another program.
    static func freePort() throws -> UInt16 {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(probe) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Returns once something accepts connections on 127.0.0.1:`port`; throws if
    /// `stillStarting` says the program that should listen there has ended.
    static func waitUntilListening(port: UInt16, stillStarting: () -> Bool) throws {
        while true {
            let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard probe >= 0 else { throw POSIXError(.EMFILE) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(probe)
            if connected { return }
            guard stillStarting() else { throw POSIXError(.ECONNREFUSED) }
            usleep(20_000)
        }
    }

    /// `http://127.0.0.1:PORT/NAME`.
    func url(_ name: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(name)")! }

    /// The `Range:` header of each request served so far (`bytes=48-`), nil for a request
    /// without one, in the order they came.
    var rangeRequests: [String?] {
        lock.lock()
        defer { lock.unlock() }
        return ranges
    }

    /// Stops accepting, and closes every connection (a stalled one too).
    func stop() {
        lock.lock()
        stopped = true
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        lock.broadcast()
        lock.unlock()
    }

    deinit { stop(); close(listener) }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            lock.lock()
            let done = stopped
            if connection >= 0 && !done { connections.insert(connection) }
            lock.unlock()
            if connection < 0 || done {
                if connection >= 0 { close(connection) }
                return
            }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer {
            lock.lock()
            connections.remove(connection)
            lock.unlock()
            close(connection)
        }
        guard let request = readRequest(connection) else { return }
        let lines = request.split(separator: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2, parts[0] == "GET" || parts[0] == "HEAD" else {
            return send(connection, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        }
        let name = String(parts[1].dropFirst())
        guard !name.contains(".."), let body = try? Data(contentsOf: folder.appendingPathComponent(name)) else {
            return send(connection, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
        var start = 0, end = body.count - 1
        let asked = lines.first { $0.lowercased().hasPrefix("range: bytes=") }.map { $0.dropFirst("range: bytes=".count) }
        lock.lock()
        ranges.append(asked.map { "bytes=" + $0 })
        lock.unlock()
        let range = servesRanges ? asked : nil
        if let range {
            let bounds = range.split(separator: "-", omittingEmptySubsequences: false)
            start = Int(bounds.first ?? "") ?? 0
            if bounds.count > 1, let last = Int(bounds[1]) { end = min(last, body.count - 1) }
        }
        guard start < body.count else {
            return send(
                connection, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */\(body.count)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
        var head = range == nil ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(start)-\(end)/\(body.count)\r\n"
        head += "Content-Type: application/octet-stream\r\n" + (servesRanges ? "Accept-Ranges: bytes\r\n" : "")
        head += "Content-Length: \(end - start + 1)\r\nConnection: close\r\n\r\n"
        send(connection, head)
        if parts[0] == "HEAD" { return }
        let stopAt = min(end + 1, failAt.map { max($0, start) } ?? end + 1)
        if stopAt > start { send(connection, body.subdata(in: start..<stopAt)) }
        if stopAt <= end, failure == .stall {
            lock.lock()
            while !stopped { lock.wait() }
            lock.unlock()
        }
    }

    private func readRequest(_ connection: Int32) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !bytes.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            bytes += buffer.prefix(count)
            if bytes.count > 65536 { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func send(_ connection: Int32, _ text: String) { send(connection, Data(text.utf8)) }

    private func send(_ connection: Int32, _ data: Data) {
        data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = Glibc.send(connection, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return }
                sent += n
            }
        }
    }
}
