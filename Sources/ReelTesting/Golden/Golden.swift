import Foundation
import ReelCore

/// Checks frames and text against golden files kept next to the tests.
///
/// ```swift
/// let goldens = Golden(packageDirectory: "Fixtures/goldens")   // under the package root
/// try goldens.verify(frame, named: "pip-at-2s", tolerance: .init(maximumChannelDifference: 2))
/// try goldens.verifyLines(hashLines, named: "crossfade")
/// ```
///
/// An image golden is `NAME.png`; a mismatch writes `NAME.actual.png` and
/// `NAME.diff.png` beside it and throws a ``GoldenFailure`` giving the maximum channel
/// difference, the PSNR and the first differing pixel. A text golden is `NAME.txt`,
/// compared line by line; a mismatch writes `NAME.actual.txt`.
///
/// With `RECORD_GOLDENS=1` in the environment, every verify call writes the golden
/// instead and then throws ``GoldenFailure/Reason/recorded(path:)``: a recording run
/// always fails, so it cannot pass by accident. Run again without the variable.
public struct Golden: Sendable {
    /// The folder holding the golden files.
    public var directory: String
    /// Whether verify calls record instead of compare.
    public var isRecording: Bool

    /// Whether the environment asks for recording (`RECORD_GOLDENS` set to `1`, `true` or `yes`).
    public static var recordingRequested: Bool {
        guard let v = ProcessInfo.processInfo.environment["RECORD_GOLDENS"]?.lowercased() else { return false }
        return ["1", "true", "yes"].contains(v)
    }

    /// Goldens in `directory`, recorded instead of compared when `isRecording` (by default
    /// when ``recordingRequested``).
    public init(directory: String, isRecording: Bool = Golden.recordingRequested) {
        self.directory = directory
        self.isRecording = isRecording
    }

    /// Goldens in `folder` beside the source file `filePath` (pass `#filePath`).
    public init(nextTo filePath: String, folder: String = "Goldens", isRecording: Bool = Golden.recordingRequested) {
        let dir = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent(folder).path
        self.init(directory: dir, isRecording: isRecording)
    }

