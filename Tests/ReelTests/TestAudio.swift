import Foundation
import Reel

/// Decoded PCM laid on a timeline, and level measurements (RMS, one tone's level).
struct TestAudio {
    /// Channel-averaged samples; sample `n` plays at `n / sampleRate` s.
    var samples: [Float]
    var sampleRate: Int

    /// Audio track `trackID` of `url` (the first audio track when nil), each decoded block
    /// placed at its presentation time (what plays before zero is dropped).
    static func decode(_ url: URL, trackID: Int32? = nil) async throws -> TestAudio {
        let reader = try AssetReader(url: url)
        guard let id = trackID ?? reader.tracks(withMediaType: .audio).first?.trackID else { return TestAudio(samples: [], sampleRate: 1) }
        let output = AssetReaderTrackOutput(trackID: id, settings: .audioPCM)
        try reader.add(output)
        try reader.startReading()
        var out: [Float] = []
        var rate = 1
        for try await sample in output {
            guard let audio = sample.audio else { continue }
            rate = audio.sampleRate
            let at = Int(audio.presentationTime.convertScale(Int32(rate), method: .roundHalfAwayFromZero).value)
            for n in 0..<audio.frameCount where at + n >= 0 {
                var v: Float = 0
                for c in 0..<audio.channelCount { v += audio.samples[n * audio.channelCount + c] }
                if at + n >= out.count { out += [Float](repeating: 0, count: at + n - out.count + 1) }
                out[at + n] = v / Float(audio.channelCount)
            }
        }
        return TestAudio(samples: out, sampleRate: rate)
    }

    var duration: Double { Double(samples.count) / Double(sampleRate) }

    func slice(_ from: Double, _ to: Double) -> ArraySlice<Float> {
        let a = max(0, min(samples.count, Int(from * Double(sampleRate))))
        let b = max(a, min(samples.count, Int(to * Double(sampleRate))))
        return samples[a..<b]
    }

    /// RMS level of `[from, to)` s in dBFS (a full-scale sine is -3 dBFS).
    func rms(_ from: Double, _ to: Double) -> Double {
        let s = slice(from, to)
        guard !s.isEmpty else { return -.infinity }
        let power = s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(s.count)
        return 10 * log10(max(power, 1e-30))
    }

    /// The level of the `frequency` Hz tone in `[from, to)` s, in dBFS (Goertzel): the RMS
    /// a sine of that frequency alone would have.
    func tone(_ frequency: Double, _ from: Double, _ to: Double) -> Double {
        let s = slice(from, to)
        guard !s.isEmpty else { return -.infinity }
        let w = 2 * Double.pi * frequency / Double(sampleRate)
        let k = 2 * cos(w)
        var (s1, s2) = (0.0, 0.0)
        for x in s {
            let s0 = Double(x) + k * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - k * s1 * s2
        let amplitude = 2 * sqrt(max(power, 0)) / Double(s.count)
        return 20 * log10(max(amplitude / 2.0.squareRoot(), 1e-15))
    }

    var peak: Float { samples.map(abs).max() ?? 0 }
}
