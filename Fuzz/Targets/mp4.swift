import Foundation
import ReelMetadata

/// MP4 and QuickTime files held in memory: top-level boxes, every track (headers,
/// references, edit lists, sample descriptions with `mebx` keys, sample tables), every
/// sample laid out, and the first samples of metadata tracks read and decoded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let file = MP4File(data: FuzzInput.data(start, count))
    MP4Fuzzing.exercise(file)
    return 0
}
