import Foundation

/// One entry of a track's edit list (`edts/elst`): a stretch of the movie timeline and
/// the media it shows (ISO/IEC 14496-12 8.6.6).
public struct MP4Edit: Sendable, Hashable {
    /// How long the edit lasts on the movie timeline, in the movie timescale (`mvhd`).
    public var segmentDuration: UInt64
    /// Where in the media the edit starts, in the track's timescale; -1 for an empty edit
    /// (nothing is shown for its duration).
    public var mediaTime: Int64
    /// The media rate, 16.16 fixed point: 0x10000 plays at normal speed, 0 holds
    /// (a dwell).
    public var mediaRate: Int32

    public init(segmentDuration: UInt64, mediaTime: Int64, mediaRate: Int32 = 0x10000) {
        self.segmentDuration = segmentDuration
        self.mediaTime = mediaTime
        self.mediaRate = mediaRate
    }

    /// Whether the edit shows nothing (`media_time` -1).
    public var isEmpty: Bool { mediaTime < 0 }

    /// Parses the body of an `elst` box (after its header).
    static func parseList(_ reader: ByteReader, track: String, offset: Int64) throws(ReelError) -> [MP4Edit] {
        var r = reader
        let version = try r.u8("elst version")
        try r.skip(3, "elst flags")
        let entrySize = version == 1 ? 20 : 12
        let count = Int(try r.u32be("elst entry count"))
        guard count <= r.remaining / entrySize else {
            throw .corrupt("MP4", "\(track) 'elst' says \(count) entries but has room for \(r.remaining / entrySize)", offset: Int(offset))
        }
        var edits: [MP4Edit] = []
        for _ in 0..<count {
            if version == 1 {
                let duration = try r.u64be("edit duration")
                let media = Int64(bitPattern: try r.u64be("edit media time"))
                edits.append(MP4Edit(segmentDuration: duration, mediaTime: media, mediaRate: Int32(bitPattern: try r.u32be("edit rate"))))
            } else {
                let duration = UInt64(try r.u32be("edit duration"))
                let media = Int64(Int32(bitPattern: try r.u32be("edit media time")))
                edits.append(MP4Edit(segmentDuration: duration, mediaTime: media, mediaRate: Int32(bitPattern: try r.u32be("edit rate"))))
            }
        }
        return edits
    }
}

extension MP4Track {
    /// Where `sample` is presented on the movie timeline, as players and FFmpeg place the
    /// track's other samples: its whole span, moved by the first edit that shows any of it
    /// (so a sample cut by the start of an edit begins before that edit). The sample's own
    /// time when the track has no edit list; nil when no edit shows it.
    ///
    /// `movieTimescale` is the `mvhd` timescale the edit durations count in. Dwell edits
    /// (rate 0) hold one picture and place no timed metadata.
    public func presentationTimeRange(of sample: MP4Sample, movieTimescale: UInt32) -> TimeRange? {
        let own = sample.timeRange
        guard !edits.isEmpty else { return own }
        guard movieTimescale > 0, movieTimescale <= UInt32(Int32.max), timescale > 0, timescale <= UInt32(Int32.max) else { return nil }
        var movieStart = MediaTime.zero
        for edit in edits {
            let length = MediaTime(value: Int64(clamping: edit.segmentDuration), timescale: Int32(movieTimescale))
            defer { movieStart = movieStart + length }
            guard !edit.isEmpty, edit.mediaRate != 0 else { continue }
            let mediaStart = MediaTime(value: edit.mediaTime, timescale: Int32(timescale))
            // An edit of duration 0 runs to the end of the media (ISO/IEC 14496-12).
            let mediaEnd = edit.segmentDuration == 0 ? MediaTime.positiveInfinity : mediaStart + length
            let shows =
                own.duration > .zero
                ? own.start < mediaEnd && mediaStart < own.end
                : !(own.start < mediaStart) && own.start < mediaEnd
            if shows {
                return TimeRange(start: movieStart + (own.start - mediaStart), duration: own.duration)
            }
        }
        return nil
    }
}

extension MP4Track {
    /// The track's edit list as time mappings (AVAssetTrack.segments): for each edit, the
    /// media it shows (`source`, in the track's timescale, from the edit's media time) over
    /// its stretch of the movie timeline (`target`, in `movieTimescale`), or an empty
    /// mapping for an empty edit. An edit of duration 0 runs to the end of the media; a
    /// dwell (rate 0) shows one instant of the media, so its source lasts 0; at another
    /// rate the source lasts the target's length times the rate. Empty when the track has
    /// no edit list or the timescales are out of range.
    public func timeMappings(movieTimescale: UInt32) -> [TimeMapping] {
        guard movieTimescale > 0, movieTimescale <= UInt32(Int32.max), timescale > 0, timescale <= UInt32(Int32.max) else { return [] }
        let movie = Int32(movieTimescale), media = Int32(timescale)
        var start = MediaTime(value: 0, timescale: movie)
        var mappings: [TimeMapping] = []
        for edit in edits {
            var length = MediaTime(value: Int64(clamping: edit.segmentDuration), timescale: movie)
            if edit.isEmpty {
                if length > .zero { mappings.append(TimeMapping(emptyTarget: TimeRange(start: start, duration: length))) }
                start = start + length
                continue
            }
            let mediaStart = MediaTime(value: edit.mediaTime, timescale: media)
            if edit.segmentDuration == 0 {
                let mediaEnd = MediaTime(value: Int64(clamping: duration), timescale: media)
                guard edit.mediaRate == 0x10000, mediaStart < mediaEnd else { continue }
                length = mediaEnd - mediaStart
            }
            let sourceLength: MediaTime =
                switch edit.mediaRate {
                case 0x10000: length.convertScale(media)
                case ...0: MediaTime(value: 0, timescale: media)
                default: MediaTime(seconds: length.seconds * Double(edit.mediaRate) / 0x10000, preferredTimescale: media)
                }
            mappings.append(
                TimeMapping(
                    source: TimeRange(start: mediaStart, duration: sourceLength),
                    target: TimeRange(start: start, duration: length)))
            start = start + length
        }
        return mappings
    }
}

extension MP4File {
    /// The movie timescale (`mvhd`): the units of edit-list durations.
    public func movieTimescale() throws(ReelError) -> UInt32 {
        let (box, bytes) = try moov()
        do throws(ReelError) {
            let children = try MP4Box.parse(bytes, range: box.headerSize..<bytes.count, base: box.offset, parent: "moov")
            guard let mvhd = children.first(where: { $0.type == "mvhd" }) else {
                throw ReelError.corrupt("MP4", "'moov' has no 'mvhd'", offset: Int(box.offset))
            }
            var r = ByteReader(
                bytes, range: Int(mvhd.payloadRange.lowerBound - box.offset)..<Int(mvhd.payloadRange.upperBound - box.offset), format: "MP4 'mvhd'")
            let version = try r.u8("mvhd version")
            try r.skip(3 + (version == 1 ? 16 : 8), "mvhd times")
            return try r.u32be("movie timescale")
        } catch {
            throw ReelError(error.code, error.message, path: path)
        }
    }
}
