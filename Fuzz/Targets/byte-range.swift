import Foundation

/// The `Range` header of `GET /sound.wav` (`ByteRangeRequest.parse`, what `reel preview`
/// reads from a browser): any text gives the whole body, a part inside the body, or 416.
/// The first two bytes set the body's length (0 to 65535).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    guard data.count >= 2 else { return 0 }
    let length = Int(data[data.startIndex]) << 8 | Int(data[data.startIndex + 1])
    let header = String(decoding: data.dropFirst(2), as: UTF8.self)
    switch ByteRangeRequest.parse(header, length: length) {
    case .whole: break
    case .part(let range):
        FuzzInput.require(range.lowerBound >= 0 && range.upperBound < length, "a part outside a body of \(length): \(range)")
    case .unsatisfiable:
        FuzzInput.require(header.lowercased().contains("bytes"), "416 for a header of another unit: \(header)")
    }
    return 0
}
