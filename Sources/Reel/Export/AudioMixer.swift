import Foundation
import ReelComposition
import ReelCore
import ReelIO

/// The mix of composition audio tracks over a range, block by block: each track's samples
/// (``AudioTrackStream``) times its volume at each sample, summed and clamped to [-1, 1].
/// Sample `n` plays at `range.start + n / sampleRate` exactly, and the mix ends at the
/// sample nearest `range.end`. The export's audio and ``AssetReaderAudioMixOutput`` both
/// read it.
///
/// Clamping (a hard clip) leaves every sum that fits untouched, so one track at volume
/// 1 mixes to its own samples; a limiter would change levels below full scale.
///
/// Not thread-safe: one task reads it at a time (`@unchecked Sendable` so that a reader
/// output can hand it from one `next()` to the next).
final class AudioMixer: @unchecked Sendable {
    let tracks: [ExportAudio.Track]
    let range: TimeRange
    let sampleRate: Int
    let channels: Int
    /// Output frames in all.
    let total: Int64
    private let streams: [AudioTrackStream]
    private var written: Int64 = 0

    init(tracks: [ExportAudio.Track], range: TimeRange, sampleRate: Int, channels: Int) {
        self.tracks = tracks
        self.range = range
        self.sampleRate = sampleRate
        self.channels = channels
        streams = tracks.map { AudioTrackStream(pieces: $0.pieces, start: range.start, sampleRate: sampleRate, channels: channels) }
        total = max(0, (range.end - range.start).convertScale(Int32(clamping: sampleRate), method: .roundHalfAwayFromZero).value)
    }

    /// The share of the mix given so far, 0...1.
    var progress: Double { Double(written) / Double(max(total, 1)) }

    /// The next block of at most `blockFrames` frames, interleaved; nil at the end.
    func next(blockFrames: Int = ExportAudio.blockFrames) async throws(ReelError) -> DecodedAudio? {
        guard written < total else { return nil }
        if Task.isCancelled { throw ReelError(.cancelled, "the mix was cancelled") }
        let rate = Int32(clamping: sampleRate)
        let count = Int(min(Int64(max(1, blockFrames)), total - written))
        let time = range.start + MediaTime(value: written, timescale: rate)
        var sum = [Float](repeating: 0, count: count * channels)
        for (track, stream) in zip(tracks, streams) {
            let samples = try await stream.read(count)
            if track.volume.volumeRamps.isEmpty {
                for i in sum.indices { sum[i] += samples[i] }
                continue
            }
            let gains = track.volume.volumes(from: time, sampleRate: sampleRate, count: count)
            for n in 0..<count {
                let g = gains[n]
                for c in 0..<channels { sum[n * channels + c] += samples[n * channels + c] * g }
            }
        }
        for i in sum.indices { sum[i] = min(max(sum[i], -1), 1) }
        written += Int64(count)
        return DecodedAudio(samples: sum, channelCount: channels, sampleRate: sampleRate, presentationTime: time)
    }
}
