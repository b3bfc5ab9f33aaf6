import ReelComposition
import ReelCore

extension CompositorVerifier {
    /// One verification: the checks in order, with the harnesses they made.
    struct Run {
        let verifier: CompositorVerifier
        let points: [Point]
        let groups: [Int32: [TimedMetadataGroup]]
        var checked: [ContractRule] = []
        var skipped: [(rule: ContractRule, reason: String)] = []
        var requestCount = 0
        private var harnesses: [CompositorHarness] = []
        private var frameCache: [String: PixelBuffer] = [:]

        init(verifier: CompositorVerifier, points: [Point], groups: [Int32: [TimedMetadataGroup]]) {
            self.verifier = verifier
            self.points = points
            self.groups = groups
        }

        var hasMetadata: Bool { points.contains { !$0.metadataTracks.isEmpty } }

        mutating func all() async throws(ContractViolation) {
            let reference = try await serial()
            try await determinism(reference)
            try await concurrency(reference)
            try await missingFrame()
            if hasMetadata {
                try await metadataUsed(reference)
                try await metadataAbsent()
            } else {
                skipped.append((.metadataDelivery, "no instruction asks for metadata"))
                skipped.append((.metadataAtTime, "no instruction asks for metadata"))
            }
            try await contextChange(reference)
            try await cancellation()
            try await playback(reference)
            try leftovers()
            skipped.append((.passthrough, "passthrough instructions never reach a compositor; the render engine enforces it"))
            checked.sort { $0.rawValue < $1.rawValue }
        }

        // MARK: Building blocks

        mutating func newHarness(width: Int? = nil, height: Int? = nil, format: PixelFormat? = nil) throws(ContractViolation) -> CompositorHarness {
            let compositor = verifier.makeCompositor()
            guard let first = compositor.requiredPixelBufferAttributesForRenderContext.pixelFormatType.first else {
                throw ContractViolation(rule: .renderContext, message: "requiredPixelBufferAttributesForRenderContext lists no pixel format")
            }
            if let source = compositor.sourcePixelBufferAttributes, source.pixelFormatType.isEmpty {
                throw ContractViolation(rule: .renderContext, message: "sourcePixelBufferAttributes lists no pixel format (use nil to accept any)")
            }
            let harness = CompositorHarness(
                compositor: compositor, width: width ?? verifier.renderWidth,
                height: height ?? verifier.renderHeight, pixelFormat: format ?? first,
                timeLimit: verifier.timeLimit)
            harnesses.append(harness)
            return harness
        }

        mutating func sourceFrame(_ track: Int32, _ point: Point, format: PixelFormat, width: Int, height: Int) -> PixelBuffer {
            let key = "\(track) \(point.index) \(format) \(width) \(height)"
            if let f = frameCache[key] { return f }
            let f = verifier.makeSourceFrame(track, point.index, point.time, format, width, height)
            frameCache[key] = f
            return f
        }

        /// The group of `track` holding `time`, if any.
        func group(_ track: Int32, at time: MediaTime) -> TimedMetadataGroup? {
            groups[track]?.first { $0.timeRange.containsTime(time) }
        }

        enum MetadataChoice { case own, none, other }

        /// Makes and starts the request for `point`.
        mutating func start(
            _ point: Point, on harness: CompositorHarness, metadata: MetadataChoice = .own,
            dropping droppedTrack: Int32? = nil, size: (Int, Int)? = nil
        ) -> CompositorHarness.Request {
            let (w, h) = size ?? (verifier.renderWidth, verifier.renderHeight)
            let format = harness.preferredSourceFormat
            var frames: [(trackID: Int32, frame: PixelBuffer)] = []
            for track in point.videoTracks where track != droppedTrack {
                frames.append((track, sourceFrame(track, point, format: format, width: w, height: h)))
            }
            var data: [(trackID: Int32, sample: TimedMetadataSample)] = []
            for track in point.metadataTracks {
                let time: MediaTime?
                switch metadata {
                case .own: time = point.time
                case .none: time = nil
                case .other:
                    // The group of the next request time with a different group, wrapping around.
                    let own = group(track, at: point.time)
                    time = (points[(point.index + 1)...] + points[..<point.index]).first { group(track, at: $0.time) != own }?.time
                }
                if let time, let g = group(track, at: time) { data.append((track, TimedMetadataSample(group: g))) }
            }
            let request = harness.makeRequest(at: point.time, instruction: point.instruction, frames: frames, sampleData: data)
            harness.start(request)
            requestCount += 1
            return request
        }

