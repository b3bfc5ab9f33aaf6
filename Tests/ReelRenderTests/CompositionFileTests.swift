import Foundation
import ReelDocuments
import ReelTestSupport
import ReelTesting
import Testing

@testable import Reel

@Suite("CompositionFile")
struct CompositionFileTests {
    @Test func decodesAndResolvesAValidFile() throws {
        let file = try CompositionFile.decode(Data(RenderTestSupport.dashboardJSON.utf8))
        #expect(file.version == 1)
        #expect(file.sources == [CompositionFile.Source(name: "camera", path: "camera.mp4")])
        #expect(file.frameDuration == MediaTime(value: 1, timescale: 30))
        #expect(file.instructions[0].timeRange.runsToEnd)
        let composition = try file.makeComposition(sources: ["camera": RenderTestSupport.cameraDescription])
        #expect(composition.tracks.map(\.trackID) == [1, 2])
        #expect(composition.duration == RenderTestSupport.duration)
        let video = try file.makeVideoComposition(for: composition)
        #expect(video.instructions.count == 1)
        #expect(video.instructions[0].timeRange == TimeRange(start: .zero, duration: RenderTestSupport.duration))
        #expect(video.sourceSampleDataTrackIDs == [2])
        #expect(video.renderSize == Size(width: 480, height: 270))
    }

    @Test func timesAreExactRationalsOrSeconds() throws {
        let json = RenderTestSupport.dashboardJSON.replacingOccurrences(of: "\"frameDuration\": \"1/30\"", with: "\"frameDuration\": 0.04")
        let file = try CompositionFile.decode(Data(json.utf8))
        #expect(file.frameDuration == MediaTime(value: 1, timescale: 25))
        let rational = RenderTestSupport.dashboardJSON.replacingOccurrences(of: "\"1/30\"", with: "\"1001/30000\"")
        #expect(try CompositionFile.decode(Data(rational.utf8)).frameDuration == MediaTime(value: 1001, timescale: 30000))
    }

    @Test func renderSizeAndFrameDurationDefaultToTheFirstVideoTrack() throws {
        var json = RenderTestSupport.dashboardJSON.replacingOccurrences(of: "\"renderSize\": {\"width\": 480, \"height\": 270},", with: "")
        json = json.replacingOccurrences(of: "\"frameDuration\": \"1/30\",", with: "")
        let file = try CompositionFile.decode(Data(json.utf8))
        let composition = try file.makeComposition(sources: ["camera": RenderTestSupport.cameraDescription])
        let video = try file.makeVideoComposition(for: composition)
        #expect(video.renderSize == Size(width: 480, height: 270))
        #expect(video.frameDuration == MediaTime(value: 1, timescale: 30))
    }

