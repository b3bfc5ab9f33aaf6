import PropertyBased
import ReelCore

/// Generators of times and ranges shared by the property tests.
enum TimeGen {
    /// Timescales met in practice plus awkward ones (primes, 1, the maximum).
    static let timescales: [Int32] = [
        1, 2, 3, 7, 10, 24, 25, 30, 60, 600, 1000, 1001, 2997, 24000, 30000,
        44100, 48000, 90000, 1_000_000, 999_999_937, Int32.max,
    ]

    /// Numeric times whose values stay far from overflow (about +/- 10^12 ticks).
    static var numeric: Generator<MediaTime, some SendableSequenceType> {
        zip(Gen.int64(in: -1_000_000_000_000...1_000_000_000_000), Gen.int(in: 0...(timescales.count - 1)))
            .map { pair in MediaTime(value: pair.0, timescale: timescales[pair.1]) }
    }

    /// Numeric times with small values and timescales, so sums of them never round.
    static var small: Generator<MediaTime, some SendableSequenceType> {
        zip(Gen.int64(in: -100_000...100_000), Gen.int32(in: 1...100_000))
            .map { pair in MediaTime(value: pair.0, timescale: pair.1) }
    }

    /// Any time: mostly numeric (some in epoch 1), sometimes a special value.
    static var any: Generator<MediaTime, some SendableSequenceType> {
        zip(Gen.int(in: 0...11), Gen.int64(in: -1_000_000...1_000_000), Gen.int(in: 0...(timescales.count - 1)))
            .map { t -> MediaTime in
                switch t.0 {
                case 0: return .invalid
                case 1: return .indefinite
                case 2: return .positiveInfinity
                case 3: return .negativeInfinity
                case 4: return MediaTime(value: t.1, timescale: timescales[t.2], epoch: 1)
                default: return MediaTime(value: t.1, timescale: timescales[t.2])
                }
            }
    }

    /// Valid ranges with numeric start and non-negative numeric duration.
    static var range: Generator<TimeRange, some SendableSequenceType> {
        zip(Gen.int64(in: -10_000...10_000), Gen.int64(in: 0...10_000), Gen.int32(in: 1...1000), Gen.int32(in: 1...1000))
            .map { t in
                TimeRange(start: MediaTime(value: t.0, timescale: t.2), duration: MediaTime(value: t.1, timescale: t.3))
            }
    }
}