        /// Waits for a request and requires a composed frame; anything else breaks `rule`
        /// (or rule 4 when it was never finished, rule 7 for a frame of the wrong shape).
        func composed(
            _ request: CompositorHarness.Request, _ point: Point, on harness: CompositorHarness,
            rule: ContractRule = .finishExactlyOnce, situation: String = ""
        ) async throws(ContractViolation) -> PixelBuffer {
            func violation(_ rule: ContractRule, _ message: String) -> ContractViolation {
                ContractViolation(
                    rule: rule, compositionTime: point.time, instruction: point.describe,
                    message: situation.isEmpty ? message : "\(situation): \(message)")
            }
            switch await harness.outcome(of: request) {
            case .composed(let frame):
                return frame
            case .failed(let error):
                if error.message.contains("but the render context is") { throw violation(.renderContext, error.message) }
                if error.message.contains("without a frame") { throw violation(.finishExactlyOnce, error.message) }
                throw violation(rule, "finished with an error: \(error)")
            // Under concurrency, a lost request is the concurrency's fault (rule 5).
            case .cancelled:
                throw violation(rule == .concurrentRequests ? rule : .finishExactlyOnce, "finished as cancelled, though nothing was cancelled")
            case .abandoned:
                throw violation(rule == .concurrentRequests ? rule : .finishExactlyOnce, "the compositor released the request without finishing it")
            case .unfinished:
                throw violation(rule == .concurrentRequests ? rule : .finishExactlyOnce, "not finished within \(verifier.timeLimit)")
            }
        }

        /// Requests finished twice or left pending, on every harness so far.
        func leftovers() throws(ContractViolation) {
            for harness in harnesses {
                do {
                    try harness.finish()
                } catch {
                    if let (request, n) = error.finishedMoreThanOnce.first {
                        throw ContractViolation(
                            rule: .finishExactlyOnce, compositionTime: request.compositionTime,
                            instruction: request.instructionDescription, message: "finished \(n) times")
                    }
                    if let request = error.neverFinished.first ?? error.abandoned.first {
                        throw ContractViolation(
                            rule: .finishExactlyOnce, compositionTime: request.compositionTime,
                            instruction: request.instructionDescription, message: "never finished")
                    }
                }
            }
        }

        // MARK: Checks

        /// One request at a time: each composed exactly once. The frames are the reference.
        mutating func serial() async throws(ContractViolation) -> [PixelBuffer] {
            let harness = try newHarness()
            var frames: [PixelBuffer] = []
            for point in points {
                let request = start(point, on: harness)
                // A copy: a compositor may (wrongly) reuse the buffer it finished with, and the
                // reference must stay what the request was finished with.
                frames.append(try await composed(request, point, on: harness).copy())
                try leftovers()
            }
            checked.append(.finishExactlyOnce)
            return frames
        }

        /// The same requests again, on the same compositor and on a new one: the same pixels.
        mutating func determinism(_ reference: [PixelBuffer]) async throws(ContractViolation) {
            let again = harnesses[0]
            let fresh = try newHarness()
            for (harness, which) in [(again, "the same compositor"), (fresh, "a new compositor")] {
                for point in points {
                    let frame = try await composed(start(point, on: harness), point, on: harness)
                    if !frame.hasSamePixels(as: reference[point.index]) {
                        throw ContractViolation(
                            rule: .determinism, compositionTime: point.time, instruction: point.describe,
                            message: "the same request on \(which) gave different pixels "
                                + "(\(ImageComparison(expected: RasterImage(reference[point.index]), actual: RasterImage(frame))))")
                    }
                }
            }
            checked.append(.determinism)
        }

        /// Every request in flight at once, started newest first, awaited oldest first; then
        /// odd ones first. Each must give its reference pixels.
        mutating func concurrency(_ reference: [PixelBuffer]) async throws(ContractViolation) {
            let reversed = Array(points.reversed())
            let interleaved = points.filter { $0.index % 2 == 1 } + points.filter { $0.index % 2 == 0 }
            for (order, name) in [(reversed, "newest first"), (interleaved, "odd ones first")] {
                let harness = try newHarness()
                var started: [(CompositorHarness.Request, Point)] = []
                for point in order { started.append((start(point, on: harness), point)) }
                for (request, point) in started.sorted(by: { $0.1.index < $1.1.index }) {
                    let frame = try await composed(
                        request, point, on: harness, rule: .concurrentRequests,
                        situation: "with \(points.count) requests in flight, started \(name)")
                    if !frame.hasSamePixels(as: reference[point.index]) {
                        throw ContractViolation(
                            rule: .concurrentRequests, compositionTime: point.time, instruction: point.describe,
                            message: "with \(points.count) requests in flight (started \(name)) the output differs from "
                                + "the request alone (\(ImageComparison(expected: RasterImage(reference[point.index]), actual: RasterImage(frame))))")
                    }
                }
            }
            checked.append(.concurrentRequests)
        }

