import ReelTesting
import Synchronization

/// The instruction of the test compositors: video track 1, GPS on metadata track 2.
struct SpeedBarInstruction: VideoCompositionInstructionProtocol {
    var timeRange: TimeRange
    var requiredSourceTrackIDs: [Int32]? { [1] }
    var requiredSourceSampleDataTrackIDs: [Int32] { [2] }
}

let oneSecond = TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1))

/// The source frame (scaled to the output, black when missing) with a yellow bar along the
/// bottom, 4 pixels per m/s of the GPS speed: a small but honest dashboard.
func drawSpeedBar(_ request: AsynchronousVideoCompositionRequest, speedOverride: Double?? = nil, extra: Int = 0) -> PixelBuffer {
    let out = request.renderContext.newPixelBuffer()
    let source = request.sourceTrackIDs.first.flatMap { request.sourceFrame(byTrackID: $0) }
    var speed: Double?
    for id in request.sourceSampleDataTrackIDs {
        if let group = request.sourceTimedMetadata(byTrackID: id), let fix = GPSFix(group) { speed = fix.speed2D }
    }
    if let speedOverride { speed = speedOverride }
    let (w, h) = (out.width, out.height)
    let bar = speed.map { Int($0 * 4) } ?? 0
    out.withUnsafeMutableBytes(plane: 0) { dst in
        for y in 0..<h {
            for x in 0..<w {
                var p = source.map { $0.rgba(x: x * $0.width / w, y: y * $0.height / h) } ?? RGBA(0, 0, 0)
                if y >= h - 4 && x < bar { p = RGBA(255, 255, 0) }
                if extra != 0 && x == 0 && y == 0 { p = RGBA(UInt8(truncatingIfNeeded: extra), 0, 0) }
                let o = y * out.bytesPerRow[0] + 4 * x
                dst[o] = p.b; dst[o + 1] = p.g; dst[o + 2] = p.r; dst[o + 3] = 255
            }
        }
    }
    return out
}

/// The well-behaved compositor, written the modern way.
struct SpeedBar: AsyncVideoCompositing {
    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer { drawSpeedBar(request) }
}

/// Base for the hand-written broken compositors: BGRA in and out.
protocol BGRACompositor: VideoCompositing {}
extension BGRACompositor {
    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { .bgra }
    func cancelAllPendingVideoCompositionRequests() async {}
}

/// Breaks rule 4: finishes every request twice.
struct FinishesTwice: BGRACompositor {
    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        let frame = drawSpeedBar(request)
        request.finish(withComposedVideoFrame: frame)
        request.finish(withComposedVideoFrame: frame)
    }
}

/// Breaks rule 4: drops every request without finishing it.
struct NeverFinishes: BGRACompositor {
    func startRequest(_ request: AsynchronousVideoCompositionRequest) {}
}

/// Breaks rule 1: draws the bar at a fixed length whatever the GPS says.
struct IgnoresMetadata: AsyncVideoCompositing {
    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
        drawSpeedBar(request, speedOverride: .some(5))
    }
}

/// Breaks determinism: stamps a running count into the first pixel.
final class Nondeterministic: AsyncVideoCompositing {
    let calls = Atomic<Int>(0)
    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
        drawSpeedBar(request, extra: calls.add(1, ordering: .relaxed).newValue)
    }
}

/// Breaks rule 6: composes normally, but its cancel waits for a gate only the test opens.
final class BlocksOnCancel: BGRACompositor {
    let gate: AsyncStream<Void>
    init(gate: AsyncStream<Void>) { self.gate = gate }
    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        Task { request.finish(withComposedVideoFrame: drawSpeedBar(request)) }
    }
    func cancelAllPendingVideoCompositionRequests() async {
        for await _ in gate {}
    }
}

/// Breaks rule 2: keeps the last speed it saw and draws it when a request has no group.
final class CarriesMetadataForward: AsyncVideoCompositing {
    let last = Lock<Double?>(nil)
    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
        let speed = request.sourceSampleDataTrackIDs.compactMap { request.sourceTimedMetadata(byTrackID: $0) }.compactMap { GPSFix($0)?.speed2D }.first
        let used = last.withLock { remembered -> Double? in
            if let speed { remembered = speed }
            return remembered
        }
        return drawSpeedBar(request, speedOverride: .some(used))
    }
}

/// Breaks rule 7: renders into a pool made for the first render context, whatever comes after.
final class KeepsFirstContext: BGRACompositor {
    let first = Lock<VideoCompositionRenderContext?>(nil)
    func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext) {
        first.withLock { if $0 == nil { $0 = newRenderContext } }
    }
    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        let stale = first.withLock { $0 } ?? request.renderContext
        let frame = drawSpeedBar(request)
        let out = stale.newPixelBuffer()
        if out.width == frame.width && out.height == frame.height {
            request.finish(withComposedVideoFrame: frame)
        } else {
            request.finish(withComposedVideoFrame: out)
        }
    }
}

/// Breaks rule 3: fails when a required source frame is missing.
struct NeedsEveryFrame: AsyncVideoCompositing {
    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
        guard request.sourceFrame(byTrackID: 1) != nil else { throw ReelError(.compositorFailed, "no frame for track 1") }
        return drawSpeedBar(request)
    }
}

/// Breaks rule 5: draws every frame into one scratch buffer and finishes with it, so a
/// request still in flight sees its frame overwritten by the next one.
final class ReusesOneBuffer: BGRACompositor {
    let scratch = Lock<PixelBuffer?>(nil)
    func renderContextChanged(_ newRenderContext: VideoCompositionRenderContext) {
        scratch.withLock { $0 = newRenderContext.newPixelBuffer() }
    }
    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        let frame = drawSpeedBar(request)
        let out = scratch.withLock { $0 } ?? frame
        out.withUnsafeMutableBytes(plane: 0) { dst in
            frame.withUnsafeBytes(plane: 0) { src in dst.copyMemory(from: src) }
        }
        request.finish(withComposedVideoFrame: out)
    }
}

/// Breaks the playback rule: composes at once but remembers every request as in flight, and
/// its cancel finishes them all as cancelled, finished or not.
final class CancelsFinishedRequests: BGRACompositor {
    let started = Lock<[AsynchronousVideoCompositionRequest]>([])
    func startRequest(_ request: AsynchronousVideoCompositionRequest) {
        started.withLock { $0.append(request) }
        request.finish(withComposedVideoFrame: drawSpeedBar(request))
    }
    func cancelAllPendingVideoCompositionRequests() async {
        for request in started.withLock({ $0 }) { request.finishCancelledRequest() }
    }
}
