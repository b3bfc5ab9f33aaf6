import Foundation
import ReelCore
import ReelIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``AssetExportSession/fileLengthLimit``: the export is written beside the destination;
/// when it is longer than the limit, its own samples tell where it can end (a video
/// keyframe, or any sample of a file without video) and the range up to there is written
/// again, so the file ends with whole groups of pictures and is indexed as any other.
extension ExportJob {
    /// At most this many shorter writes are tried before giving up.
    private static let maximumShorterAttempts = 4

    /// Runs the export so that the file at ``url`` takes at most `limit` bytes.
    func run(withinLength limit: Int64) async throws(ReelError) {
        // The destination is checked before any work, as the writer checks it.
        _ = try AssetWriter(outputURL: url, fileType: fileType, overwrite: settings.overwrite)
        let range = try exportRange()
        let staging = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).reel-limit.\(url.pathExtension)")
        defer { unlink(staging.path) }

        try await writing(range, to: staging).run()
        var size = try Self.length(of: staging)
        if size > limit {
            let cuts = try await Self.cutPoints(in: staging)
            let scale = cuts.total > 0 ? Double(size) / Double(cuts.total) : 1
            // Latest first: the ends whose samples, with the file's overhead, fit.
            let fitting = cuts.points.reversed().filter { $0.time > .zero && Double($0.bytesBefore) * scale <= Double(limit) }
            var fitted = false
            for cut in fitting.prefix(Self.maximumShorterAttempts) {
                unlink(staging.path)
                // What the first write said (metadata not carried, ...) is not said again.
                try await writing(TimeRange(start: range.start, duration: cut.time), to: staging, quietly: true).run()
                size = try Self.length(of: staging)
                if size <= limit {
                    fitted = true
                    break
                }
            }
            guard fitted else {
                throw ReelError(
                    .outputFailed,
                    "the file length limit of \(limit) bytes is too small: not even the first "
                        + "group of pictures fits (the whole export takes \(size) bytes); nothing was written", path: url.path)
            }
        }
        if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled", path: url.path) }
        try moveIntoPlace(staging)
    }

    /// This job over `range`, writing to `destination`.
    private func writing(_ range: TimeRange, to destination: URL, quietly: Bool = false) -> ExportJob {
        var shorter = settings
        shorter.timeRange = range
        shorter.overwrite = false
        if quietly { shorter.engineOptions.diagnostics = { _ in } }
        return ExportJob(session: session, settings: shorter, url: destination, fileType: fileType)
    }

    /// Puts the staged file in place as every output is (``AtomicFile``: flushed, then
    /// renamed; a file that appeared meanwhile is kept unless overwriting).
    private func moveIntoPlace(_ staging: URL) throws(ReelError) {
        let file = try AtomicFile(url, replacing: settings.overwrite)
        guard rename(staging.path, file.temporaryURL.path) == 0 else {
            let code = errno
            throw ReelError(.outputFailed, "could not move the finished file into place (\(String(cString: strerror(code))))", path: url.path)
        }
        try file.commit()
    }

    private static func length(of file: URL) throws(ReelError) -> Int64 {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber else {
            throw ReelError(.outputFailed, "the exported file cannot be measured", path: file.path)
        }
        return size.int64Value
    }

    /// Where a file may end: before each keyframe of its first video track (each sample of
    /// its first track when it has no video), with the bytes of every track's samples that
    /// come before; and the bytes of all its samples.
    static func cutPoints(in file: URL) async throws(ReelError) -> (points: [(time: MediaTime, bytesBefore: Int64)], total: Int64) {
        let probe = try await AssetReader.open(url: file)
        guard let keyTrack = probe.tracks(withMediaType: .video).first ?? probe.tracks.first else {
            throw ReelError(.outputFailed, "the exported file has no tracks", path: file.path)
        }
        var samples: [(time: MediaTime, size: Int64)] = []
        var starts: [MediaTime] = []
        for track in probe.tracks {
            try await AssetReader.withReader(url: file) { reader throws(ReelError) in
                let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 32)
                try reader.add(output)
                try reader.startReading()
                while let sample = try await output.next() {
                    guard let buffer = sample.sampleBuffer, buffer.presentationTime.isNumeric else { continue }
                    samples.append((buffer.presentationTime, Int64(buffer.data.count)))
                    if track.trackID == keyTrack.trackID, buffer.isSync || keyTrack.mediaType != .video { starts.append(buffer.presentationTime) }
                }
            }
        }
        samples.sort { $0.time < $1.time }
        var points: [(time: MediaTime, bytesBefore: Int64)] = []
        var index = 0
        var bytes: Int64 = 0
        for start in Set(starts).sorted() {
            while index < samples.count, samples[index].time < start {
                bytes += samples[index].size
                index += 1
            }
            points.append((start, bytes))
        }
        return (points, samples.reduce(0) { $0 + $1.size })
    }
}