        /// A required video track with no frame (an empty edit) still gives a frame.
        mutating func missingFrame() async throws(ContractViolation) {
            guard let point = points.first(where: { !$0.videoTracks.isEmpty }), let track = point.videoTracks.last else {
                skipped.append((.missingSourceFrame, "no instruction requires a video track"))
                return
            }
            let harness = try newHarness()
            _ = try await composed(
                start(point, on: harness, dropping: track), point, on: harness, rule: .missingSourceFrame,
                situation: "with no frame for required video track \(track) (sourceFrame(byTrackID: \(track)) is nil)")
            checked.append(.missingSourceFrame)
        }

        /// Swapping each request's group for another changes the output somewhere.
        mutating func metadataUsed(_ reference: [PixelBuffer]) async throws(ContractViolation) {
            guard verifier.metadataMustAffectOutput else {
                skipped.append((.metadataDelivery, "metadataMustAffectOutput is off"))
                return
            }
            let harness = try newHarness()
            var compared: [Point] = []
            for point in points where !point.metadataTracks.isEmpty {
                let frame = try await composed(start(point, on: harness, metadata: .other), point, on: harness)
                if !frame.hasSamePixels(as: reference[point.index]) {
                    checked.append(.metadataDelivery)
                    return
                }
                compared.append(point)
            }
            guard let first = compared.first else { return }
            let tracks = Set(compared.flatMap(\.metadataTracks)).sorted().map(String.init).joined(separator: ", ")
            throw ContractViolation(
                rule: .metadataDelivery, compositionTime: first.time, instruction: first.describe,
                message: "the output is the same whichever group of metadata track \(tracks) the request carries "
                    + "(\(compared.count) request(s) tried): the compositor ignores the metadata it is given")
        }

        /// No group (nil) still gives a frame, and nothing carries forward from the request before.
        mutating func metadataAbsent() async throws(ContractViolation) {
            let withMetadata = points.filter { !$0.metadataTracks.isEmpty }
            guard let first = withMetadata.first else { return }
            let alone = try newHarness()
            let bare = try await composed(
                start(first, on: alone, metadata: .none), first, on: alone, rule: .metadataAtTime,
                situation: "with no metadata group (sourceTimedMetadata is nil)")
            if withMetadata.count >= 2 {
                let second = withMetadata[1]
                let plain = try await composed(
                    start(second, on: alone, metadata: .none), second, on: alone, rule: .metadataAtTime,
                    situation: "with no metadata group (sourceTimedMetadata is nil)")
                let after = try newHarness()
                _ = try await composed(start(first, on: after), first, on: after)
                let carried = try await composed(
                    start(second, on: after, metadata: .none), second, on: after, rule: .metadataAtTime,
                    situation: "with no metadata group, after a request with one")
                if !carried.hasSamePixels(as: plain) {
                    throw ContractViolation(
                        rule: .metadataAtTime, compositionTime: second.time, instruction: second.describe,
                        message: "with no metadata group the output depends on the request before it "
                            + "(at \(first.time.secondsDescription), which had a group): a previous group carries forward")
                }
            }
            _ = bare
            checked.append(.metadataAtTime)
        }

        /// A new size (and format, when offered) is followed; switching back gives the first pixels.
        mutating func contextChange(_ reference: [PixelBuffer]) async throws(ContractViolation) {
            let harness = try newHarness()
            let point = points[0]
            _ = try await composed(start(point, on: harness), point, on: harness)
            let formats = harness.compositor.requiredPixelBufferAttributesForRenderContext.pixelFormatType
            let first = harness.renderContext
            let newFormat = formats.count > 1 ? formats[1] : first.pixelFormat
            let (w, h) = (verifier.renderWidth + 16, verifier.renderHeight + 8)
            harness.changeRenderContext(VideoCompositionRenderContext(width: w, height: h, pixelFormat: newFormat))
            let situation = "after renderContextChanged from \(first.width)x\(first.height) \(first.pixelFormat) to \(w)x\(h) \(newFormat)"
            _ = try await composed(start(point, on: harness, size: (w, h)), point, on: harness, rule: .renderContext, situation: situation)
            harness.changeRenderContext(VideoCompositionRenderContext(width: first.width, height: first.height, pixelFormat: first.pixelFormat))
            let back = try await composed(
                start(point, on: harness), point, on: harness, rule: .renderContext,
                situation: "after changing the render context back")
            if !back.hasSamePixels(as: reference[point.index]) {
                throw ContractViolation(
                    rule: .renderContext, compositionTime: point.time, instruction: point.describe,
                    message: "after changing the render context to \(w)x\(h) and back, the output differs from before")
            }
            checked.append(.renderContext)
        }

