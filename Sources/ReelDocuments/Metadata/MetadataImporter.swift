import Foundation
import Reel

/// Adds a GPS track from a GPX or CSV file to a video as a GPMF (`gpmd`) track, copying
/// the video and audio without re-encoding: what `reel metadata import` does.
///
/// ```swift
/// let importer = MetadataImporter(trackURL: gpx, videoURL: clip)
/// let result = try await importer.write(to: out, options: .init(offset: 0.5))
/// ```
///
/// The file is read with ReelMetadata's `GPX/fixes(from:)` or
/// `TelemetryCSV/groups(from:)`. Placing the points on the video's timeline: a GPX
/// point's time (UTC) minus the video's creation time, plus ``Options/offset``; a CSV
/// row's `time` (media seconds) plus the offset. Points
/// outside `[0, duration)` are left out. Each point becomes a group lasting until the
/// next one; GPS fixes go into GPMF payloads (GPS9 next to GPS5 when every point has a
/// time, else GPS5: ``gpsFormat(for:requested:)``) of ``Options/payloadDuration`` through
/// `AssetWriterInputMetadataAdaptor/appendGPS(_:payloadDuration:options:)`, the first
/// starting at the first fix (an empty payload covers the time before it). Points
/// without a speed get the speed between them and the next point.
///
/// GPMF readers spread a payload's fixes evenly across its span, so fixes read back at
/// their own times when they are evenly spaced and a payload holds a whole number of
/// intervals. The last payload ends with the video, so the fixes in it read back at
/// times off by up to one interval when the track runs past the video's end.
public struct MetadataImporter: Sendable {
    public struct Options: Sendable, Hashable {
        /// Seconds added to every point's media time.
        public var offset: Double
        /// Replace an existing output file.
        public var overwrite: Bool
        /// The span of one GPMF payload (one sample of the track).
        public var payloadDuration: MediaTime
        /// GPS5 (every GoPro reader), GPS9 (a UTC time, DOP and fix per fix) or both; nil
        /// (auto): GPS9 next to GPS5 when every fix written has a time, else GPS5. No
        /// GPMF GPS stream stores a course: a track's courses are not written.
        public var gpsFormat: GPMFWriter.GPSFormat?
        /// The track's format: `auto` (GoPro GPMF in MP4 and MOV, MISB ST 0601 KLV in
        /// MPEG-TS), or `gpmd`, `mebx` (QuickTime, one ISO 6709 location a sample), `camm`
        /// (one CAMM GPS record a sample) or `klv`.
        public var metadataFormat: MetadataOutputFormat

        public init(
            offset: Double = 0, overwrite: Bool = false, payloadDuration: MediaTime = MediaTime(value: 1, timescale: 1),
            gpsFormat: GPMFWriter.GPSFormat? = nil, metadataFormat: MetadataOutputFormat = .auto
        ) {
            self.offset = offset
            self.overwrite = overwrite
            self.payloadDuration = payloadDuration
            self.gpsFormat = gpsFormat
            self.metadataFormat = metadataFormat
        }
    }

    /// What an import wrote.
    public struct Result: Sendable {
        /// The fixes written.
        public var fixCount: Int
        /// The points of the track file left out because they fall outside the video.
        public var omittedCount: Int
        /// The span of the GPS track on the video's timeline.
        public var timeRange: TimeRange
        /// Things the caller may want to tell the user (tracks not copied, how points were placed).
        public var notes: [String]
        /// The GPS stream written.
        public var gpsFormat: GPMFWriter.GPSFormat
    }

    /// The GPS streams to write `groups`' fixes as: `requested`, or when nil, GPS9 next to
    /// GPS5 (as HERO11+ cameras write them) when every fix has a time, GPS9 keeping each
    /// fix's UTC time, DOP (99.99 when unknown) and fix type, and GPS5 alone otherwise (one
    /// GPSU, GPSF and GPSP per payload). Courses are not kept: GPS5 and GPS9 have none.
    public static func gpsFormat(for groups: [TimedMetadataGroup], requested: GPMFWriter.GPSFormat? = nil) -> GPMFWriter.GPSFormat {
        if let requested { return requested }
        let fixes = groups.compactMap { GPSFix($0) }
        return !fixes.isEmpty && fixes.allSatisfy { $0.time != nil } ? .gps5AndGPS9 : .gps5
    }

