import Foundation
import ReelMetadata

/// Render plan files (`RenderPlan.decode`, what `reel render --plan` and `reel join` read):
/// any bytes give a checked plan or one error with a message; a plan accepted is one whose
/// pieces follow each other over the whole render, and it writes out and reads back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    guard let plan = FuzzInput.run("RenderPlan.decode", { () throws(ReelError) in try RenderPlan.decode(data, path: "plan.json") }) else { return 0 }
    FuzzInput.require(plan.pieces.reduce(0) { $0 + $1.frameCount } == plan.frameCount, "accepted pieces that do not add up")
    FuzzInput.require(plan.pieces.last?.timeRange.end == plan.timeRange.end, "accepted pieces that stop short")
    FuzzInput.require(plan.pieces.allSatisfy { !$0.file.contains("/") }, "accepted a piece file outside the work folder")
    let again = FuzzInput.run("RenderPlan round trip", { () throws(ReelError) in try RenderPlan.decode(try plan.encoded(), path: "again.json") })
    FuzzInput.require(again != nil, "a plan accepted does not read back")
    return 0
}
