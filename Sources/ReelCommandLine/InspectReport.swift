import Foundation
import Reel

/// What `reel inspect` prints: a stable, documented shape (docs/inspect-json.md) built
/// from an asset's loaded properties, rendered as JSON or as text.
struct InspectReport: Codable, Equatable {
    /// A time, exact and in seconds: `{"seconds": 2.0, "value": 30720, "timescale": 15360, "exact": "30720/15360"}`.
    struct Time: Codable, Equatable {
        var seconds: Double
        var value: Int64
        var timescale: Int32
        var exact: String

        /// Nil for a time that is not a number (invalid, indefinite, infinite).
        init?(_ time: MediaTime) {
            guard time.isNumeric else { return nil }
            seconds = time.seconds
            value = time.value
            timescale = time.timescale
            exact = "\(time.value)/\(time.timescale)"
        }
    }

    struct Container: Codable, Equatable {
        var format: String
        var formatLongName: String?
        var fileSize: Int64?
        var bitRate: Int64?
        var startTime: Time?
    }

    struct Item: Codable, Equatable {
        var identifier: String
        var value: String

        init(_ item: MetadataItem) {
            identifier = item.identifier.rawValue
            value = item.stringValue ?? item.dataValue.map { "<\($0.count) bytes>" } ?? ""
        }
    }

    struct Transform: Codable, Equatable {
        var a, b, c, d, tx, ty: Double
    }

    struct Segment: Codable, Equatable {
        /// Nil for an empty edit.
        var sourceStart: Time?
        var targetStart: Time?
        var duration: Time?
    }

    struct Track: Codable, Equatable {
        var trackID: Int32
        var index: Int
        var mediaType: String
        var codec: String
        var format: String
        var handler: String?
        var language: String?
        var enabled: Bool
        /// What the container flags: `containsOnlyForcedSubtitles`, `dubbedTranslation`, ...
        var characteristics: [String]?
        var timescale: Int32
        var startTime: Time?
        var duration: Time?
        var sampleCount: Int?
        /// The SMPTE timecode of the first frame (video and timecode tracks).
        var timecode: String?
        var estimatedDataRate: Double?
        var profile: String?
        // Video.
        var width: Int?
        var height: Int?
        var pixelFormat: String?
        var nominalFrameRate: Double?
        var minFrameDuration: Time?
        var rotation: Double?
        var preferredTransform: Transform?
        // Audio.
        var sampleRate: Int?
        var channels: Int?
        var channelLayout: String?
        var sampleFormat: String?
        var segments: [Segment]
        var metadata: [Item]

        init(_ track: AssetTrack) {
            let fd = track.formatDescriptions.first
            trackID = track.trackID
            index = track.index
            mediaType = track.mediaType.description
            codec = track.codec
            format = track.format
            handler = track.handlerName
            language = track.languageCode
            enabled = track.isEnabled
            characteristics = track.flaggedCharacteristics.isEmpty ? nil : track.flaggedCharacteristics.map(\.rawValue)
            timescale = track.naturalTimeScale
            startTime = Time(track.timeRange.start)
            duration = Time(track.timeRange.duration)
            sampleCount = track.sampleCount
            timecode = [.video, .timecode].contains(track.mediaType) ? track.startTimecode?.description : nil
            estimatedDataRate = track.estimatedDataRate > 0 ? Double(track.estimatedDataRate) : nil
            profile = fd?.profile
            if track.mediaType == .video {
                width = fd?.dimensions?.width
                height = fd?.dimensions?.height
                pixelFormat = fd?.pixelFormat
                nominalFrameRate = Double(track.nominalFrameRate)
                minFrameDuration = Time(track.minFrameDuration)
                rotation = track.rotationDegrees
                let t = track.preferredTransform
                preferredTransform = Transform(a: t.a, b: t.b, c: t.c, d: t.d, tx: t.tx, ty: t.ty)
            }
            sampleRate = fd?.sampleRate
            channels = fd?.channelCount
            channelLayout = fd?.channelLayout
            sampleFormat = fd?.sampleFormat
            segments = track.segments.map {
                Segment(
                    sourceStart: $0.isEmpty ? nil : Time($0.source.start), targetStart: Time($0.target.start),
                    duration: Time($0.target.duration))
            }
            metadata = track.metadata.map(Item.init)
        }
    }

    /// A track of captions or subtitles, and whether Reel reads its samples
    /// (AssetReaderOutputCaptionAdaptor).
    struct CaptionTrack: Codable, Equatable {
        var trackID: Int32
        var format: String
        var language: String?
        var readable: Bool
    }

    struct Chapter: Codable, Equatable {
        var start: Time?
        var end: Time?
        var title: String?
    }

    var file: String
    var container: Container
    var duration: Time?
    var tracks: [Track]
    var captions: [CaptionTrack]
    var metadata: [Item]
    var commonMetadata: [Item]
    var chapters: [Chapter]

    /// The format a video track's closed captions are listed with.
    static let closedCaptionFormat = "eia_608 in video"

