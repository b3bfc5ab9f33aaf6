import Foundation
import Testing

@testable import ReelMetadata

/// A small seeded generator (SplitMix64) so random inputs are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> Data { Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }) }
}

/// Runs `body` on hostile input: it must return or throw a ReelError with a metadata code,
/// never anything else. Returns whether it threw.
@discardableResult
func survives<T>(_ body: () throws(ReelError) -> T) -> Bool {
    do {
        _ = try body()
        return false
    } catch {
        #expect(error.code == .metadataFormat || error.code == .corruptData, "unexpected error code: \(error)")
        #expect(!error.message.isEmpty)
        return true
    }
}

/// One second, as GoPro's 1/1000 time base gives it.
let oneSecond = TimeRange(start: .zero, duration: MediaTime(value: 1000, timescale: 1000))

/// `value` equals `expected` within `tolerance`.
func close(_ value: Double?, _ expected: Double, _ tolerance: Double = 1e-9) -> Bool {
    guard let value else { return false }
    return abs(value - expected) <= tolerance
}
