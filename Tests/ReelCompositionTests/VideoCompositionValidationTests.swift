import ReelComposition
import Testing

/// A source with an audio track, two video tracks and three metadata tracks (4, 5, 6),
/// edited into a 6 s composition with the same track IDs.
func sampleComposition() throws -> Composition {
    let src = "clip.mov"
    var m = MutableComposition()
    let tracks: [(Int32, SourceTrackDescription)] = [
        (1, audioTrack(src, 1, duration: 6)), (2, videoTrack(src, 2, duration: 6)), (3, videoTrack(src, 3, duration: 6)),
        (4, metadataTrack(src, 4, duration: 6)), (5, metadataTrack(src, 5, duration: 6)), (6, metadataTrack(src, 6, duration: 6)),
    ]
    for (id, source) in tracks {
        m.addMutableTrack(withMediaType: source.mediaType, preferredTrackID: id)
        try m.insertTimeRange(range(0, 6), of: source, intoTrackWithID: id, at: .zero)
    }
    return Composition(m)
}

@Suite struct VideoCompositionValidationTests {
    func composition(
        _ instructions: [any VideoCompositionInstructionProtocol], sampleData: [Int32] = [4, 5],
        size: Size = Size(width: 64, height: 36), frame: MediaTime = MediaTime(value: 1, timescale: 30)
    ) -> VideoComposition {
        VideoComposition(frameDuration: frame, renderSize: size, instructions: instructions, sourceSampleDataTrackIDs: sampleData)
    }

    var good: [any VideoCompositionInstructionProtocol] {
        [
            TestInstruction(timeRange: range(0, 3), requiredSourceTrackIDs: [2], requiredSourceSampleDataTrackIDs: [4]),
            TestInstruction(timeRange: range(3, 6), requiredSourceTrackIDs: [2, 3], requiredSourceSampleDataTrackIDs: [4, 5]),
        ]
    }

    @Test func aGoodCompositionHasNoProblems() throws {
        let c = try sampleComposition()
        #expect(composition(good).validate(for: c).isEmpty)
        try composition(good).validated(for: c)
    }

    @Test func gapNamesBothInstructionsAndTimes() throws {
        let c = try sampleComposition()
        let v = composition(
            [
                TestInstruction(timeRange: range(0, 3.5), requiredSourceTrackIDs: [2]),
                TestInstruction(timeRange: range(3.5, 4), requiredSourceTrackIDs: [2]),
                TestInstruction(timeRange: range(4.5, 6), requiredSourceTrackIDs: [2]),
            ], sampleData: [])
        let problems = v.validate(for: c)
        #expect(problems.map(\.kind) == [.gap])
        #expect(problems.first?.instructionIndex == 2)
        #expect(problems.first?.message == "instructions[2].timeRange starts at 4.5 s but instructions[1] ends at 4 s (a gap of 0.5 s)")
    }

    @Test func overlapAndShortCoverage() throws {
        let c = try sampleComposition()
        let v = composition([TestInstruction(timeRange: range(1, 4)), TestInstruction(timeRange: range(3.5, 5))], sampleData: [])
        let problems = v.validate(for: c)
        #expect(problems.map(\.kind) == [.notCovered, .overlap, .notCovered])
        #expect(problems[0].message == "instructions[0].timeRange starts at 1 s but the composition starts at 0 s: nothing covers the time before")
        #expect(problems[1].message == "instructions[1].timeRange starts at 3.5 s but instructions[0] ends at 4 s (an overlap of 0.5 s)")
        #expect(problems[2].message == "instructions[1].timeRange ends at 5 s but the composition lasts until 6 s: nothing covers the time after")
    }

    @Test func unknownTrack() throws {
        let c = try sampleComposition()
        let v = composition([TestInstruction(timeRange: range(0, 6), requiredSourceTrackIDs: [2, 9])], sampleData: [])
        let problems = v.validate(for: c)
        #expect(problems.map(\.kind) == [.unknownTrack])
        #expect(problems.first?.message.hasPrefix("instructions[0].requiredSourceTrackIDs[1] names track 9, which the composition does not have") == true)
    }