    /// `closedCaptionVideoTrackIDs`: the video tracks whose pictures carry CEA-608 captions
    /// (SEI), listed among the captions.
    init(
        file: String, format: ContainerFormat, duration: MediaTime, tracks: [AssetTrack],
        metadata: [MetadataItem], commonMetadata: [MetadataItem], chapters: [TimedMetadataGroup], closedCaptionVideoTrackIDs: [Int32] = []
    ) {
        self.file = file
        container = Container(
            format: format.name, formatLongName: format.longName, fileSize: format.fileSize,
            bitRate: format.bitRate, startTime: Time(format.startTime))
        self.duration = Time(duration)
        self.tracks = tracks.map(Track.init)
        captions =
            tracks.filter { $0.hasMediaCharacteristic(.legible) }.map { track in
                let format = track.format
                return CaptionTrack(
                    trackID: track.trackID, format: format, language: track.languageCode,
                    readable: [format, track.codec].contains { CaptionSample.readableFormats.contains($0) || CEA608Stream.formats.contains($0) })
            } + closedCaptionVideoTrackIDs.map { CaptionTrack(trackID: $0, format: Self.closedCaptionFormat, language: nil, readable: true) }
        self.metadata = metadata.map(Item.init)
        self.commonMetadata = commonMetadata.map(Item.init)
        self.chapters = chapters.map { group in
            Chapter(
                start: Time(group.timeRange.start), end: Time(group.timeRange.end),
                title: group.item(.commonIdentifierTitle)?.stringValue)
        }
    }

    /// Pretty-printed JSON with sorted keys: the same input always prints the same text.
    func jsonText() throws(ReelError) -> String {
        try JSONOutput.text(self, describing: "the report", path: file)
    }

    /// The readable form: a header, one line per track, then metadata and chapters.
    func text() -> String {
        var out = ""
        var head = "\(file): \(container.formatLongName ?? container.format) (\(container.format))"
        if let size = container.fileSize { head += ", \(size) bytes" }
        if let rate = container.bitRate { head += ", \(rate / 1000) kb/s" }
        out += head + "\n"
        out += "duration: \(Self.describe(duration))"
        if let start = container.startTime, start.value != 0 { out += ", starts at \(Self.describe(start))" }
        out += "\n"
        out += "tracks: \(tracks.count)\n"
        for track in tracks { out += "  " + Self.describe(track) + "\n" }
        if !captions.isEmpty {
            out +=
                "captions: "
                + captions.map { c in
                    "track \(c.trackID) (" + ([c.format, c.language ?? "no language"] + (c.readable ? [] : ["not readable by Reel"])).joined(separator: ", ")
                        + ")"
                }.joined(separator: "; ") + "\n"
        }
        if !metadata.isEmpty {
            out += "metadata:\n"
            for item in metadata { out += "  \(item.identifier): \(item.value)\n" }
        }
        if !commonMetadata.isEmpty {
            out += "common metadata:\n"
            for item in commonMetadata { out += "  \(item.identifier): \(item.value)\n" }
        }
        if !chapters.isEmpty {
            out += "chapters:\n"
            for (n, chapter) in chapters.enumerated() {
                out += "  \(n + 1). \(Self.describe(chapter.start)) to \(Self.describe(chapter.end))"
                out += chapter.title.map { ": \($0)" } ?? ""
                out += "\n"
            }
        }
        return out
    }

    static func describe(_ time: Time?) -> String {
        guard let time else { return "unknown" }
        var s = String(format: "%.6f", time.seconds)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return "\(s) s (\(time.exact))"
    }

    static func describe(_ t: Track) -> String {
        var parts: [String] = []
        var codec = t.codec
        var detail = [t.format == t.codec ? nil : t.format, t.profile].compactMap { $0 }
        if detail.isEmpty == false { codec += " (\(detail.joined(separator: ", ")))" }
        detail = []
        parts.append(codec)
        if let w = t.width, let h = t.height { parts.append("\(w)x\(h)") }
        if let p = t.pixelFormat { parts.append(p) }
        if let fps = t.nominalFrameRate, fps > 0 { parts.append(String(format: "%.4g fps", fps)) }
        if let r = t.rotation, r != 0 { parts.append(String(format: "rotated %g°", r)) }
        if let rate = t.sampleRate { parts.append("\(rate) Hz") }
        if let ch = t.channels {
            parts.append("\(ch) channel\(ch == 1 ? "" : "s")" + (t.channelLayout.map { " (\($0))" } ?? ""))
        }
        if let sf = t.sampleFormat { parts.append(sf) }
        parts.append("from \(describe(t.startTime)) for \(describe(t.duration))")
        if let n = t.sampleCount { parts.append("\(n) sample\(n == 1 ? "" : "s")") }
        if let tc = t.timecode { parts.append("timecode \(tc)") }
        if let h = t.handler { parts.append("handler \"\(h)\"") }
        if let l = t.language { parts.append("language \(l)") }
        if !t.enabled { parts.append("disabled") }
        parts += t.characteristics ?? []
        return "track \(t.trackID) [#\(t.index)] \(t.mediaType): " + parts.joined(separator: ", ")
    }
}
