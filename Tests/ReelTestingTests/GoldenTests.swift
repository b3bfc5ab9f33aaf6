import Foundation
import ReelTesting
import Testing

@Suite struct GoldenTests {
    /// A fresh folder per test, removed afterwards.
    final class Scratch {
        let directory: String
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("reel-golden-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
        func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: directory + "/" + name) }
    }

    static func frame() -> PixelBuffer {
        SyntheticFrame.make(
            .horizontalGradient(from: .black, to: Color(red: 0.2, green: 0.8, blue: 1)),
            width: 40, height: 24, format: .rgba, counter: 12)
    }

    /// Records `image` as golden `name` the way a developer would: a recording run (which fails).
    static func record(_ image: RasterImage, _ name: String, in scratch: Scratch) {
        do {
            try Golden(directory: scratch.directory, isRecording: true).verify(image, named: name)
            Issue.record("a recording run passed")
        } catch {
            guard case .recorded = error.reason else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.contains("run again without RECORD_GOLDENS"))
        }
    }

    @Test func recordingFailsThenTheSameFramePasses() throws {
        let scratch = try Scratch()
        let image = RasterImage(Self.frame())
        Self.record(image, "g", in: scratch)
        #expect(scratch.exists("g.png"))
        try Golden(directory: scratch.directory, isRecording: false).verify(Self.frame(), named: "g")
    }

    @Test func missingGoldenSaysHowToRecord() throws {
        let scratch = try Scratch()
        #expect {
            try Golden(directory: scratch.directory, isRecording: false).verify(Self.frame(), named: "absent")
        } throws: { error in
            "\(error)".contains("RECORD_GOLDENS=1")
        }
    }

    @Test func onePixelBeyondTheToleranceFails() throws {
        let scratch = try Scratch()
        var expected = RasterImage(Self.frame())
        var pixel = expected[17, 9]
        pixel[1] = pixel[1] < 128 ? pixel[1] + 6 : pixel[1] - 6  // green off by 6
        expected[17, 9] = pixel
        Self.record(expected, "one-pixel", in: scratch)

        let golden = Golden(directory: scratch.directory, isRecording: false)
        do {
            try golden.verify(Self.frame(), named: "one-pixel", tolerance: ImageTolerance(maximumChannelDifference: 5))
            Issue.record("a difference of 6 passed a tolerance of 5")
        } catch {
            guard case .imageMismatch(let comparison, _, let actualPath, let diffPath) = error.reason else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(comparison.maximumChannelDifference == 6)
            #expect(comparison.differingPixelCount == 1)
            #expect(comparison.firstDifference?.x == 17 && comparison.firstDifference?.y == 9)
            #expect(comparison.psnr > 40 && comparison.psnr.isFinite)
            #expect(actualPath.hasSuffix("one-pixel.actual.png") && diffPath.hasSuffix("one-pixel.diff.png"))
            let text = error.description
            #expect(text.contains("max channel difference 6") && text.contains("PSNR") && text.contains("(17, 9)"))
            // The written actual is the frame; the diff marks the one pixel.
            #expect(try PNG.read(contentsOf: actualPath) == RasterImage(Self.frame()))
            let diff = try PNG.read(contentsOf: diffPath)
            #expect(diff.rgba(x: 17, y: 9).r > 96 && diff.rgba(x: 17, y: 9).g == 0)
            #expect(diff.rgba(x: 16, y: 9).r == diff.rgba(x: 16, y: 9).g)
        }

        // Within the tolerance it passes, and the stale outputs are cleared away.
        try golden.verify(Self.frame(), named: "one-pixel", tolerance: ImageTolerance(maximumChannelDifference: 6))
        #expect(!scratch.exists("one-pixel.actual.png") && !scratch.exists("one-pixel.diff.png"))
    }

    @Test func psnrLimitAppliesToo() throws {
        let scratch = try Scratch()
        var expected = RasterImage(Self.frame())
        for x in 0..<40 { expected[x, 0] = [0, 0, 0, 255] }
        Self.record(expected, "psnr", in: scratch)
        let golden = Golden(directory: scratch.directory, isRecording: false)
        #expect(throws: GoldenFailure.self) {
            try golden.verify(Self.frame(), named: "psnr", tolerance: ImageTolerance(maximumChannelDifference: 255, minimumPSNR: 60))
        }
        try golden.verify(Self.frame(), named: "psnr", tolerance: ImageTolerance(maximumChannelDifference: 255, minimumPSNR: 20))
    }

    @Test func sizeMismatchIsReported() throws {
        let scratch = try Scratch()
        Self.record(RasterImage(width: 2, height: 2, layout: .rgb, filledWith: [1, 2, 3]), "size", in: scratch)
        #expect {
            try Golden(directory: scratch.directory, isRecording: false).verify(Self.frame(), named: "size")
        } throws: { error in
            "\(error)".contains("40x24") && "\(error)".contains("2x2")
        }
    }

    @Test(arguments: PixelFormat.allCases)
    func everyFormatRoundTripsThroughItsGolden(format: PixelFormat) throws {
        let scratch = try Scratch()
        let frame = SyntheticFrame.make(
            .checkerboard(cellSize: 3, first: Color(red: 1, green: 0.5, blue: 0), second: .black),
            width: 30, height: 20, format: format, counter: 5)
        Self.record(RasterImage(frame), "f", in: scratch)
        try Golden(directory: scratch.directory, isRecording: false).verify(frame, named: "f")
    }

    @Test func textGoldenFailsOnTheFirstDifferentLine() throws {
        let scratch = try Scratch()
        let recorder = Golden(directory: scratch.directory, isRecording: true)
        #expect(throws: GoldenFailure.self) { try recorder.verifyLines(["0/30 1/30 aa", "1/30 1/30 bb"], named: "t") }
        let golden = Golden(directory: scratch.directory, isRecording: false)
        try golden.verifyLines(["0/30 1/30 aa", "1/30 1/30 bb"], named: "t")
        #expect {
            try golden.verifyLines(["0/30 1/30 aa", "1/30 1/30 cc"], named: "t")
        } throws: { error in
            let text = "\(error)"
            return text.contains("line 2") && text.contains("\"1/30 1/30 bb\"") && text.contains("\"1/30 1/30 cc\"")
        }
        #expect(scratch.exists("t.actual.txt"))
        #expect {
            try golden.verifyLines(["0/30 1/30 aa"], named: "t")
        } throws: { error in
            "\(error)".contains("got end of output")
        }
    }

    @Test func goldenNextToASourceFile() {
        let golden = Golden(nextTo: "/src/Tests/FooTests/FooTests.swift", isRecording: false)
        #expect(golden.directory == "/src/Tests/FooTests/Goldens")
        #expect(golden.path("a.png") == "/src/Tests/FooTests/Goldens/a.png")
    }
}
