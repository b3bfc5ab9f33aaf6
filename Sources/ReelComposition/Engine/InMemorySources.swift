/// A video track held in memory: frames with their time ranges, found by binary search.
public struct InMemoryVideoFrameSource: VideoFrameSource {
    /// The frames, sorted by start time.
    public let frames: [VideoFrame]

    /// Frames in any order; they are sorted by start time.
    public init(frames: [VideoFrame]) {
        self.frames = frames.sorted { $0.timeRange.start < $1.timeRange.start }
    }

    /// `count` frames of `frameDuration` each from `start`, frame `i` made by `make(i)`.
    public init(count: Int, frameDuration: MediaTime, start: MediaTime = .zero, make: (Int) -> PixelBuffer) {
        var frames: [VideoFrame] = []
        var time = start
        for i in 0..<max(count, 0) {
            frames.append(VideoFrame(pixelBuffer: make(i), timeRange: TimeRange(start: time, duration: frameDuration)))
            time = time + frameDuration
        }
        self.frames = frames
    }

    public func frame(at sourceTime: MediaTime) async throws(ReelError) -> VideoFrame? {
        guard let i = InMemoryIndex.last(in: frames.count, notAfter: sourceTime, start: { frames[$0].timeRange.start }) else { return nil }
        return frames[i].timeRange.containsTime(sourceTime) ? frames[i] : nil
    }
}

/// A metadata track held in memory: samples (groups, optionally with raw bytes), found by
/// binary search.
public struct InMemoryTimedMetadataSource: TimedMetadataSource {
    /// The samples, sorted by the start time of their groups.
    public let samples: [TimedMetadataSample]

    /// Samples in any order; they are sorted by the start time of their groups.
    public init(samples: [TimedMetadataSample]) {
        self.samples = samples.sorted { $0.group.timeRange.start < $1.group.timeRange.start }
    }

    /// Groups without raw bytes.
    public init(groups: [TimedMetadataGroup]) {
        self.init(samples: groups.map { TimedMetadataSample(group: $0) })
    }

    public func sample(at sourceTime: MediaTime) async throws(ReelError) -> TimedMetadataSample? {
        guard let i = InMemoryIndex.last(in: samples.count, notAfter: sourceTime, start: { samples[$0].group.timeRange.start }) else { return nil }
        return samples[i].group.timeRange.containsTime(sourceTime) ? samples[i] : nil
    }

    public func samples(in range: TimeRange) async throws(ReelError) -> [TimedMetadataSample] {
        samples.filter { sample in
            let group = sample.group.timeRange
            // An instant counts where it falls; a group, where it overlaps.
            return group.duration > .zero ? group.intersection(range).duration > .zero : range.containsTime(group.start)
        }
    }
}

/// A caption track held in memory.
public struct InMemoryCaptionSource: CaptionSource {
    private let list: [Caption]

    /// A track of the given captions, in source time.
    public init(captions: [Caption]) {
        self.list = captions
    }

    public func captions() async throws(ReelError) -> [Caption] { list }
}

enum InMemoryIndex {
    /// The last index whose start is at or before `time`, by binary search over sorted starts.
    static func last(in count: Int, notAfter time: MediaTime, start: (Int) -> MediaTime) -> Int? {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if time < start(mid) { hi = mid } else { lo = mid + 1 }
        }
        return lo == 0 ? nil : lo - 1
    }
}
