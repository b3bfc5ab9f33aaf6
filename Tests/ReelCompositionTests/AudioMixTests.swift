import ReelComposition
import Testing

@Suite struct AudioMixTests {
    @Test func mixFindsParametersByTrack() {
        var p = MutableAudioMixInputParameters(trackID: 3)
        p.setVolume(0.3, at: .zero)
        let mix = AudioMix(MutableAudioMix(inputParameters: [AudioMixInputParameters(p)]))
        #expect(mix.inputParameters(forTrackID: 3).volume(at: t(1)) == Float(0.3))
        #expect(mix.inputParameters(forTrackID: 4).volume(at: t(1)) == 1)
    }
}
