import Foundation
import Reel
import ReelText

/// A compositor that draws captions over the source picture (burn-in, for players without
/// soft subtitles): each output frame is the first source track's frame with the caption
/// group showing at its time drawn by a ``CaptionRenderer``.
struct CaptionBurnInCompositor: AsyncVideoCompositing {
    let groups: [CaptionGroup]
    let renderer: CaptionRenderer

    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }

    /// The group whose range holds `time` (half-open), or nil.
    func group(at time: MediaTime) -> CaptionGroup? {
        var low = 0, high = groups.count
        while low < high {
            let mid = (low + high) / 2
            if groups[mid].timeRange.end <= time { low = mid + 1 } else { high = mid }
        }
        return low < groups.count && groups[low].timeRange.containsTime(time) ? groups[low] : nil
    }

    func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
        let out = request.renderContext.newPixelBuffer()
        guard let id = request.sourceTrackIDs.first, let source = request.sourceFrame(byTrackID: id) else { return out }
        guard source.width == out.width, source.height == out.height, source.format == out.format else {
            throw ReelError(.invalidArgument, "captions are burnt into pictures as stored: the video's \(source.width)x\(source.height) frames do not match the \(out.width)x\(out.height) output (a rotated video)",
                            time: request.compositionTime)
        }
        source.copyPixels(into: out)
        if let group = group(at: request.compositionTime) { try renderer.render(group, into: out) }
        return out
    }
}