    @Test func phoneFootageRendersUprightUnlessALayerSaysOtherwise() throws {
        let json = """
            {"version": 1, "sources": [{"name": "phone", "path": "p.mp4"}],
             "tracks": [{"trackID": 1, "mediaType": "video", "segments": [{"source": "phone"}]}],
             "frameDuration": "1/25",
             "instructions": [{"timeRange": {"start": 0, "end": 0.5}, "layerInstructions": [{"trackID": 1}]},
                              {"timeRange": {"start": 0.5, "end": "end"}, "layerInstructions": [{"trackID": 1, "transform": {"scale": 1}}]}]}
            """
        // Stored 160x120, shown turned clockwise (a phone held upright).
        let phone = SourceDescription(
            identifier: "phone",
            tracks: [
                SourceTrackDescription(
                    reference: SourceTrackReference(sourceIdentifier: "phone", trackID: 1), mediaType: .video,
                    timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 1)), naturalSize: Size(width: 160, height: 120),
                    nominalFrameDuration: MediaTime(value: 1, timescale: 25), preferredTransform: Transform2D(a: 0, b: 1, c: -1, d: 0, tx: 120, ty: 0))
            ])
        let file = try CompositionFile.decode(Data(json.utf8))
        let composition = try file.makeComposition(sources: ["phone": phone])
        let video = try file.makeVideoComposition(for: composition)
        #expect(video.renderSize == Size(width: 120, height: 160))
        let layers = video.instructions.compactMap { ($0 as? VideoCompositionInstruction)?.layerInstructions.first }
        try #require(layers.count == 2)
        // No transform: upright, at the origin (the stored top-left corner lands top right).
        let upright = layers[0].transform(at: MediaTime.zero)
        #expect(upright == Transform2D(a: 0, b: 1, c: -1, d: 0, tx: 120, ty: 0))
        #expect(Point(x: 0, y: 0).applying(upright) == Point(x: 120, y: 0))
        // A transform given applies to the picture as stored.
        #expect(layers[1].transform(at: MediaTime(value: 1, timescale: 2)) == .identity)
    }

    @Test func encodesAndDecodesBackTheSame() throws {
        let file = try CompositionFile.decode(Data(RenderTestSupport.dashboardJSON.utf8))
        let again = try CompositionFile.decode(try file.encoded())
        #expect(again == file)
    }

    @Test func transformsAsStepsOrMatrix() throws {
        let steps = try JSONDecoder().decode(CompositionFile.TransformValue.self, from: Data(#"{"scale": 0.5, "translate": [100, 50]}"#.utf8))
        #expect(steps.transform == Transform2D(a: 0.5, b: 0, c: 0, d: 0.5, tx: 100, ty: 50))
        let matrix = try JSONDecoder().decode(CompositionFile.TransformValue.self, from: Data(#"{"a": 2, "d": 3, "tx": 1}"#.utf8))
        #expect(matrix.transform == Transform2D(a: 2, b: 0, c: 0, d: 3, tx: 1, ty: 0))
        // Written back as the matrix form, which reads back to the same transform.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let written = String(decoding: try encoder.encode(steps), as: UTF8.self)
        #expect(written == #"{"a":0.5,"b":0,"c":0,"d":0.5,"tx":100,"ty":50}"#)
        #expect(try JSONDecoder().decode(CompositionFile.TransformValue.self, from: Data(written.utf8)) == steps)
        let color = try JSONDecoder().decode(CompositionFile.ColorValue.self, from: Data(##""#FF000080""##.utf8))
        #expect(color.color.red == 1 && color.color.green == 0 && abs(color.color.alpha - 128.0 / 255) < 1e-9)
    }

    // MARK: Broken files: one line naming the JSON path

    /// The broken-file cases of the CLI, checked on the decoder: the field and the words.
    static let brokenCases: [(name: String, from: String, to: String, field: String?, words: String)] = [
        ("wrong type", "\"width\": 480", "\"width\": \"abc\"", "renderSize.width", "expected a number, got \"abc\""),
        (
            "wrong type in an array", "\"sourceSampleDataTrackIDs\": [2]", "\"sourceSampleDataTrackIDs\": [\"two\"]",
            "sourceSampleDataTrackIDs[0]", "expected an integer, got \"two\""
        ),
        ("missing field", "\"trackID\": 1, \"mediaType\": \"video\", ", "\"mediaType\": \"video\", ", "tracks[0].trackID", "is missing"),
        ("bad time", "\"frameDuration\": \"1/30\"", "\"frameDuration\": \"soon\"", "frameDuration", "expected a time"),
        (
            "unknown media type", "\"mediaType\": \"metadata\"", "\"mediaType\": \"gps\"", "tracks[1].mediaType",
            "expected \"video\", \"audio\", \"metadata\" or \"captions\""
        ),
        ("misspelt field", "\"renderSize\"", "\"renderSise\"", "renderSise", "did you mean \"renderSize\""),
        (
            "undeclared source", "\"segments\": [{\"source\": \"camera\"}]}\n", "\"segments\": [{\"source\": \"cam\"}]}\n",
            "tracks[1].segments[0].source", "names \"cam\", which is not in sources"
        ),
        ("newer version", "\"version\": 1", "\"version\": 2", "version", "reads version 1 only"),
        ("no version", "\"version\": 1,", "", "version", "is missing"),
    ]

    @Test(arguments: brokenCases.indices)
    func brokenFilesNameTheField(_ index: Int) throws {
        let c = Self.brokenCases[index]
        let json = RenderTestSupport.dashboardJSON.replacingOccurrences(of: c.from, with: c.to)
        #expect(json != RenderTestSupport.dashboardJSON, "\(c.name): the replacement did not apply")
        let error = try #require(RenderTestSupport.error(decoding: json), "\(c.name)")
        #expect(error.code == .invalidComposition, "\(c.name)")
        #expect(error.field == c.field, "\(c.name): \(error)")
        #expect(error.message.contains(c.words), "\(c.name): \(error)")
        #expect(!error.description.contains("\n"), "\(c.name): more than one line")
        #expect(error.description.hasPrefix("c.json: \(c.field.map { $0 + ": " } ?? "")"), "\(c.name): \(error)")
    }

    @Test func badJSONGivesLineAndColumn() throws {
        let json = RenderTestSupport.dashboardJSON.replacingOccurrences(of: "\"frameDuration\": \"1/30\",", with: "\"frameDuration\": \"1/30\"")
        let error = try #require(RenderTestSupport.error(decoding: json))
        #expect(error.code == .invalidComposition)
        // The missing comma is noticed at the next key, on line 10.
        #expect(error.message.hasPrefix("line 10, column 3: expected ',' or '}'"), "\(error)")
        let truncated = try #require(RenderTestSupport.error(decoding: "{\"version\": 1, \"sources\": ["))
        #expect(truncated.message.contains("line 1, column 28"), "\(truncated)")
        #expect(RenderTestSupport.error(decoding: "[1, 2]")?.message.contains("expected a JSON object") == true)
    }

    /// Found by fuzzing: thirteen thousand `[` overflowed the stack of the scanner that
    /// places syntax errors. Deeper than Foundation's parser goes is refused, with its place.
    @Test func nestingTooDeepIsOneErrorWithItsPlace() throws {
        let prefix = "{\"version\": 1, \"x\": "
        let deep = prefix + String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000) + "}"
        let error = try #require(RenderTestSupport.error(decoding: deep))
        #expect(error.code == .invalidComposition)
        // The object is the first level; the 512th array is the 513th.
        #expect(error.message.hasPrefix("line 1, column \(prefix.count + 512): arrays and objects nested more than 512 deep"), "\(error)")
        // As deep as allowed is read (and then refused only for what it is: an unknown field).
        let allowed = "{\"version\": 1, \"x\": " + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}"
        let unknown = try #require(RenderTestSupport.error(decoding: allowed))
        #expect(unknown.field == "x", "\(unknown)")
    }

    @Test func aGapBetweenInstructionsNamesBothInstructions() throws {
        let json = RenderTestSupport.dashboardJSON.replacingOccurrences(
            of: "{\"timeRange\": {\"start\": 0, \"end\": \"end\"}, \"requiredSourceSampleDataTrackIDs\": [2],",
            with:
                "{\"timeRange\": {\"start\": 0, \"end\": 0.5}, \"requiredSourceSampleDataTrackIDs\": [2]},\n{\"timeRange\": {\"start\": \"3/4\", \"end\": \"end\"}, \"requiredSourceSampleDataTrackIDs\": [2],"
        )
        let file = try CompositionFile.decode(Data(json.utf8), path: "c.json")
        let composition = try file.makeComposition(sources: ["camera": RenderTestSupport.cameraDescription])
        do {
            _ = try file.makeVideoComposition(for: composition, path: "c.json")
            Issue.record("expected a gap error")
        } catch {
            #expect(error.field == "instructions[1].timeRange")
            #expect(error.description.hasPrefix("c.json: instructions[1].timeRange: starts at 0.75 s but instructions[0] ends at 0.5 s"), "\(error)")
        }
    }

    @Test func metadataTrackMissingFromOneListIsNamed() throws {
        let json = RenderTestSupport.dashboardJSON.replacingOccurrences(of: "\"sourceSampleDataTrackIDs\": [2],", with: "\"sourceSampleDataTrackIDs\": [],")
        let file = try CompositionFile.decode(Data(json.utf8))
        let composition = try file.makeComposition(sources: ["camera": RenderTestSupport.cameraDescription])
        expectReelError(.invalidComposition) { try file.makeVideoComposition(for: composition) }
        do { _ = try file.makeVideoComposition(for: composition) } catch {
            #expect(error.field == "instructions[0].requiredSourceSampleDataTrackIDs[0]")
        }
    }

    @Test func aSegmentAskingForATrackTheSourceLacks() throws {
        let json = RenderTestSupport.dashboardJSON.replacingOccurrences(
            of: "\"segments\": [{\"source\": \"camera\"}]},\n", with: "\"segments\": [{\"source\": \"camera\", \"sourceTrackID\": 7}]},\n")
        let file = try CompositionFile.decode(Data(json.utf8))
        do {
            _ = try file.makeComposition(sources: ["camera": RenderTestSupport.cameraDescription])
            Issue.record("expected an error")
        } catch {
            #expect(error.field == "tracks[0].segments[0].sourceTrackID")
            #expect(error.message.contains("has no track 7"))
        }
    }

    @Test func missingSourceFileNamesTheSourcePath() throws {
        let file = try CompositionFile.decode(Data(RenderTestSupport.dashboardJSON.utf8), path: "c.json")
        let dir = URL(fileURLWithPath: "/nonexistent-dir")
        do {
            _ = try file.sourceFiles(relativeTo: dir, path: "c.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .fileNotFound)
            #expect(error.field == "sources[0].path")
            #expect(error.description.hasPrefix("c.json: sources[0].path: no such file \"camera.mp4\""), "\(error)")
        }
    }

    @Test func sourceOverridesReplaceByNameOrTheFirst() throws {
        let file = try CompositionFile.decode(Data(RenderTestSupport.dashboardJSON.utf8))
        let here = URL(fileURLWithPath: #filePath)
        let bare = try file.sourceFiles(relativeTo: URL(fileURLWithPath: "/nowhere"), overrides: [.init(argument: here.path)])
        #expect(bare.map(\.url) == [here])
        let named = try file.sourceFiles(relativeTo: URL(fileURLWithPath: "/nowhere"), overrides: [.init(argument: "camera=" + here.path)])
        #expect(named.map(\.name) == ["camera"])
        expectReelError(.invalidArgument) {
            try file.sourceFiles(relativeTo: URL(fileURLWithPath: "/nowhere"), overrides: [.init(argument: "drone=" + here.path)])
        }
        #expect(CompositionFile.SourceOverride(argument: "a=b.mp4") == .init(name: "a", path: "b.mp4"))
        #expect(CompositionFile.SourceOverride(argument: "dir/a=b.mp4") == .init(name: nil, path: "dir/a=b.mp4"))
    }
}
