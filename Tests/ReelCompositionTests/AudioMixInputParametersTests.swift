import ReelComposition
import Testing

@Suite struct AudioMixInputParametersTests {
    @Test func volumeIsOneBeforeAnyRamp() {
        var p = MutableAudioMixInputParameters(trackID: 2)
        #expect(AudioMixInputParameters(p).volume(at: t(5)) == 1)
        p.setVolumeRamp(fromStartVolume: 0.5, toEndVolume: 0, timeRange: range(2, 4))
        let q = AudioMixInputParameters(p)
        #expect(q.volume(at: t(1.999)) == 1)
        #expect(q.getVolumeRamp(for: t(1)) == nil)
    }

    @Test func rampIsLinearAndItsEndHolds() {
        var p = MutableAudioMixInputParameters(trackID: 2)
        p.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: range(2, 4))
        let q = AudioMixInputParameters(p)
        #expect(q.volume(at: t(2)) == 1)
        #expect(q.volume(at: t(3)) == 0.5)
        #expect(abs(q.volume(at: t(3.5)) - 0.25) < 1e-6)
        #expect(q.volume(at: t(4)) == 0)
        #expect(q.volume(at: t(100)) == 0)
        #expect(q.getVolumeRamp(for: t(10))?.timeRange == range(2, 4))
    }

    @Test func setVolumeIsAStepThatHoldsUntilTheNextRamp() {
        var p = MutableAudioMixInputParameters(trackID: 1)
        p.setVolume(0.3, at: t(1))
        p.setVolumeRamp(fromStartVolume: 0.3, toEndVolume: 1, timeRange: range(3, 4))
        p.setVolume(0.1, at: t(6))
        let q = AudioMixInputParameters(p)
        #expect(q.volume(at: t(0.5)) == 1)
        #expect(q.volume(at: t(1)) == 0.3)
        #expect(q.volume(at: t(2.9)) == 0.3)
        #expect(q.volume(at: t(5)) == 1)
        #expect(q.volume(at: t(6)) == Float(0.1))
        #expect(q.volumeRamps.map(\.timeRange.start) == [t(1), t(3), t(6)])
    }

    @Test func aRampAtTheSameStartReplacesTheOldOne() {
        var p = MutableAudioMixInputParameters(trackID: 1)
        p.setVolume(0.3, at: t(1))
        p.setVolume(0.6, at: t(1))
        #expect(p.volumeRamps.count == 1)
        #expect(p.getVolumeRamp(for: t(2))?.endVolume == 0.6)
    }

    @Test func sampleVolumesMatchTheVolumeAtEachSampleTime() {
        var p = MutableAudioMixInputParameters(trackID: 1)
        p.setVolume(0.5, at: MediaTime(value: 3, timescale: 100))
        p.setVolumeRamp(
            fromStartVolume: 0, toEndVolume: 1, timeRange: TimeRange(start: MediaTime(value: 1, timescale: 10), duration: MediaTime(value: 1, timescale: 20)))
        let q = AudioMixInputParameters(p)
        let rate = 1000
        let start = MediaTime(value: 1, timescale: 1000)
        let v = q.volumes(from: start, sampleRate: rate, count: 300)
        for n in 0..<300 {
            let time = start + MediaTime(value: Int64(n), timescale: Int32(rate))
            #expect(abs(v[n] - q.volume(at: time)) < 1e-6, "sample \(n)")
        }
        // Edges fall on exact samples: the step at 30 ms is sample 29, the ramp at 100 ms sample 99.
        #expect(v[28] == 1 && v[29] == 0.5)
        #expect(v[98] == 0.5 && v[99] == 0)
        #expect(v[149] == 1 && v[299] == 1)
    }

    @Test func unitVolumeOverARange() {
        var p = MutableAudioMixInputParameters(trackID: 1)
        #expect(AudioMixInputParameters(p).isUnitVolume(over: range(0, 10)))
        p.setVolumeRamp(fromStartVolume: 2, toEndVolume: 0, timeRange: range(0, 2))
        let q = AudioMixInputParameters(p)
        #expect(!q.isUnitVolume(over: range(1, 3)))
        p = MutableAudioMixInputParameters(trackID: 1)
        p.setVolume(0, at: t(1))
        p.setVolume(1, at: t(2))
        #expect(AudioMixInputParameters(p).isUnitVolume(over: range(2, 5)))
        #expect(!AudioMixInputParameters(p).isUnitVolume(over: range(0, 5)))
    }

    @Test(arguments: [
        (Float(-0.5), range(0, 1), range(2, 3), "volume ramp 0 has volume -0.5"),
        (Float(1), range(0, 2), range(1, 3), "volume ramps 0 and 1 overlap"),
    ])
    func problemsAreNamed(volume: Float, first: TimeRange, second: TimeRange, expected: String) {
        var p = MutableAudioMixInputParameters(trackID: 1)
        p.setVolumeRamp(fromStartVolume: volume, toEndVolume: 1, timeRange: first)
        p.setVolumeRamp(fromStartVolume: 1, toEndVolume: 1, timeRange: second)
        #expect(AudioMixInputParameters(p).rampProblem()?.hasPrefix(expected) == true)
    }

    @Test func goodRampsHaveNoProblem() {
        var p = MutableAudioMixInputParameters(trackID: 1)
        p.setVolumeRamp(fromStartVolume: 0, toEndVolume: 1, timeRange: range(0, 1))
        p.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: range(1, 2))
        #expect(AudioMixInputParameters(p).rampProblem() == nil)
    }
}
