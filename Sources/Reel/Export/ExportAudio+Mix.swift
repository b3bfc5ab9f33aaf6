import Foundation
import ReelCore
import ReelIO
import ReelComposition

extension ExportAudio {
    /// Output frames per block of the mix.
    static let blockFrames = 4096

    /// Mixes `tracks` over `range` into the input: block by block, each track's samples
    /// (``AudioTrackStream``) times its volume at each sample, summed and clamped to
    /// [-1, 1]. Sample `n` plays at `range.start + n / sampleRate` exactly, and the output
    /// ends at the sample nearest `range.end`.
    ///
    /// Clamping (a hard clip) leaves every sum that fits untouched, so one track at volume
    /// 1 mixes to its own samples; a limiter would change levels below full scale.
    func mix(_ tracks: [Track], range: TimeRange, sampleRate: Int, channels: Int,
             progress: @Sendable (Double) -> Void) async throws(ReelError) {
        let streams = tracks.map { AudioTrackStream(pieces: $0.pieces, start: range.start, sampleRate: sampleRate, channels: channels) }
        let rate = Int32(clamping: sampleRate)
        let total = (range.end - range.start).convertScale(rate, method: .roundHalfAwayFromZero).value
        var written: Int64 = 0
        while written < total {
            if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
            let count = Int(min(Int64(Self.blockFrames), total - written))
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
            try await input.append(DecodedAudio(samples: sum, channelCount: channels, sampleRate: sampleRate, presentationTime: time))
            written += Int64(count)
            progress(Double(written) / Double(max(total, 1)))
        }
    }
}
