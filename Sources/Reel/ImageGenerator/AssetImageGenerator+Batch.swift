import ReelCore

/// Pictures at many times, each time with a result of its own: AVAssetImageGenerator's
/// `images(for:)` (an `AsyncSequence`) and `generateCGImagesAsynchronously(forTimes:)`
/// (a handler), and `cancelAllCGImageGeneration()`.
extension AssetImageGenerator {
    /// How one requested time ended (`AVAssetImageGenerator.Result`).
    public enum Result: String, Sendable, Hashable {
        case succeeded, failed, cancelled
    }

    /// The outcome for one requested time: a picture, the error that time met, or
    /// cancelled. A bad time fails alone; the times after it still get their pictures.
    public enum GeneratedImage: Sendable {
        case succeeded(image: PixelBuffer, requestedTime: MediaTime, actualTime: MediaTime)
        case failed(requestedTime: MediaTime, error: ReelError)
        case cancelled(requestedTime: MediaTime)

        /// The time asked for.
        public var requestedTime: MediaTime {
            switch self {
            case .succeeded(_, let time, _), .failed(let time, _), .cancelled(let time): time
            }
        }

        /// Which way it ended.
        public var result: Result {
            switch self {
            case .succeeded: .succeeded
            case .failed: .failed
            case .cancelled: .cancelled
            }
        }

        /// The picture; throws the time's error, or a `.cancelled` error.
        public var image: PixelBuffer {
            get throws(ReelError) { try parts().image }
        }

        /// The time the picture stands for; throws as ``image`` does.
        public var actualTime: MediaTime {
            get throws(ReelError) { try parts().actualTime }
        }

        private func parts() throws(ReelError) -> (image: PixelBuffer, actualTime: MediaTime) {
            switch self {
            case .succeeded(let image, _, let actual): return (image, actual)
            case .failed(_, let error): throw error
            case .cancelled(let time): throw ReelError(.cancelled, "the picture at \(time.secondsDescription) was cancelled", time: time)
            }
        }
    }

    /// How far apart in time two pictures of a batch may be and still be made in one pass
    /// (``images(for:)``): two seconds, more than a camera's usual group of pictures.
    public static let batchWindow = MediaTime(value: 2, timescale: 1)

    /// The most bytes of pictures a batch holds made ahead of their turn (``images(for:)``):
    /// 128 MiB, about forty 1080p pictures.
    public static let batchMemoryLimit = 128 << 20

    /// What ``cancelAllCGImageGeneration()`` reaches: a count of cancellations that a batch
    /// compares with the one it started under, and the handler batches' tasks.
    struct BatchState {
        var cancellations: UInt64 = 0
        var nextTask: UInt64 = 0
        var tasks: [UInt64: Task<Void, Never>] = [:]
    }

    /// The pictures at `times`, one result per time in the order given (AVFoundation's
    /// `images(for:)`). A time outside the composition gives a `.failed` result and the
    /// next times go on; after ``cancelAllCGImageGeneration()`` or when the iterating task
    /// is cancelled, the remaining times are `.cancelled`.
    ///
    /// The pictures are made in time order where that saves decoding: for the next time
    /// not made yet, the times of the batch within ``batchWindow`` of it are made with it,
    /// earliest first, so the frames between a keyframe and the last of them are decoded
    /// once rather than once for each (`image(at:)` decodes from the keyframe before its
    /// time). Pictures made ahead of their turn are held, up to ``batchMemoryLimit`` bytes.
    ///
    /// ```swift
    /// for await result in generator.images(for: times) {
    ///     switch result {
    ///     case .succeeded(let image, let requested, let actual): use(image, requested, actual)
    ///     case .failed(let requested, let error): print(requested, error)
    ///     case .cancelled: break
    ///     }
    /// }
    /// ```
    public func images(for times: [MediaTime]) -> Images {
        Images(generator: self, times: times, cancellations: batches.withLock { $0.cancellations })
    }

    /// The results of ``images(for:)``, as an `AsyncSequence` that never throws.
    public struct Images: AsyncSequence, Sendable {
        public typealias Element = GeneratedImage
        public typealias Failure = Never
        let generator: AssetImageGenerator
        let times: [MediaTime]
        let cancellations: UInt64

        public struct AsyncIterator: AsyncIteratorProtocol {
            let generator: AssetImageGenerator
            let times: [MediaTime]
            let cancellations: UInt64
            var index = 0
            /// Each time in seconds (NaN for a time that is not a number), for planning.
            lazy var seconds: [Double] = times.map { $0.isNumeric ? $0.seconds : .nan }
            /// Results made ahead of their turn, by index into `times`.
            var madeAhead: [Int: GeneratedImage] = [:]
            /// The bytes of the pictures in `madeAhead`.
            var bytesHeld = 0
            /// The largest picture made so far, to tell whether one more fits the limit.
            var largestPicture = 0