    @Test func metadataIDInOneListOnly() throws {
        let c = try sampleComposition()
        // Instruction 1 asks for 6, which the video composition does not list; the video
        // composition lists 5, which no instruction asks for.
        let v = composition([
            TestInstruction(timeRange: range(0, 3), requiredSourceSampleDataTrackIDs: [4]),
            TestInstruction(timeRange: range(3, 6), requiredSourceSampleDataTrackIDs: [4, 6]),
        ])
        let problems = v.validate(for: c)
        #expect(problems.map(\.kind) == [.sampleDataTrackInOneListOnly, .sampleDataTrackInOneListOnly])
        #expect(problems[0].instructionIndex == 1)
        #expect(
            problems[0].message.hasPrefix(
                "instructions[1].requiredSourceSampleDataTrackIDs[1] is metadata track 6, which is not in sourceSampleDataTrackIDs [4, 5]"))
        #expect(problems[1].message.hasPrefix("sourceSampleDataTrackIDs[1] is metadata track 5, but no instruction lists it"))
    }

    @Test func nonMetadataTrackAsSampleData() throws {
        let c = try sampleComposition()
        let v = composition([TestInstruction(timeRange: range(0, 6), requiredSourceSampleDataTrackIDs: [4, 2])], sampleData: [4, 2])
        let problems = v.validate(for: c)
        #expect(problems.map(\.kind) == [.wrongTrackType, .wrongTrackType])
        #expect(
            problems[0].message == "instructions[0].requiredSourceSampleDataTrackIDs[1] names track 2, a video track: only metadata tracks carry sample data")
        #expect(problems[1].message == "sourceSampleDataTrackIDs[1] names track 2, a video track: only metadata tracks carry sample data")
    }

    @Test func badSizeAndDurationAndEmptyRange() throws {
        let c = try sampleComposition()
        let v = composition(
            [TestInstruction(timeRange: range(0, 6)), TestInstruction(timeRange: range(6, 6))], sampleData: [],
            size: Size(width: 0, height: 36), frame: .zero)
        let problems = v.validate(for: c)
        #expect(problems.map(\.kind) == [.badRenderSize, .badFrameDuration, .emptyTimeRange])
        #expect(problems[0].message == "renderSize is 0.0 x 36.0: both sides must be positive")
        #expect(problems[1].message.hasPrefix("frameDuration is 0 s"))
        #expect(problems[2].message == "instructions[1].timeRange is empty (starts and ends at 6 s)")
    }

    @Test func validatedThrowsEveryProblem() throws {
        let c = try sampleComposition()
        let v = composition([TestInstruction(timeRange: range(1, 6), passthroughTrackID: 1)], sampleData: [], frame: .invalid)
        do {
            try v.validated(for: c)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidComposition)
            #expect(error.message.hasPrefix("3 problems:"))
            #expect(error.message.contains("instructions[0].passthroughTrackID names track 1, an audio track: only video tracks can be used here"))
        }
    }

    @Test func propertiesOfACompositionMakeAValidVideoComposition() throws {
        var m = MutableComposition()
        try m.insertTimeRange(range(0, 2), of: SourceDescription(identifier: "a", tracks: [videoTrack("a", 1, duration: 2)]), at: .zero)
        let pip = m.addMutableTrack(withMediaType: .video)
        try m.insertTimeRange(range(0, 1), of: videoTrack("b", 1, size: Size(width: 32, height: 18)), intoTrackWithID: pip, at: t(0.5))
        let c = Composition(m)
        let v = VideoComposition(propertiesOf: c)
        #expect(v.validate(for: c).isEmpty)
        #expect(v.renderSize == Size(width: 64, height: 36))
        #expect(v.frameDuration == MediaTime(value: 1, timescale: 30))
        let spans = v.instructions.compactMap { $0 as? VideoCompositionInstruction }
        #expect(spans.map(\.timeRange) == [range(0, 0.5), range(0.5, 1.5), range(1.5, 2)])
        #expect(spans.map { $0.layerInstructions.map(\.trackID) } == [[1], [1, pip], [1]])
    }
}
