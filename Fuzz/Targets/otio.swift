import Foundation
import ReelMetadata

/// OpenTimelineIO files (`OTIOTimeline.decode`, what `reel render EDIT.otio` and `reel
/// convert` read): any bytes give a timeline or one error with a message (a syntax error
/// with its line and column); a timeline read writes out as JSON that reads back as a
/// timeline writing out the same bytes. The conversion to a composition file lives in the
/// `Reel` module, which links FFmpeg, so it is not built here.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    if let problem = OTIOJSONSyntax.firstProblem(in: Array(data)) {
        FuzzInput.require(problem.line >= 1 && problem.column >= 1 && !problem.message.isEmpty, "syntax problem without a place: \(problem)")
    }
    guard let timeline = FuzzInput.run("OTIOTimeline.decode", { () throws(ReelError) in try OTIOTimeline.decode(data, path: "edit.otio") }) else { return 0 }
    for track in timeline.tracks.children {
        for case .clip(let clip) in track.children {
            if let range = clip.sourceRange {
                FuzzInput.require(range.timeRange.start.isNumeric && range.timeRange.duration.isNumeric, "a clip's range is not exact")
            }
        }
    }
    guard let written = FuzzInput.run("OTIOTimeline.encoded", { () throws(ReelError) in try timeline.encoded() }) else {
        FuzzInput.require(false, "a timeline read cannot be written")
        return 0
    }
    guard let again = FuzzInput.run("OTIOTimeline.decode (written)", { () throws(ReelError) in try OTIOTimeline.decode(written) }) else {
        FuzzInput.require(false, "a written timeline does not read back")
        return 0
    }
    let rewritten = try? again.encoded()
    FuzzInput.require(rewritten == written, "a written timeline reads back as another")
    return 0
}
