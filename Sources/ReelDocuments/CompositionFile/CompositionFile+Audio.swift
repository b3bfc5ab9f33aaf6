import Foundation
import Reel

extension CompositionFile {
    /// One audio track's volume in the file's `audioMix`: a volume from the start, then
    /// linear ramps (`AudioMixInputParameters`).
    public struct AudioMixInput: Sendable, Hashable, Codable {
        public var trackID: Int32
        /// The volume from time zero (1 when absent), until the first ramp.
        public var volume: Float?
        /// Ramps from `from` to `to` over `timeRange`, in time order, not overlapping.
        public var volumeRamps: [Ramp<Float>]?

        public init(trackID: Int32, volume: Float? = nil, volumeRamps: [Ramp<Float>]? = nil) {
            self.trackID = trackID
            self.volume = volume
            self.volumeRamps = volumeRamps
        }
    }

    /// The audio mix of `composition`: the file's `audioMix` checked against it, or every
    /// audio track at volume 1; nil when `output.audio` is `false`.
    ///
    /// - Throws: `invalidComposition` naming the JSON path (`audioMix[1].trackID`,
    ///   `audioMix[0].volumeRamps[2]`) of a track that is missing or not audio, a negative
    ///   volume, or ramps that overlap.
    public func makeAudioMix(for composition: Composition, path: String? = nil) throws(ReelError) -> AudioMix? {
        func fail(_ field: String, _ message: String) -> ReelError {
            ReelError(.invalidComposition, message, path: path, field: field)
        }
        guard output?.audio != false else { return nil }
        var seen = Set<Int32>()
        var inputs: [AudioMixInputParameters] = []
        for (i, input) in (audioMix ?? []).enumerated() {
            let field = "audioMix[\(i)]"
            guard let track = composition.track(withTrackID: input.trackID) else {
                let ids = composition.tracks(withMediaType: .audio).map { String($0.trackID) }.joined(separator: ", ")
                throw fail(field + ".trackID", "is \(input.trackID): the composition has no such track (audio tracks: \(ids.isEmpty ? "none" : ids))")
            }
            guard track.mediaType == .audio else {
                throw fail(field + ".trackID", "is \(input.trackID), a \(track.mediaType) track: an audio mix names audio tracks")
            }
            guard seen.insert(input.trackID).inserted else {
                throw fail(field + ".trackID", "is \(input.trackID), already given an audio mix entry")
            }
            var parameters = MutableAudioMixInputParameters(trackID: input.trackID)
            if let volume = input.volume {
                guard volume.isFinite, volume >= 0 else { throw fail(field + ".volume", "is \(volume): volumes are 0 or more") }
                parameters.setVolume(volume, at: .zero)
            }
            var previousEnd = MediaTime.negativeInfinity
            for (r, ramp) in (input.volumeRamps ?? []).enumerated() {
                let rf = "\(field).volumeRamps[\(r)]"
                guard ramp.from.isFinite, ramp.to.isFinite, ramp.from >= 0, ramp.to >= 0 else {
                    throw fail(rf, "goes from \(ramp.from) to \(ramp.to): volumes are 0 or more")
                }
                let range = ramp.timeRange.resolved(compositionEnd: composition.duration)
                guard !(range.start < previousEnd) else {
                    throw fail(
                        rf + ".timeRange",
                        "starts at \(range.start.secondsDescription), before the previous ramp ends at \(previousEnd.secondsDescription): ramps are in time order and do not overlap"
                    )
                }
                previousEnd = range.end
                parameters.setVolumeRamp(fromStartVolume: ramp.from, toEndVolume: ramp.to, timeRange: range)
            }
            inputs.append(AudioMixInputParameters(parameters))
        }
        return AudioMix(inputParameters: inputs)
    }

    /// `composition` with its first source's sound under the picture when the file has no
    /// audio track (and `output.audio` is not `false`): an audio track playing that source's
    /// first audio track wherever the first video track plays that source, silent elsewhere.
    public func addingSourceAudio(to composition: Composition, sources: [String: SourceDescription]) throws(ReelError) -> Composition {
        guard output?.audio != false, composition.tracks(withMediaType: .audio).isEmpty,
            let name = self.sources.first?.name, let audio = sources[name]?.tracks(withMediaType: .audio).first
        else { return composition }
        return try adding([audio], underPictureOf: name, to: composition)
    }

    /// `composition` with a track for each of `played` (tracks of source `name`), each
    /// playing wherever the first video track plays that source and empty elsewhere, with
    /// IDs after the highest in the composition. As it is when there is no video track.
    func adding(_ played: [SourceTrackDescription], underPictureOf name: String, to composition: Composition) throws(ReelError) -> Composition {
        guard let picture = composition.tracks(withMediaType: .video).first, !played.isEmpty else { return composition }
        var mutable = composition.mutableCopy()
        var id = composition.tracks.map(\.trackID).max() ?? 0
        for track in played {
            let segments = picture.segments.map { segment -> CompositionTrackSegment in
                guard segment.sourceTrack?.sourceIdentifier == name else { return CompositionTrackSegment(emptyTarget: segment.target) }
                return CompositionTrackSegment(sourceTrack: track.reference, timeMapping: segment.timeMapping)
            }
            id += 1
            try mutable.addTrack(CompositionTrack(trackID: id, mediaType: track.mediaType, segments: segments))
        }
        return mutable
    }
}
