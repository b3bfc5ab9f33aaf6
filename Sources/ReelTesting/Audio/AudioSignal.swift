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
    /// Samples per second (at least 1).
    public var sampleRate: Int

    /// A signal of mono `samples` at `sampleRate` Hz (raised to 1 when lower).
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

    /// The start times of the `window`-second spans of `[from, to)` whose RMS is below
    /// `level` dBFS: gaps and drop-outs. Empty when sound plays all along.
    public func quietSpans(_ from: Double, _ to: Double, below level: Double, window: Double = 0.02) -> [Double] {
        let count = Int(((to - from) / window).rounded(.down))
        return (0..<max(count, 0)).map { from + Double($0) * window }.filter { rms($0, $0 + window) < level }
    }

    /// What keeps `[from, to)` from being a crossfade from the `outgoing` tone (Hz) to the
    /// `incoming` one: in `steps` windows spread evenly over the span (each 50 ms in from its
    /// slice's edges), the outgoing tone must fall and the incoming one rise from each window
    /// to the next. One line per window that breaks this; empty for a crossfade.
    public func crossfadeFaults(from outgoing: Double, to incoming: Double, over from: Double, _ to: Double, steps: Int = 4) -> [String] {
        let slice = (to - from) / Double(max(steps, 1))
        var faults: [String] = []
        var previous = (out: Double.infinity, in: -Double.infinity)
        for step in 0..<max(steps, 1) {
            let start = from + Double(step) * slice + 0.05
            let end = start + slice - 0.1
            let level = (out: tone(outgoing, start, end), in: tone(incoming, start, end))
            if !(level.out < previous.out && level.in > previous.in) {
                faults.append(
                    "window at \(start) s: \(outgoing) Hz at \(level.out) dBFS (before \(previous.out)), \(incoming) Hz at \(level.in) dBFS (before \(previous.in))"
                )
            }
            previous = level
        }
        return faults
    }

    /// The largest magnitude of any sample.
    public var peak: Float { samples.map(abs).max() ?? 0 }
}
