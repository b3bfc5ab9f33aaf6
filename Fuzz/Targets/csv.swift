import Foundation
import ReelMetadata

/// Telemetry CSV: header, quoted fields, numbers and times on every row; what imports
/// exports and imports again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    guard let groups = FuzzInput.run("TelemetryCSV.groups", { () throws(ReelError) in try TelemetryCSV.groups(from: data) }),
        !groups.isEmpty
    else { return 0 }
    let again = Data(TelemetryCSV.document(for: groups).utf8)
    let reread = FuzzInput.run("TelemetryCSV.groups of its own document", { () throws(ReelError) in try TelemetryCSV.groups(from: again) })
    FuzzInput.require(reread?.count == groups.count, "TelemetryCSV read back \(reread?.count ?? -1) of the \(groups.count) groups it wrote")
    return 0
}
