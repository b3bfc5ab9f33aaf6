import Foundation
import ReelMetadata

/// CAMM samples: the little-endian records of types 0-7 and their metadata group.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    if let records = FuzzInput.run("CAMM.records", { () throws(ReelError) in try CAMM.records(sample: data) }) {
        // What parses encodes back to the same bytes.
        FuzzInput.require(CAMM.encode(records) == data, "CAMM.encode(records(sample:)) differs from the sample")
        // Every GPS record's fix (velocity, accuracies) written back as a record decodes.
        for case .gps(let gps) in records.prefix(16) {
            let again = CAMM.encode([CAMM.record(fix: gps.fix)])
            _ = FuzzInput.run("CAMM.records of a written fix", { () throws(ReelError) in try CAMM.records(sample: again) })
        }
    }
    _ = FuzzInput.run("CAMM.group", { () throws(ReelError) in try CAMM.group(sample: data, timeRange: FuzzInput.oneSecond) })
    return 0
}
