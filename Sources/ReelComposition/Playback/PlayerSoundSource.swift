/// The mixed sound of a player item: the composition's audio tracks through its audio mix,
/// as interleaved 32-bit float samples at one rate and channel count.
public protocol PlayerSoundSource: Sendable {
    var sampleRate: Int { get }
    var channelCount: Int { get }
    /// The mixed samples of `frameCount` sample frames from item time `start` (silence
    /// where no track sounds): `frameCount * channelCount` interleaved values.
    func samples(from start: MediaTime, frameCount: Int) async throws(ReelError) -> [Float]
}

/// Sound held in memory, already mixed: for tests and generated sound.
public struct InMemorySoundSource: PlayerSoundSource {
    public let sampleRate: Int
    public let channelCount: Int
    /// Interleaved samples from item time zero.
    public let interleaved: [Float]

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
