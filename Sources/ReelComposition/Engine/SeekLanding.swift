import ReelCore

/// Where a seek with a tolerance lands: the composition time within the tolerance whose
/// frame costs the least decoding to reach.
///
/// A frame of a compressed source is reached by decoding from the keyframe before it, so a
/// seek that may land anywhere in `[target - toleranceBefore, target + toleranceAfter]`
/// (AVFoundation's `seek(to:toleranceBefore:toleranceAfter:)`) lands on a time a keyframe
/// shows, when one is in that window, and otherwise on the window's earliest time, the one
/// nearest to the keyframe before it. A scrubber that seeks with a tolerance repaints after
/// one decoded picture instead of a group of pictures' worth; zero tolerance is exact.
public enum SeekLanding {
    /// The time in `earliest...latest` (which holds `target`) a seek should land on for the
    /// frame at `target` of `videoComposition` over `composition`, reading `sources`.
    ///
    /// The tracks are those the instruction at `target` draws (its required source tracks,
    /// or its passthrough track), each within its segment there: the window is clipped to the
    /// instruction and to each track's segment. With several tracks, the candidate landing
    /// that leaves the least to decode over all of them wins. Without tracks, or when no
    /// source knows its keyframes, the landing is `target`.
    public static func time(
        for target: MediaTime, earliest: MediaTime, latest: MediaTime, composition: Composition,
        videoComposition: VideoComposition, sources: any RenderSourceProvider
    ) async -> MediaTime {
        guard target.isNumeric, earliest.isNumeric, latest.isNumeric, earliest < latest,
            let (_, instruction) = videoComposition.instruction(at: target)
        else { return target }
        var window = TimeRange(start: MediaTime.maximum(earliest, instruction.timeRange.start), end: MediaTime.minimum(latest, instruction.timeRange.end))
        let trackIDs =
            instruction.passthroughTrackID.map { [$0] } ?? instruction.requiredSourceTrackIDs
            ?? composition.tracks.filter { $0.mediaType == .video }.map(\.trackID)
        var layers: [Layer] = []
        for id in trackIDs {
            guard let track = composition.track(withTrackID: id), let segment = track.segment(forTrackTime: target),
                let reference = segment.sourceTrack, let source = sources.videoFrameSource(for: reference)
            else { continue }
            window = TimeRange(start: MediaTime.maximum(window.start, segment.target.start), end: MediaTime.minimum(window.end, segment.target.end))
            layers.append(Layer(segment: segment, source: source))
        }
        guard !layers.isEmpty, window.containsTime(target) || window.end == target else { return target }
        // The frame must start inside the window: its last instant is not a landing.
        let last = window.end == target ? target : window.end - MediaTime(value: 1, timescale: max(window.end.timescale, 1_000_000))
        // Candidates: for each layer, the keyframes showing last by the target and by the
        // window's end, each where it shows when inside the window, else the window's start.
        var candidates: [MediaTime] = [target]
        for layer in layers {
            for end in Set([target, last]) {
                guard let sourceEnd = layer.segment.sourceTime(forCompositionTime: end),
                    let keyframe = await layer.source.randomAccessTime(atOrBefore: sourceEnd),
                    let shown = layer.segment.compositionTime(forSourceTime: keyframe)
                else { continue }
                candidates.append(shown < window.start ? window.start : shown)
            }
        }
        var best = target, bestCost = await cost(of: target, layers: layers)
        for candidate in Set(candidates) where candidate != target && window.containsTime(candidate) {
            let c = await cost(of: candidate, layers: layers)
            if c < bestCost || (c == bestCost && distance(candidate, target) < distance(best, target)) { (best, bestCost) = (candidate, c) }
        }
        return best
    }

    private struct Layer {
        var segment: CompositionTrackSegment
        var source: any VideoFrameSource
    }

    /// The source time each layer decodes through past its keyframe to show `time`, summed;
    /// a layer whose source does not know its keyframes adds nothing.
    private static func cost(of time: MediaTime, layers: [Layer]) async -> MediaTime {
        var total = MediaTime.zero
        for layer in layers {
            guard let sourceTime = layer.segment.sourceTime(forCompositionTime: time),
                let keyframe = await layer.source.randomAccessTime(atOrBefore: sourceTime), keyframe < sourceTime
            else { continue }
            total = total + (sourceTime - keyframe)
        }
        return total
    }

    private static func distance(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? b - a : a - b }
}
