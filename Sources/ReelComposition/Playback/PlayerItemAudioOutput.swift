/// The mixed sound of a player item, pulled in blocks timed to the item: the block after
/// the last one, from the playhead after a seek. Whoever plays the blocks reports what it
/// played to a ``SoundClock`` given to the ``Player``, so the picture follows the sound.
///
/// ```swift
/// let clock = SoundClock(sampleRate: 48000)
/// let audio = PlayerItemAudioOutput()
/// item.add(audio)
/// let player = Player(playerItem: item, clock: clock)
/// while let block = try await audio.nextBlock() { play(block.samples); clock.played(frameCount: block.frameCount) }
/// ```
public final class PlayerItemAudioOutput: Sendable {
    /// Mixed sound over one time range of the item.
    public struct Block: Sendable, Hashable {
        /// Where the block lies in item time.
        public var timeRange: TimeRange
        /// Sample frames per second.
        public var sampleRate: Int
        /// Channels per sample frame.
        public var channelCount: Int
        /// Interleaved samples, `frameCount * channelCount` of them.
        public var samples: [Float]
        /// The number of sample frames in the block.
        public var frameCount: Int { channelCount > 0 ? samples.count / channelCount : 0 }
    }

    private struct State {
        weak var item: PlayerItem?
        /// The next block's first sample frame, in the source's rate.
        var position: Int64 = 0
    }

    /// Sample frames per block.
    public let blockFrameCount: Int
    private let state = Lock(State())

    /// An output that hands out blocks of `blockFrameCount` sample frames (at least 1).
    public init(blockFrameCount: Int = 1024) {
        self.blockFrameCount = max(1, blockFrameCount)
    }

    /// The next block, or nil at the end of the item or when it has no sound.
    public func nextBlock() async throws(ReelError) -> Block? {
        guard let item = state.withLock({ $0.item }), let sound = item.contents?.sound else { return nil }
        let rate = Int32(clamping: sound.sampleRate)
        let duration = item.duration
        let position = state.withLock { s in
            defer { s.position += Int64(blockFrameCount) }
            return s.position
        }
        let start = MediaTime(value: position, timescale: rate)
        guard duration.isNumeric, start < duration else { return nil }
        var count = blockFrameCount
        let end = MediaTime(value: position + Int64(count), timescale: rate)
        if end > duration { count = Int(max(0, (duration - start).convertScale(rate, method: .roundTowardPositiveInfinity).value)) }
        let samples = try await sound.samples(from: start, frameCount: count)
        return Block(
            timeRange: TimeRange(start: start, duration: MediaTime(value: Int64(count), timescale: rate)),
            sampleRate: sound.sampleRate, channelCount: sound.channelCount, samples: samples)
    }

    func attach(to item: PlayerItem) {
        state.withLock { $0.item = item }
    }

    /// The playhead jumped: the next block starts there.
    func seek(to time: MediaTime, sampleRate: Int) {
        let frame = time.isNumeric ? time.convertScale(Int32(clamping: sampleRate), method: .roundTowardNegativeInfinity).value : 0
        state.withLock { $0.position = max(0, frame) }
    }
}
