import ReelComposition
import ReelCore
import ReelIO

/// The timecode an export's first frame carries: that of the source frame the composition's
/// video shows there, so a trimmed export of a camera clip starts at the clip's timecode
/// plus the frames cut, as an editor expects.
enum ExportTimecode {
    /// The label of the frame at `range.start` of the first enabled video track, from its
    /// source's start timecode, relabelled for an output counting at `outputFrameDuration`;
    /// nil when that source has no timecode or cannot be read (the export goes on without).
    static func start(
        composition: Composition, range: TimeRange, sources: AssetRenderSources,
        outputFrameDuration: MediaTime?
    ) async -> Timecode? {
        let tracks = composition.tracks(withMediaType: .video).filter { $0.isEnabled && !$0.isEmpty }
        for track in tracks {
            guard let (reference, sourceTime) = track.sourceTime(at: range.start) else { continue }
            guard !sources.isInMemory(reference) else { return nil }
            let asset = Asset(url: sources.url(for: reference.sourceIdentifier))
            guard let source = try? await asset.loadTrack(withTrackID: reference.trackID), let start = source.startTimecode else { return nil }
            return label(
                start, sourceFrameRate: Double(source.nominalFrameRate),
                elapsed: sourceTime - source.timeRange.start, outputFrameDuration: outputFrameDuration)
        }
        return nil
    }

    /// `start` advanced by the source frames in `elapsed`, then counted at the output's
    /// nominal rate when it differs from the source's (frame 15 of 30 is frame 30 of 60).
    static func label(_ start: Timecode, sourceFrameRate: Double, elapsed: MediaTime, outputFrameDuration: MediaTime?) -> Timecode {
        let sourceRate = Timecode.nominalRate(framesPerSecond: sourceFrameRate)
        let seconds = elapsed.isNumeric ? max(0, elapsed.seconds) : 0
        let frames = Int((seconds * (sourceFrameRate > 0 ? sourceFrameRate : Double(sourceRate))).rounded())
        let label = start.advanced(byFrames: frames, nominalRate: sourceRate)
        guard let outputFrameDuration, outputFrameDuration.isNumeric, outputFrameDuration.seconds > 0 else { return label }
        let outputRate = Timecode.nominalRate(framesPerSecond: 1 / outputFrameDuration.seconds)
        guard outputRate != sourceRate else { return label }
        // Drop-frame counting exists only at 30 and 60.
        let drop = label.isDropFrame && outputRate % 30 == 0
        let n = label.frameNumber(nominalRate: sourceRate) * outputRate / sourceRate
        return Timecode(frameNumber: n, nominalRate: outputRate, dropFrame: drop)
    }
}