    /// Goldens in `relativePath` under the package root: the nearest folder above
    /// `filePath` (pass `#filePath`, the default) that holds a `Package.swift`.
    ///
    /// Keep goldens outside the test target's folder (such as `Fixtures/goldens`):
    /// SwiftPM warns about files in a target it does not know what to do with.
    public init(
        packageDirectory relativePath: String, filePath: String = #filePath,
        isRecording: Bool = Golden.recordingRequested
    ) {
        var dir = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir = dir.deletingLastPathComponent()
        }
        self.init(directory: dir.appendingPathComponent(relativePath).path, isRecording: isRecording)
    }

    /// The path of a file in ``directory``.
    public func path(_ fileName: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent(fileName).path
    }

    // MARK: Images

    /// Checks a frame against `NAME.png` (see ``RasterImage/init(_:)`` for how each
    /// format becomes an image).
    public func verify(_ frame: PixelBuffer, named name: String, tolerance: ImageTolerance = .exact) throws(GoldenFailure) {
        try verify(RasterImage(frame), named: name, tolerance: tolerance)
    }

    /// Checks an image against `NAME.png`.
    public func verify(_ image: RasterImage, named name: String, tolerance: ImageTolerance = .exact) throws(GoldenFailure) {
        let goldenPath = path("\(name).png")
        let actualPath = path("\(name).actual.png"), diffPath = path("\(name).diff.png")
        if isRecording {
            try write(PNG.encode(image), to: goldenPath, name: name)
            removeIfPresent(actualPath)
            removeIfPresent(diffPath)
            throw GoldenFailure(name: name, reason: .recorded(path: goldenPath))
        }
        guard FileManager.default.fileExists(atPath: goldenPath) else {
            throw GoldenFailure(name: name, reason: .missing(path: goldenPath))
        }
        let expected: RasterImage
        do {
            expected = try PNG.read(contentsOf: goldenPath)
        } catch {
            throw GoldenFailure(name: name, reason: .unreadable(error))
        }
        guard expected.width == image.width, expected.height == image.height else {
            try write(PNG.encode(image), to: actualPath, name: name)
            throw GoldenFailure(
                name: name,
                reason: .sizeMismatch(
                    expected: (expected.width, expected.height),
                    actual: (image.width, image.height), actualPath: actualPath))
        }
        let comparison = ImageComparison(expected: expected, actual: image)
        if comparison.isWithin(tolerance) {
            removeIfPresent(actualPath)
            removeIfPresent(diffPath)
            return
        }
        try write(PNG.encode(image), to: actualPath, name: name)
        try write(PNG.encode(ImageComparison.differenceImage(expected: expected, actual: image)), to: diffPath, name: name)
        throw GoldenFailure(
            name: name,
            reason: .imageMismatch(
                comparison, tolerance: tolerance,
                actualPath: actualPath, diffPath: diffPath))
    }

    // MARK: Text

    /// Checks lines of text against `NAME.txt` (one line each, `\n` endings).
    public func verifyLines(_ lines: [String], named name: String) throws(GoldenFailure) {
        let goldenPath = path("\(name).txt"), actualPath = path("\(name).actual.txt")
        let text = lines.map { $0 + "\n" }.joined()
        if isRecording {
            try write(Array(text.utf8), to: goldenPath, name: name)
            removeIfPresent(actualPath)
            throw GoldenFailure(name: name, reason: .recorded(path: goldenPath))
        }
        guard let data = FileManager.default.contents(atPath: goldenPath) else {
            throw GoldenFailure(name: name, reason: .missing(path: goldenPath))
        }
        var expected = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
        if expected.last == "" { expected.removeLast() }
        if expected == lines {
            removeIfPresent(actualPath)
            return
        }
        let firstDifference = zip(expected, lines).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(expected.count, lines.count)
        try write(Array(text.utf8), to: actualPath, name: name)
        throw GoldenFailure(
            name: name,
            reason: .textMismatch(
                line: firstDifference + 1,
                expected: firstDifference < expected.count ? expected[firstDifference] : nil,
                actual: firstDifference < lines.count ? lines[firstDifference] : nil,
                expectedLineCount: expected.count, actualLineCount: lines.count, actualPath: actualPath))
    }

    // MARK: Files

    private func write(_ bytes: [UInt8], to path: String, name: String) throws(GoldenFailure) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw GoldenFailure(
                name: name,
                reason: .unreadable(
                    ReelError(
                        .outputFailed, "cannot create the goldens folder",
                        path: directory, underlying: error)))
        }
        do throws(ReelError) {
            try AtomicFile.write(Data(bytes), to: URL(fileURLWithPath: path), replacing: true)
        } catch {
            throw GoldenFailure(name: name, reason: .unreadable(error))
        }
    }

    private func removeIfPresent(_ path: String) {
        if FileManager.default.fileExists(atPath: path) { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// Why a golden check failed. Its description is the whole story in one paragraph.
public struct GoldenFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, with the paths of the files concerned.
    public enum Reason: Sendable {
        /// Recording mode wrote the golden; the run fails so that it is repeated without it.
        case recorded(path: String)
        /// There is no golden file yet.
        case missing(path: String)
        /// The golden could not be read (or an output could not be written).
        case unreadable(ReelError)
        /// The image is not the golden's size.
        case sizeMismatch(expected: (width: Int, height: Int), actual: (width: Int, height: Int), actualPath: String)
        /// The image differs from the golden beyond the tolerance.
        case imageMismatch(ImageComparison, tolerance: ImageTolerance, actualPath: String, diffPath: String)
        /// The text differs from the golden, first at 1-based `line`.
        case textMismatch(
            line: Int, expected: String?, actual: String?, expectedLineCount: Int,
            actualLineCount: Int, actualPath: String)
    }

    /// The golden's name.
    public var name: String
    /// What went wrong.
    public var reason: Reason

    public var description: String {
        switch reason {
        case .recorded(let path):
            return "golden \(name): recorded \(path), run again without RECORD_GOLDENS"
        case .missing(let path):
            return "golden \(name): no golden file at \(path); run once with RECORD_GOLDENS=1 to record it"
        case .unreadable(let error):
            return "golden \(name): \(error)"
        case .sizeMismatch(let e, let a, let actualPath):
            return "golden \(name): image is \(a.width)x\(a.height), the golden is \(e.width)x\(e.height); actual written to \(actualPath)"
        case .imageMismatch(let comparison, let tolerance, let actualPath, let diffPath):
            return "golden \(name): image differs beyond tolerance (\(tolerance)): \(comparison); "
                + "actual written to \(actualPath), difference to \(diffPath)"
        case .textMismatch(let line, let expected, let actual, let expectedCount, let actualCount, let actualPath):
            return "golden \(name): line \(line) differs: expected \(expected.map { "\"\($0)\"" } ?? "end of file"), "
                + "got \(actual.map { "\"\($0)\"" } ?? "end of output") (\(expectedCount) lines expected, \(actualCount) produced); "
                + "actual written to \(actualPath)"
        }
    }
}
