import Foundation
import Reel
import ReelTesting

/// Decoded audio tracks as ``AudioSignal``s (level measurements come from ReelTesting).
typealias TestAudio = AudioSignal

extension AudioSignal {
    /// Audio track `trackID` of `url` (the first audio track when nil), each decoded block
    /// placed at its presentation time (what plays before zero is dropped).
    static func decode(_ url: URL, trackID: Int32? = nil) async throws -> AudioSignal {
        let reader = try await AssetReader.open(url: url)
        guard let id = trackID ?? reader.tracks(withMediaType: .audio).first?.trackID else { return AudioSignal(samples: [], sampleRate: 1) }
        let output = AssetReaderTrackOutput(trackID: id, settings: .audioPCM)
        try reader.add(output)
        try reader.startReading()
        var out: [Float] = []
        var rate = 1
        for try await audio in output.audio {
            rate = audio.sampleRate
            let at = Int(audio.presentationTime.convertScale(Int32(rate), method: .roundHalfAwayFromZero).value)
            let block = AudioSignal(interleaved: audio.samples, channelCount: audio.channelCount, sampleRate: rate).samples
            for n in block.indices where at + n >= 0 {
                if at + n >= out.count { out += [Float](repeating: 0, count: at + n - out.count + 1) }
                out[at + n] = block[n]
            }
        }
        return AudioSignal(samples: out, sampleRate: rate)
    }
}