            public mutating func next(isolation actor: isolated (any Actor)?) async -> GeneratedImage? {
                guard index < times.count else { return nil }
                let i = index
                index += 1
                if let ahead = madeAhead.removeValue(forKey: i) {
                    bytesHeld -= Self.bytes(of: ahead)
                    return isCancelled ? .cancelled(requestedTime: times[i]) : ahead
                }
                var result = GeneratedImage.cancelled(requestedTime: times[i])
                for j in pass(for: i) {
                    if isCancelled { return .cancelled(requestedTime: times[i]) }
                    let made = await Self.make(times[j], generator: generator, cancellations: cancellations)
                    largestPicture = Swift.max(largestPicture, Self.bytes(of: made))
                    if j == i {
                        result = made
                    } else {
                        madeAhead[j] = made
                        bytesHeld += Self.bytes(of: made)
                    }
                }
                return isCancelled ? .cancelled(requestedTime: times[i]) : result
            }

            public mutating func next() async -> GeneratedImage? { await next(isolation: nil) }

            /// What to make for result `i`: its time and the later results' times within
            /// ``batchWindow`` of it that are not made yet and fit the memory limit, in
            /// time order.
            private mutating func pass(for i: Int) -> [Int] {
                let seconds = self.seconds
                let time = seconds[i]
                // Until a picture is made, its size (and so how many fit) is not known.
                guard !time.isNaN, largestPicture > 0 else { return [i] }
                let window = AssetImageGenerator.batchWindow.seconds
                let near = (index..<times.count).filter { j in madeAhead[j] == nil && abs(seconds[j] - time) <= window }
                var chosen = [i]
                var bytes = bytesHeld
                // The nearest first, so the limit leaves out the farthest.
                for j in near.sorted(by: { abs(seconds[$0] - time) < abs(seconds[$1] - time) }) {
                    guard bytes + largestPicture <= AssetImageGenerator.batchMemoryLimit else { break }
                    chosen.append(j)
                    bytes += largestPicture
                }
                return chosen.sorted { times[$0] < times[$1] || (times[$0] == times[$1] && $0 < $1) }
            }

            /// The result for `time`.
            private static func make(_ time: MediaTime, generator: AssetImageGenerator, cancellations: UInt64) async -> GeneratedImage {
                do {
                    let (image, actual) = try await generator.image(at: time)
                    return .succeeded(image: image, requestedTime: time, actualTime: actual)
                } catch {
                    if error.code == .cancelled || isCancelled(generator, cancellations) { return .cancelled(requestedTime: time) }
                    return .failed(requestedTime: time, error: error)
                }
            }

            /// The bytes of a result's picture (none for a failed or cancelled time).
            private static func bytes(of result: GeneratedImage) -> Int {
                guard case .succeeded(let image, _, _) = result else { return 0 }
                return image.bytesPerRow.enumerated().reduce(0) { sum, plane in
                    sum + plane.element * image.format.planeSize(plane: plane.offset, width: image.width, height: image.height).height
                }
            }

            private var isCancelled: Bool { Self.isCancelled(generator, cancellations) }

            private static func isCancelled(_ generator: AssetImageGenerator, _ cancellations: UInt64) -> Bool {
                Task.isCancelled || generator.batches.withLock { $0.cancellations } != cancellations
            }
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(generator: generator, times: times, cancellations: cancellations)
        }
    }

    /// Makes the pictures at `requestedTimes` in the background and calls `handler` once
    /// per time, in the order given (AVFoundation's
    /// `generateCGImagesAsynchronously(forTimes:completionHandler:)`): with the requested
    /// time, the picture (nil unless succeeded), the time it stands for (invalid unless
    /// succeeded), the result and the error (when failed).
    public func generateCGImagesAsynchronously(
        forTimes requestedTimes: [MediaTime],
        completionHandler handler: @escaping @Sendable (MediaTime, PixelBuffer?, MediaTime, Result, ReelError?) -> Void
    ) {
        let results = images(for: requestedTimes)
        batches.withLock { state in
            let id = state.nextTask
            state.nextTask += 1
            // Made under the lock, so the task's own removal (which takes it) comes after
            // its insertion.
            state.tasks[id] = Task { [weak self] in
                for await result in results {
                    switch result {
                    case .succeeded(let image, let requested, let actual):
                        handler(requested, image, actual, .succeeded, nil)
                    case .failed(let requested, let error):
                        handler(requested, nil, .invalid, .failed, error)
                    case .cancelled(let requested):
                        handler(requested, nil, .invalid, .cancelled, nil)
                    }
                }
                _ = self?.batches.withLock { $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Cancels every picture not yet made, in every batch started so far
    /// (`cancelAllCGImageGeneration()`): their results are `.cancelled`, still one per
    /// time and in order. Batches started afterwards are not affected.
    public func cancelAllCGImageGeneration() {
        let tasks = batches.withLock { state in
            state.cancellations += 1
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
    }
}
