import Foundation

/// A seek's check of whether an H.264 packet's picture is one no other refers to
/// (`H264NonReferencePicture`), which decides what the decoder is not sent: any bytes give
/// an answer, never a crash, with each NAL unit framing; bytes with no slice are never
/// such a picture.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    data.withUnsafeBytes { bytes in
        for lengthSize in [nil, 1, 2, 3, 4, 0, 5] as [Int?] {
            let holds = H264NonReferencePicture.holds(bytes, lengthSize: lengthSize)
            // A slice's header byte (type 1 to 5) must be somewhere for a yes.
            FuzzInput.require(!holds || bytes.contains { (1...5).contains($0 & 0x1F) }, "a picture found in bytes with no slice header")
        }
    }
    return 0
}
