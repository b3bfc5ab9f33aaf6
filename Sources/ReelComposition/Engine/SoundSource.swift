/// Sound as interleaved 32-bit float samples at one rate and channel count, asked for by
/// time: a player item's mixed sound (the composition's audio tracks through its audio
/// mix), or one source audio track held in memory (``RenderSourceProvider/soundSource(for:)``),
/// which an export mixes as it mixes a file's.
public protocol SoundSource: Sendable {
    /// The number of sample frames per second.
    var sampleRate: Int { get }
    /// The number of channels, interleaved in each sample frame.
    var channelCount: Int { get }
    /// The samples of `frameCount` sample frames from `start` (silence where there is no
    /// sound): `frameCount * channelCount` interleaved values.
    func samples(from start: MediaTime, frameCount: Int) async throws(ReelError) -> [Float]
}

/// The sound a player item plays: its composition's audio, mixed.
public typealias PlayerSoundSource = SoundSource

/// Sound held in memory: for tests and generated sound.
public struct InMemorySoundSource: SoundSource {
    /// The number of sample frames per second.
    public let sampleRate: Int
    /// The number of channels, interleaved in each sample frame (at least 1).
    public let channelCount: Int
    /// Interleaved samples from time zero.
    public let interleaved: [Float]

    /// Sound of the `interleaved` samples from time zero; a channel count below 1 counts as 1.
    public init(sampleRate: Int, channelCount: Int, interleaved: [Float]) {
        self.sampleRate = sampleRate
        self.channelCount = max(1, channelCount)
        self.interleaved = interleaved
    }

    public func samples(from start: MediaTime, frameCount: Int) async throws(ReelError) -> [Float] {
        let first = start.isNumeric ? Int((start.seconds * Double(sampleRate)).rounded()) : 0
        var out = [Float](repeating: 0, count: max(0, frameCount) * channelCount)
        for i in 0..<max(0, frameCount) {
            let frame = first + i
            guard frame >= 0, (frame + 1) * channelCount <= interleaved.count else { continue }
            for c in 0..<channelCount { out[i * channelCount + c] = interleaved[frame * channelCount + c] }
        }
        return out
    }
}
