import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// The sound of a composition of files for a player: its enabled audio tracks through its
/// audio mix, mixed by the export's mixer (`AudioMixer`, the same samples an export
/// encodes), as interleaved float samples. Reading on from where the last block ended
/// continues the mix; reading from elsewhere (a seek) starts a new mix there.
public actor AssetSoundSource: SoundSource {
    public nonisolated let sampleRate: Int
    public nonisolated let channelCount: Int
    private let tracks: [ExportAudio.Track]
    private let end: MediaTime
    private var mixer: AudioMixer?
    /// The next sample frame the mixer gives, from item time zero.
    private var position: Int64 = -1

    /// Nil when the composition has no enabled audio track with sound.
    public init?(
        composition: Composition, audioMix: AudioMix?, sources: AssetRenderSources,
        sampleRate: Int = 48000, channelCount: Int = 2
    ) {
        let tracks = composition.tracks(withMediaType: .audio).filter { $0.isEnabled && !$0.isEmpty }.map { track in
            ExportAudio.Track(
                trackID: track.trackID, pieces: ExportAudio.pieces(of: track, in: composition.timeRange, sources: sources),
                volume: audioMix?.inputParameters(forTrackID: track.trackID) ?? AudioMixInputParameters(trackID: track.trackID))
        }.filter { !$0.pieces.isEmpty }
        guard !tracks.isEmpty, sampleRate > 0, channelCount > 0 else { return nil }
        self.tracks = tracks
        self.end = composition.duration
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    public func samples(from start: MediaTime, frameCount: Int) async throws(ReelError) -> [Float] {
        let rate = Int32(clamping: sampleRate)
        let first = max(0, start.convertScale(rate, method: .roundHalfAwayFromZero).value)
        if mixer == nil || first != position {
            let from = MediaTime(value: first, timescale: rate)
            guard from < end else { return [Float](repeating: 0, count: max(0, frameCount) * channelCount) }
            mixer = AudioMixer(tracks: tracks, range: TimeRange(start: from, end: end), sampleRate: sampleRate, channels: channelCount)
            position = first
        }
        var out: [Float] = []
        out.reserveCapacity(max(0, frameCount) * channelCount)
        while out.count < frameCount * channelCount, let mixer {
            guard let block = try await mixer.next(blockFrames: frameCount - out.count / channelCount) else { break }
            out += block.samples
        }
        position += Int64(out.count / channelCount)
        if out.count < frameCount * channelCount { out += [Float](repeating: 0, count: frameCount * channelCount - out.count) }
        return out
    }
}
