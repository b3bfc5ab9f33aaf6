import Foundation
import ReelMetadata

/// Plan files (`AnyPlanFile.decode`, what `reel render --plan` and `reel join` read): any
/// bytes give a checked render or batch plan or one error with a message. A render plan
/// accepted is one whose pieces follow each other over the whole render; a batch plan
/// accepted has its jobs in order, no two writing one output and none writing over an
/// input. Either writes out and reads back as itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    guard let file = FuzzInput.run("AnyPlanFile.decode", { () throws(ReelError) in try AnyPlanFile.decode(data, path: "plan.json") }) else { return 0 }
    switch file {
    case .render(let plan):
        FuzzInput.require(plan.pieces.reduce(0) { $0 + $1.frameCount } == plan.frameCount, "accepted pieces that do not add up")
        FuzzInput.require(plan.pieces.last?.timeRange.end == plan.timeRange.end, "accepted pieces that stop short")
        FuzzInput.require(plan.pieces.allSatisfy { !$0.file.contains("/") }, "accepted a piece file outside the work folder")
        let again = FuzzInput.run("RenderPlan round trip", { () throws(ReelError) in try RenderPlan.decode(try plan.encoded(), path: "again.json") })
        FuzzInput.require(again == plan, "a render plan accepted does not read back as itself")
    case .batch(let plan):
        FuzzInput.require(Set(plan.jobs.map(\.output)).count == plan.jobs.count, "accepted two jobs writing one output")
        FuzzInput.require(plan.jobs.allSatisfy { job in !plan.jobs.contains { $0.input.path == job.output } }, "accepted a job writing over an input")
        FuzzInput.require(plan.jobs.indices.elementsEqual(plan.jobs.map(\.index)), "accepted jobs out of order")
        let again = FuzzInput.run("BatchPlan round trip", { () throws(ReelError) in try BatchPlan.decode(try plan.encoded(), path: "again.json") })
        FuzzInput.require(again == plan, "a batch plan accepted does not read back as itself")
    }
    return 0
}
