import Foundation
@_exported import ReelMetadata

/// What every fuzz target shares: the input as `Data`, a fixed time range to time
/// payloads over, and checks that turn a broken promise into a crash libFuzzer keeps.
enum FuzzInput {
    /// The input bytes.
    static func data(_ start: UnsafeRawPointer, _ count: Int) -> Data {
        Data(bytes: start, count: count)
    }

    /// One second at a 1/1000 time base, as GoPro's gpmd tracks use.
    static let oneSecond = TimeRange(start: .zero, duration: MediaTime(value: 1000, timescale: 1000))

    /// Runs `body`; a thrown error must carry a message (the parsers promise a clear one).
    static func run<T>(_ what: String, _ body: () throws(ReelError) -> T) -> T? {
        do {
            return try body()
        } catch {
            require(!error.message.isEmpty, "\(what) threw an error without a message: \(error.code)")
            return nil
        }
    }

    /// Crashes (so libFuzzer saves the input) when `condition` does not hold.
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz invariant broken: \(message())") }
    }
}
