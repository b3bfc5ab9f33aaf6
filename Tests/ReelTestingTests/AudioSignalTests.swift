import ReelTesting
import Testing

@Suite struct AudioSignalTests {
    @Test func aFullScaleSineIsMinus3dBFSInRMSAndInItsToneLevel() {
        let sine = AudioSignal.sine(440, duration: 1)
        #expect(sine.samples.count == 48000)
        #expect(abs(sine.rms(0, 1) - (-3.01)) < 0.05)
        #expect(abs(sine.tone(440, 0.1, 0.9) - (-3.01)) < 0.1)
        #expect(abs(sine.peak - 1) < 1e-3)
    }

    @Test func aToneLevelIgnoresAnotherTone() {
        let a = AudioSignal.sine(440, amplitude: 0.5, duration: 1)
        let b = AudioSignal.sine(660, amplitude: 0.5 * 0.3, duration: 1)
        let mix = AudioSignal(samples: zip(a.samples, b.samples).map { $0 + $1 }, sampleRate: 48000)
        let full = mix.tone(440, 0.2, 0.8)
        #expect(abs(full - a.rms(0, 1)) < 0.1)
        // 0.3 is -10.5 dB.
        #expect(abs(mix.tone(660, 0.2, 0.8) - (full - 10.46)) < 0.2)
        #expect(mix.tone(880, 0.2, 0.8) < full - 35, "no tone at 880 Hz")
    }

    @Test func interleavedChannelsAreAveraged() {
        let signal = AudioSignal(interleaved: [1, 0, 0.5, 0.5, -1, 1], channelCount: 2, sampleRate: 8000)
        #expect(signal.samples == [0.5, 0.5, 0])
        #expect(signal.sampleRate == 8000)
    }

    @Test func slicesAreClippedAndEmptySpansHaveNoLevel() {
        let sine = AudioSignal.sine(100, duration: 0.5, sampleRate: 1000)
        #expect(sine.slice(0.25, 5).count == 250)
        #expect(sine.slice(-1, 0.1).count == 100)
        #expect(sine.rms(2, 3) == -.infinity)
        #expect(sine.tone(100, 0.6, 0.7) == -.infinity)
        #expect(AudioSignal(samples: [0, 0], sampleRate: 48000).rms(0, 1) < -290)
    }

    /// 440 Hz over [0, 1) falling linearly to 0, 660 Hz rising from 0; a gap of silence after.
    static func crossfade(gapAt gap: Double? = nil) -> AudioSignal {
        let a = AudioSignal.sine(440, amplitude: 0.25, duration: 1), b = AudioSignal.sine(660, amplitude: 0.25, duration: 1)
        var samples = (0..<48000).map { n -> Float in
            let g = Float(n) / 48000
            return a.samples[n] * (1 - g) + b.samples[n] * g
        }
        if let gap { for n in Int(gap * 48000)..<Int((gap + 0.05) * 48000) { samples[n] = 0 } }
        return AudioSignal(samples: samples, sampleRate: 48000)
    }

    @Test func aCrossfadeHasNoFaultsAndTheWrongWayRoundHasOneAWindowAfterTheFirst() {
        let fade = Self.crossfade()
        #expect(fade.crossfadeFaults(from: 440, to: 660, over: 0, 1).isEmpty)
        #expect(fade.crossfadeFaults(from: 660, to: 440, over: 0, 1).count == 3, "every window after the first")
    }

    @Test func quietSpansFindAGap() {
        let full = Self.crossfade().rms(0, 1)
        #expect(Self.crossfade().quietSpans(0, 1, below: full - 10).isEmpty)
        let spans = Self.crossfade(gapAt: 0.5).quietSpans(0, 1, below: full - 10)
        #expect(spans.count >= 2 && spans.count <= 3)
        #expect(spans.allSatisfy { $0 >= 0.48 && $0 < 0.55 }, "\(spans)")
    }
}
