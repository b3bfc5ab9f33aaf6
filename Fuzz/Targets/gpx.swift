import Foundation
import ReelMetadata

/// GPX documents: the UTF-8 check, XMLParser, every `trkpt` and the groups timed from a start date.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    _ = FuzzInput.run("GPX.fixes", { () throws(ReelError) in try GPX.fixes(from: data) })
    _ = FuzzInput.run("GPX.groups", { () throws(ReelError) in try GPX.groups(from: data, mediaStartTime: Date(timeIntervalSince1970: 1_600_000_000)) })
    return 0
}