    public let trackURL: URL
    public let videoURL: URL

    public init(trackURL: URL, videoURL: URL) {
        self.trackURL = trackURL
        self.videoURL = videoURL
    }

    /// The points of the track file, GPX or CSV by its extension.
    func readPoints() throws(ReelError) -> (points: [GPSTrackPoint], isGPX: Bool) {
        let path = trackURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ReelError(.fileNotFound, "no such file", path: path)
        }
        guard !isDirectory.boolValue else { throw ReelError(.notAFile, "this is a folder, not a GPX or CSV file", path: path) }
        let isGPX: Bool
        switch trackURL.pathExtension.lowercased() {
        case "gpx": isGPX = true
        case "csv": isGPX = false
        default: throw ReelError(.unsupportedFormat, "not a track file Reel reads: use a .gpx or .csv file", path: path)
        }
        let data: Data
        do { data = try Data(contentsOf: trackURL) } catch {
            throw ReelError(.unreadable, "could not read the file", path: path, underlying: error)
        }
        guard !data.isEmpty else { throw ReelError(.metadataFormat, "the file is empty", path: path) }
        var points: [GPSTrackPoint] = []
        do {
            if isGPX {
                for (i, fix) in try GPX.fixes(from: data).enumerated() {
                    points.append(GPSTrackPoint(fix: fix, mediaTime: nil, label: "trkpt \(i + 1)"))
                }
            } else {
                for (i, group) in try TelemetryCSV.groups(from: data).enumerated() {
                    guard let fix = GPSFix(group) else { continue }
                    points.append(GPSTrackPoint(fix: fix, mediaTime: group.timeRange.start.seconds, label: "row \(i + 1)"))
                }
            }
        } catch {
            var located = error
            if located.path == nil { located.path = path }
            throw located
        }
        guard !points.isEmpty else {
            throw ReelError(.metadataFormat, isGPX ? "no track points (<trkpt>)" : "no rows after the header", path: path)
        }
        return (points, isGPX)
    }

    /// The GPS groups on the video's timeline (`[0, duration)`), with what was left out
    /// and notes on how points were placed.
    func groups(points: [GPSTrackPoint], duration: MediaTime, creationDate: Date?, options: Options)
        throws(ReelError) -> (groups: [TimedMetadataGroup], omitted: Int, notes: [String])
    {
        var notes: [String] = []
        guard options.offset.isFinite, abs(options.offset) < 1e9 else {
            throw ReelError(.invalidArgument, "the offset \(options.offset) s is not a usable number of seconds")
        }
        let firstGPSTime = points.compactMap(\.fix.time).min()
        if creationDate == nil, points.contains(where: { $0.mediaTime == nil }) {
            notes.append("\(videoURL.lastPathComponent) has no creation time: the track's first point is placed at 0 s (plus --offset)")
        }
        let origin = creationDate ?? firstGPSTime
        func seconds(_ p: GPSTrackPoint) -> Double? {
            if let t = p.mediaTime { return t + options.offset }
            guard let time = p.fix.time, let origin else { return nil }
            return time.timeIntervalSince(origin) + options.offset
        }
        var placed: [(seconds: Double, point: GPSTrackPoint)] = []
        for p in points {
            guard let s = seconds(p), s.isFinite, abs(s) < 1e9 else {
                throw ReelError(.metadataFormat, "\(p.label) has no time, so it cannot be placed on the video's timeline", path: trackURL.path)
            }
            placed.append((s, p))
        }
        placed.sort { $0.seconds < $1.seconds }
        let filled = GPSTrackPoint.fillingSpeeds(placed.map(\.point), times: placed.map(\.seconds))
        // Media times in milliseconds: the gpmd track's time base.
        var timed: [(time: MediaTime, fix: GPSFix)] = []
        var omitted = 0
        for (i, point) in filled.enumerated() {
            let time = MediaTime(value: Int64((placed[i].seconds * 1000).rounded()), timescale: 1000)
            guard !(time < .zero), time < duration else {
                omitted += 1
                continue
            }
            if let last = timed.last, !(last.time < time) {
                omitted += 1
                continue
            }
            timed.append((time, point.fix))
        }
        guard !timed.isEmpty else {
            let span = "\(DecimalText.seconds(placed.first?.seconds ?? 0)) s to \(DecimalText.seconds(placed.last?.seconds ?? 0)) s"
            let basis =
                points.contains { $0.mediaTime == nil }
                ? creationDate.map { "point times against the video's creation time \(MetadataJSONDocument.utc($0))" } ?? "the first point at 0 s"
                : "the time column as media seconds"
            throw ReelError(
                .invalidArgument,
                "no point falls within the video (0 s to \(duration.secondsDescription)): the track runs from \(span) on the video's timeline (\(basis), plus --offset \(DecimalText.string(options.offset)) s)",
                path: trackURL.path)
        }
        var groups: [TimedMetadataGroup] = []
        for (i, entry) in timed.enumerated() {
            var end: MediaTime
            if i + 1 < timed.count {
                end = timed[i + 1].time
            } else if i > 0 {
                end = entry.time + (entry.time - timed[i - 1].time)
            } else {
                end = entry.time + options.payloadDuration
            }
            end = MediaTime.minimum(end, duration)
            if !(entry.time < end) { end = entry.time + MediaTime(value: 1, timescale: 1000) }
            let range = TimeRange(start: entry.time, end: end)
            groups.append(TimedMetadataGroup(timeRange: range, items: entry.fix.metadataItems(time: range.start, duration: range.duration)))
        }
        return (groups, omitted, notes)
    }

    /// Writes the video with the GPS track added to `outputURL` (`.mp4` or `.mov`),
    /// written beside it and moved into place when complete.
    ///
    /// - Throws: `.fileNotFound`, `.metadataFormat` (bad GPX/CSV, naming the line),
    ///   `.unsupportedFormat` (the video has no video track), `.invalidArgument` (no
    ///   point within the video, a bad output type), `.outputExists` (the output exists
    ///   and `overwrite` is false), and the reader's and writer's errors.
    public func write(to outputURL: URL, options: Options = Options()) async throws(ReelError) -> Result {
        let fileType: AssetWriter.FileType
        switch outputURL.pathExtension.lowercased() {
        case "mp4", "m4v": fileType = .mp4
        case "mov": fileType = .mov
        case "ts", "m2ts": fileType = .mpegts
        default:
            throw ReelError(.invalidArgument, "the output must be an .mp4, .mov or .ts file", path: outputURL.path)
        }
        let trackFormat = try options.metadataFormat.resolve(sourceFormats: [], fileType: fileType, path: outputURL.path).format
        if outputURL.standardizedFileURL.path == videoURL.standardizedFileURL.path {
            throw ReelError(.invalidArgument, "the output would replace the video it is made from: write another file", path: outputURL.path)
        }
        if !options.overwrite, FileManager.default.fileExists(atPath: outputURL.path) {
            throw ReelError(.outputExists, "the output file exists", path: outputURL.path)
        }
        let (points, _) = try readPoints()
        let asset = Asset(url: videoURL)
        let (duration, tracks, common, chapters) = try await asset.load(.duration, .tracks, .commonMetadata, .chapters)
        guard tracks.contains(where: { $0.mediaType == .video }) else {
            throw ReelError(.unsupportedFormat, "the file has no video track to add a GPS track to", path: videoURL.path)
        }
        guard duration.isNumeric, duration > .zero else {
            throw ReelError(.unsupportedFormat, "the video has no duration", path: videoURL.path)
        }
        let creation = common.first { $0.identifier == .commonIdentifierCreationDate }?.dateValue
        var (groups, omitted, notes) = try groups(points: points, duration: duration, creationDate: creation, options: options)
        let format = Self.gpsFormat(for: groups, requested: options.gpsFormat)

        let reader = try await AssetReader.open(url: videoURL)
        // From long before zero: keep packets a stream copy needs that come before the
        // media's start (AAC priming).
        reader.timeRange = TimeRange(start: MediaTime(value: -1_000_000, timescale: 1), duration: .positiveInfinity)
        let writer = try AssetWriter(outputURL: outputURL, fileType: fileType, overwrite: options.overwrite)
        writer.metadata = common
        writer.chapters = chapters
        var copies: [(output: AssetReaderTrackOutput, input: AssetWriterInput)] = []
        for track in reader.tracks {
            guard track.mediaType == .video || track.mediaType == .audio, !track.isCoverPicture else {
                // The video's start timecode writes the timecode track again.
                if track.mediaType == .timecode, fileType == .mp4 || fileType == .mov,
                    tracks.contains(where: { $0.mediaType == .video && $0.startTimecode != nil })
                {
                    continue
                }
                // The chapters are written again from the file's chapter list.
                if track.isChapterList, AssetWriter.canWriteChapters(into: fileType) { continue }
                notes.append(
                    "track \(track.trackID) (\(track.metadataFormat?.rawValue ?? track.formatDescription.codecName)) of \(videoURL.lastPathComponent) is not copied: only video and audio are"
                )
                continue
            }
            let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 32)
            try reader.add(output)
            guard let description = output.formatDescription else { continue }
            let input = AssetWriterInput(settings: .passthrough(description))
            if let source = tracks.first(where: { $0.trackID == track.trackID }), track.mediaType == .video {
                input.transform = source.preferredTransform
                if fileType == .mp4 || fileType == .mov { input.startTimecode = source.startTimecode }
            }
            try writer.add(input)
            copies.append((output, input))
        }
        let gps = AssetWriterInput(settings: .metadata(format: trackFormat))
        try writer.add(gps)
        let adaptor = try AssetWriterInputMetadataAdaptor(assetWriterInput: gps)
        do {
            try reader.startReading()
            try await writer.start()
            writer.startSession(atSourceTime: .zero)
            // The track starts with the video: a payload without fixes until the first one
            // (FFmpeg's MP4 muxer loses the last sample's duration of a track that starts late).
            if trackFormat == .gpmd {
                if let first = groups.first?.timeRange.start, first > .zero {
                    let empty = try GPMFWriter.payload(fixes: [], options: GPMFWriter.Options(format: format))
                    try await gps.append(SampleBuffer(data: empty, presentationTime: .zero, duration: first, format: .gpmd))
                }
                try await adaptor.appendGPS(groups, payloadDuration: options.payloadDuration, options: GPMFWriter.Options(format: format))
            } else {
                for group in groups { try await adaptor.append(group) }
            }
            gps.markAsFinished()
            try await copyInterleaved(copies)
            try await writer.finishWriting()
        } catch {
            reader.cancelReading()
            await writer.cancel()
            var located = error
            if located.path == nil { located.path = outputURL.path }
            throw located
        }
        let range = TimeRange(start: groups.first?.timeRange.start ?? .zero, end: groups.last?.timeRange.end ?? .zero)
        groups.removeAll()
        return Result(fixCount: points.count - omitted, omittedCount: omitted, timeRange: range, notes: notes, gpsFormat: format)
    }

    /// Copies every track's packets, always appending the one that decodes first, so the
    /// muxer gets them interleaved.
    private func copyInterleaved(_ copies: [(output: AssetReaderTrackOutput, input: AssetWriterInput)]) async throws(ReelError) {
        func next(_ output: AssetReaderTrackOutput) async throws(ReelError) -> SampleBuffer? {
            while let sample = try await output.next() {
                if let buffer = sample.sampleBuffer { return buffer }
            }
            return nil
        }
        func order(_ s: SampleBuffer) -> MediaTime { s.decodeTime.isNumeric ? s.decodeTime : s.presentationTime }
        var heads: [SampleBuffer?] = []
        for copy in copies { heads.append(try await next(copy.output)) }
        while true {
            var best: Int?
            for (i, head) in heads.enumerated() {
                guard let head else { continue }
                if let b = best, let current = heads[b], !(order(head) < order(current)) { continue }
                best = i
            }
            guard let i = best, let sample = heads[i] else { break }
            try await copies[i].input.append(sample)
            heads[i] = try await next(copies[i].output)
        }
        for copy in copies { copy.input.markAsFinished() }
    }
}
