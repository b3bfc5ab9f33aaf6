import Foundation
import ReelMetadata

/// GPMF payloads: the KLV tree, every node's values, the series with their scales and
/// units, the GPS fixes (the preferred stream's and GPRI's) and the timed groups, and a raw stream split into payloads.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    if let nodes = FuzzInput.run("GPMFNode.parse", { () throws(ReelError) in try GPMFNode.parse(data) }) {
        var stack = nodes
        while let node = stack.popLast() {
            _ = FuzzInput.run("GPMFNode.values", { () throws(ReelError) in try node.values() })
            stack += node.children
        }
    }
    _ = FuzzInput.run("GPMF.series", { () throws(ReelError) in try GPMF.series(payload: data) })
    // Moving every stamp on the track's clock by nothing gives the payload back unchanged.
    if let same = FuzzInput.run("GPMF.restamped", { () throws(ReelError) in try GPMF.restamped(data, spanning: FuzzInput.oneSecond, by: { $0 }) }) {
        FuzzInput.require(same == data, "GPMF.restamped by no move changed the payload")
    }
    if let groups = FuzzInput.run("GPMF.groups", { () throws(ReelError) in try GPMF.groups(payload: data, timeRange: FuzzInput.oneSecond) }) {
        FuzzInput.require(!groups.isEmpty, "GPMF.groups returned no group")
    }
    if let payloads = FuzzInput.run("GPMF.splitStream", { () throws(ReelError) in try GPMF.splitStream(data) }) {
        for payload in payloads.prefix(64) {
            _ = FuzzInput.run("GPMF.fixes", { () throws(ReelError) in try GPMF.fixes(payload: payload, timeRange: FuzzInput.oneSecond) })
            // A drone's raw receiver stream on its own: device time, SYST calibration, accuracies.
            _ = FuzzInput.run(
                "GPMF.fixes(stream: GPRI)",
                { () throws(ReelError) in
                    try GPMF.fixes(payload: payload, timeRange: FuzzInput.oneSecond, stream: "GPRI")
                })
        }
    }
    return 0
}
