import Reel

/// A compositor that passes every call on to another and notes, for each composition time,
/// the timed-metadata groups the request carried: what the page shows beside the frame is
/// then exactly what the compositor received.
final class RecordingCompositor: VideoCompositing {
    let wrapped: any VideoCompositing
    /// The groups of the last requests by composition time, at most `limit` of them.
    private let received = Lock(Received())
    private let limit = 64

    private struct Received {
        var groups: [MediaTime: [(trackID: Int32, group: TimedMetadataGroup)]] = [:]
        var order: [MediaTime] = []
    }

    init(_ wrapped: any VideoCompositing) { self.wrapped = wrapped }

    var sourcePixelBufferAttributes: PixelBufferAttributes? { wrapped.sourcePixelBufferAttributes }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { wrapped.requiredPixelBufferAttributesForRenderContext }

    func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext) {
        wrapped.renderContextChanged(newRenderContext)
    }

    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        let groups = request.sourceSampleDataTrackIDs.compactMap { id in request.sourceTimedMetadata(byTrackID: id).map { (id, $0) } }
        let time = request.compositionTime
        received.withLock { r in
            if r.groups.updateValue(groups, forKey: time) == nil { r.order.append(time) }
            if r.order.count > limit {
                for old in r.order.prefix(r.order.count - limit) { r.groups[old] = nil }
                r.order.removeFirst(r.order.count - limit)
            }
        }
        wrapped.startRequest(request)
    }

    func cancelAllPendingVideoCompositionRequests() async {
        await wrapped.cancelAllPendingVideoCompositionRequests()
    }

    /// The groups the request for `time` carried; nil when no request was made for it (a
    /// passthrough instruction, or a time not rendered).
    func groups(at time: MediaTime) -> [(trackID: Int32, group: TimedMetadataGroup)]? {
        received.withLock { $0.groups[time] }
    }
}
