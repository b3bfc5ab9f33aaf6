import Foundation
import Reel

/// What the commands print as JSON: pretty-printed, keys sorted, slashes as they are.
public enum JSONOutput {
    /// `value` as JSON text; throws when it cannot be encoded (a number that is not
    /// finite), saying that `what` could not be written, rather than printing something
    /// that is not `value`.
    public static func text(_ value: some Encodable, describing what: String, path: String? = nil) throws(ReelError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch let EncodingError.invalidValue(value, context) {
            let at = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw ReelError(
                .outputFailed, "could not write \(what) as JSON: \(value) is not a JSON value", path: path,
                field: at.isEmpty ? nil : at)
        } catch {
            throw ReelError(.outputFailed, "could not write \(what) as JSON: \(error)", path: path)
        }
    }
}
