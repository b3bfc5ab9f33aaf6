import Foundation
import ReelTestSupport
import Testing

@testable import Reel

@Suite struct AudioTrackStreamTests {
    let counter = TestFiles.fixture("counter-320x240.mp4")

    func piece(_ source: TimeRange, _ target: TimeRange) -> ExportAudio.Piece {
        ExportAudio.Piece(url: counter, trackID: 2, source: source, target: target)
    }

    /// The first index (from each slice's start) where the samples differ by more than
    /// 1e-3 (-60 dBFS), or -1 for a count mismatch. A decoder restarted after a seek
    /// differs from one decoding from the start by ~1e-5; one sample of misplacement of the
    /// 440 Hz tone by ~7e-3.
    func firstDifference(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Int? {
        guard a.count == b.count else { return -1 }
        return zip(a, b).enumerated().first { abs($0.element.0 - $0.element.1) > 1e-3 }?.offset
    }

    @Test func editsAreSampleExactAndEmptyEditsAreDigitalSilence() async throws {
        let source = try await TestAudio.decode(counter)
        try #require(source.sampleRate == 48000)
        // Source [0, 0.5) at 0, nothing over [0.5, 1), source [0.5, 1) at 1.
        let stream = AudioTrackStream(
            pieces: [
                piece(TimeRange(start: .zero, end: .ratio(1, 2)), TimeRange(start: .zero, end: .ratio(1, 2))),
                piece(TimeRange(start: .ratio(1, 2), end: .ratio(1, 1)), TimeRange(start: .ratio(1, 1), end: .ratio(3, 2))),
            ], start: .zero, sampleRate: 48000, channels: 1)
        var out: [Float] = []
        while out.count < 96000 { out += try await stream.read(5000) }
        #expect(out.count == 100_000)
        #expect(firstDifference(out[0..<24000], source.samples[0..<24000]) == nil)
        #expect(out[24000..<48000].allSatisfy { $0 == 0 }, "the empty edit is digital silence")
        #expect(firstDifference(out[48000..<72000], source.samples[24000..<48000]) == nil, "the second piece starts on its edit's sample")
        #expect(out[72000...].allSatisfy { $0 == 0 }, "after the last segment: silence")
    }

    @Test func aScaledPieceIsResampledToItsDuration() async throws {
        // One second of the 440 Hz tone played over two: 220 Hz, 48000 x 2 samples.
        let stream = AudioTrackStream(
            pieces: [piece(TimeRange(start: .zero, end: .ratio(1, 1)), TimeRange(start: .zero, end: .ratio(2, 1)))],
            start: .zero, sampleRate: 48000, channels: 2)
        let out = try await stream.read(96000)
        #expect(out.count == 192_000)
        let mono = TestAudio(samples: stride(from: 0, to: out.count, by: 2).map { out[$0] }, sampleRate: 48000)
        #expect(mono.tone(220, 0.1, 1.9) > mono.tone(440, 0.1, 1.9) + 30)
        #expect(abs(mono.rms(0.1, 1.9) - mono.tone(220, 0.1, 1.9)) < 1)
    }

    @Test func aStreamStartingLaterReadsTheSourceFromTheRightSample() async throws {
        let source = try await TestAudio.decode(counter)
        // Output starts at 0.25 s; the piece plays source [0, 1) at [0, 1).
        let stream = AudioTrackStream(
            pieces: [piece(TimeRange(start: .ratio(1, 4), end: .ratio(1, 1)), TimeRange(start: .ratio(1, 4), end: .ratio(1, 1)))],
            start: .ratio(1, 4), sampleRate: 48000, channels: 1)
        let out = try await stream.read(36000)
        #expect(firstDifference(out[...], source.samples[12000..<48000]) == nil)
    }

    @Test func aStreamStartingInsideAPieceReadsItFromThatTime() async throws {
        let source = try await TestAudio.decode(counter)
        // The stream starts 0.25 s into a piece playing source [0, 1) at [0, 1).
        let stream = AudioTrackStream(
            pieces: [piece(TimeRange(start: .zero, end: .ratio(1, 1)), TimeRange(start: .zero, end: .ratio(1, 1)))],
            start: .ratio(1, 4), sampleRate: 48000, channels: 1)
        let out = try await stream.read(36000)
        #expect(firstDifference(out[...], source.samples[12000..<48000]) == nil, "from the piece's 0.25 s, not its start")
        let later = AudioTrackStream(
            pieces: [piece(TimeRange(start: .ratio(1, 2), end: .ratio(3, 2)), TimeRange(start: .ratio(1, 1), end: .ratio(2, 1)))],
            start: .ratio(5, 4), sampleRate: 48000, channels: 1)
        let rest = try await later.read(36000)
        #expect(firstDifference(rest[...], source.samples[36000..<72000]) == nil, "a piece placed later, entered a quarter second in")
    }
}
