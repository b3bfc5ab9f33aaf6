import Foundation
import ReelMetadata

/// The JSON level of composition-file decoding (`CompositionFile.decode`): the syntax
/// scanner that places an error at a line and column, the plain JSON tree, the check for
/// unknown fields with its spelling hints, and the messages that quote a wrong value.
/// The typed decoding and validation after it live in the `Reel` module, which links
/// FFmpeg, so they are not built here.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    if let syntax = CompositionFileDiagnostics.syntaxError(in: data) {
        FuzzInput.require(syntax.line >= 1 && syntax.column >= 1 && !syntax.message.isEmpty, "syntax error without a place: \(syntax)")
        return 0
    }
    guard let root = try? JSONDecoder().decode(JSONValue.self, from: data) else { return 0 }
    _ = root.errorDescription
    if case .object(let top) = root {
        _ = UnknownFields.first(in: top)
    }
    // A typed decode that fails names the field and quotes the value found there.
    struct Shape: Decodable { var version: Int; var sources: [[String: String]]; var renderSize: [String: Double]? }
    do {
        _ = try root.decode(Shape.self, fieldPrefix: "document")
    } catch {
        FuzzInput.require(!error.message.isEmpty, "decode failed without a message")
    }
    return 0
}
