import Foundation
import ReelCore

/// The preview page's WebSocket messages (`PreviewRequest.parse`, what `reel preview` reads
/// from a page): any text gives a seek to a frame inside the document (its tolerances 0 or
/// more frames), an info request, or one line saying what is wrong (`invalidArgument`). The
/// first byte sets the document's frame count.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    guard let first = data.first else { return 0 }
    let frameCount = Int(first)
    let text = String(decoding: data.dropFirst(), as: UTF8.self)
    do throws(ReelError) {
        switch try PreviewRequest.parse(text, frameCount: frameCount) {
        case .seek(let frame, let before, let after):
            FuzzInput.require(frame >= 0 && frame < frameCount, "a seek outside the document: \(frame) of \(frameCount)")
            FuzzInput.require(before >= 0 && after >= 0, "a negative tolerance: \(before), \(after)")
        case .info: break
        }
    } catch {
        FuzzInput.require(
            error.code == .invalidArgument && !error.message.isEmpty && !error.message.contains("\n"),
            "not one line of invalidArgument: \(error)")
    }
    return 0
}