        /// A seek during playback: the first request is in flight, the player cancels it and
        /// asks for the last point. The cancel returns; the target composes as alone; the
        /// cancelled request is not finished again afterwards.
        mutating func playback(_ reference: [PixelBuffer]) async throws(ContractViolation) {
            guard points.count >= 2, let from = points.first, let to = points.last else {
                skipped.append((.playback, "a seek needs two request times"))
                return
            }
            let harness = try newHarness()
            let inFlight = start(from, on: harness)
            let compositor = harness.compositor
            let returned = await Watchdog.run(limit: verifier.timeLimit) {
                await compositor.cancelAllPendingVideoCompositionRequests()
            }
            guard returned else {
                throw ContractViolation(
                    rule: .playback, compositionTime: from.time, instruction: from.describe,
                    message: "a seek to \(to.time.secondsDescription) cancelled this request in flight, and "
                        + "cancelAllPendingVideoCompositionRequests did not return within \(verifier.timeLimit): it blocks when cancelled")
            }
            let target = try await composed(
                start(to, on: harness), to, on: harness, rule: .playback,
                situation: "the seek's target, after cancelling the request at \(from.time.secondsDescription)")
            if !target.hasSamePixels(as: reference[to.index]) {
                throw ContractViolation(
                    rule: .playback, compositionTime: to.time, instruction: to.describe,
                    message: "the seek's target after a cancel differs from the request alone")
            }
            do {
                try harness.finish()
            } catch {
                if let (request, n) = error.finishedMoreThanOnce.first(where: { $0.request.compositionTime == from.time }) {
                    throw ContractViolation(
                        rule: .playback, compositionTime: request.compositionTime, instruction: request.instructionDescription,
                        message: "a seek cancelled this request and it was finished again (\(n) finishes): a render "
                            + "that goes on after its cancel, or a cancel that finishes what was already finished; finish each request once")
                }
                if harness.isFinished(inFlight) == false {
                    throw ContractViolation(
                        rule: .playback, compositionTime: from.time, instruction: from.describe,
                        message: "this request was still pending after the seek's cancel returned")
                }
            }
            checked.append(.playback)
        }

        /// Every request in flight, then cancel: it returns, and nothing is left pending.
        mutating func cancellation() async throws(ContractViolation) {
            let harness = try newHarness()
            var started: [(CompositorHarness.Request, Point)] = []
            for point in points { started.append((start(point, on: harness), point)) }
            let compositor = harness.compositor
            let returned = await Watchdog.run(limit: verifier.timeLimit) {
                await compositor.cancelAllPendingVideoCompositionRequests()
            }
            let pending = started.filter { !harness.isFinished($0.0) }
            guard returned else {
                let p = pending.first?.1 ?? points[0]
                throw ContractViolation(
                    rule: .cancellation, compositionTime: p.time, instruction: p.describe,
                    message: "cancelAllPendingVideoCompositionRequests did not return within \(verifier.timeLimit) "
                        + "(\(pending.count) of \(started.count) requests still pending): it blocks")
            }
            if let (_, p) = pending.first {
                throw ContractViolation(
                    rule: .cancellation, compositionTime: p.time, instruction: p.describe,
                    message: "cancelAllPendingVideoCompositionRequests returned while \(pending.count) request(s) "
                        + "were neither finished nor cancelled, this one among them")
            }
            for (request, point) in started {
                if case .failed(let error) = await harness.outcome(of: request), error.code != .cancelled {
                    throw ContractViolation(
                        rule: .cancellation, compositionTime: point.time, instruction: point.describe,
                        message: "on cancel the request finished with an error instead of as cancelled: \(error)")
                }
            }
            checked.append(.cancellation)
        }
    }
}
