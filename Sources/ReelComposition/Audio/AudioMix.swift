import ReelCore

/// How the audio tracks of a composition are mixed (`AVAudioMix`): immutable.
///
/// Every enabled audio track plays; a track named by one of the ``inputParameters`` plays
/// at the volumes they give, any other at volume 1. Make one with ``MutableAudioMix``.
public struct AudioMix: Sendable, Hashable, Codable {
    /// The volume settings, at most one per track.
    public let inputParameters: [AudioMixInputParameters]

    /// A mix with the given volume settings; with none, every track plays at volume 1.
    public init(inputParameters: [AudioMixInputParameters] = []) {
        self.inputParameters = inputParameters
    }

    /// A snapshot of a mutable audio mix.
    public init(_ mix: MutableAudioMix) {
        self.init(inputParameters: mix.inputParameters)
    }

    /// The parameters for `trackID`: the first that names it, else volume 1 throughout.
    public func inputParameters(forTrackID trackID: Int32) -> AudioMixInputParameters {
        inputParameters.first { $0.trackID == trackID } ?? AudioMixInputParameters(trackID: trackID)
    }
}

/// An audio mix to edit (`AVMutableAudioMix`).
public struct MutableAudioMix: Sendable, Hashable, Codable {
    /// The volume settings, at most one per track.
    public var inputParameters: [AudioMixInputParameters]

    /// A mix to edit, starting from the given volume settings.
    public init(inputParameters: [AudioMixInputParameters] = []) {
        self.inputParameters = inputParameters
    }
}
