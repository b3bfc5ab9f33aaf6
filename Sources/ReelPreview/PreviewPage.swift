import Foundation
import Hummingbird
import NIOCore

/// The page's files, read from the package's resources (`Page/`) by name: only these three
/// names are served, so no request path reaches the file system.
struct PreviewPage: Sendable {
    static let files: [String: String] = [
        "index.html": "text/html; charset=utf-8",
        "preview.js": "text/javascript; charset=utf-8",
        "preview.css": "text/css; charset=utf-8",
    ]

    func response(_ name: String) throws -> Response {
        guard let type = Self.files[name],
            let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Page"),
            let data = try? Data(contentsOf: url)
        else {
            throw HTTPError(.notFound)
        }
        return Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
