import Foundation

/// Mono PCM laid on a timeline, with the level measurements an audio test needs: RMS over
/// a span, the level of one tone in it (Goertzel), the peak.
///
/// Sample `n` plays at `n / sampleRate` seconds. Levels are in dBFS with a full-scale sine
/// at -3 dBFS, so a tone's level and the RMS of that tone alone agree. Decoding is the
/// caller's: ReelTesting reads no media files.
///
/// ```swift
/// let audio = AudioSignal(interleaved: decoded, channelCount: 2, sampleRate: 48000)
/// #expect(audio.tone(440, 0.2, 0.8) > audio.tone(660, 0.2, 0.8) + 30)
/// ```
public struct AudioSignal: Sendable, Hashable {
    /// The samples, one per frame (channels averaged).
    public var samples: [Float]
    public var sampleRate: Int

    public init(samples: [Float], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = max(sampleRate, 1)
    }

    /// Interleaved frames of `channelCount` channels, averaged into one.
    public init(interleaved: [Float], channelCount: Int, sampleRate: Int) {
        let channels = max(channelCount, 1)
        let frames = interleaved.count / channels
        var mono = [Float](repeating: 0, count: frames)
        for n in 0..<frames {
            var sum: Float = 0
            for c in 0..<channels { sum += interleaved[n * channels + c] }
            mono[n] = sum / Float(channels)
        }
        self.init(samples: mono, sampleRate: sampleRate)
    }

    /// A sine of `frequency` Hz and peak `amplitude` lasting `duration` seconds.
    public static func sine(_ frequency: Double, amplitude: Float = 1, duration: Double, sampleRate: Int = 48000) -> AudioSignal {
        let count = Int((duration * Double(sampleRate)).rounded())
        let w = 2 * Double.pi * frequency / Double(sampleRate)
        return AudioSignal(samples: (0..<count).map { amplitude * Float(sin(w * Double($0))) }, sampleRate: sampleRate)
    }

    /// Seconds of sound.
    public var duration: Double { Double(samples.count) / Double(sampleRate) }

    /// The samples of `[from, to)` seconds (clipped to the signal).
    public func slice(_ from: Double, _ to: Double) -> ArraySlice<Float> {
        let a = max(0, min(samples.count, Int(from * Double(sampleRate))))
        let b = max(a, min(samples.count, Int(to * Double(sampleRate))))
        return samples[a..<b]
    }

    /// The RMS level of `[from, to)` seconds in dBFS; -infinity for an empty span.
    public func rms(_ from: Double, _ to: Double) -> Double {
        let s = slice(from, to)
        guard !s.isEmpty else { return -.infinity }
        let power = s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(s.count)
        return 10 * log10(max(power, 1e-30))
    }

    /// The level of the `frequency` Hz tone in `[from, to)` seconds, in dBFS (Goertzel's
    /// algorithm): the RMS that a sine of that frequency alone would have. Other tones
    /// leak in by about -40 dB or less over spans of a tenth of a second and more.
    public func tone(_ frequency: Double, _ from: Double, _ to: Double) -> Double {
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

    /// The largest magnitude of any sample.
    public var peak: Float { samples.map(abs).max() ?? 0 }
}
