internal import CFFmpeg
import Foundation
import ReelCore
import ReelMetadata

/// What kind of samples a stream holds, as the reader sees it.
enum StreamKind: Equatable {
    case video
    case audio
    /// Timed metadata, with the format its ``SampleBuffer``s carry.
    case metadata(MetadataFormat)
    case other
}

extension InputFormatContext {
    /// Whether the container numbers its tracks (MP4/MOV track IDs, MPEG-TS PIDs).
    private var hasContainerTrackIDs: Bool {
        (0..<streamCount).contains { stream($0).pointee.id != 0 }
    }

    /// The index of the stream with track ID `trackID`: the stream whose `AVStream.id`
    /// (the MP4/MOV track ID, the MPEG-TS PID) is `trackID`; when the container gives no
    /// IDs (Matroska), track IDs count from 1 in stream order, as 0 is never a valid
    /// track ID.
    func streamIndex(forTrackID trackID: Int32) -> Int? {
        if hasContainerTrackIDs {
            return (0..<streamCount).first { stream($0).pointee.id == trackID }
        }
        return trackID >= 1 && Int(trackID) <= streamCount ? Int(trackID) - 1 : nil
    }

    /// The track ID of the stream at `index` (see ``streamIndex(forTrackID:)``).
    func trackID(ofStreamAt index: Int) -> Int32 {
        hasContainerTrackIDs ? stream(index).pointee.id : Int32(index + 1)
    }

    /// What the stream at `index` holds. Metadata tracks are recognised by codec tag or
    /// codec id (FFmpeg sets no disposition on them).
    func kind(ofStreamAt index: Int) -> StreamKind {
        guard let par = stream(index).pointee.codecpar?.pointee else { return .other }
        let tag = fourCCString(par.codec_tag)
        switch AssetProbe.classify(par, tag: tag) {
        case .video:
            // Cover art is a video stream of one attached picture: not a track to decode.
            return stream(index).pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 ? .other : .video
        case .audio: return .audio
        default: return AssetProbe.metadataFormat(par, tag: tag).map { .metadata($0) } ?? .other
        }
    }

    /// A copy of the stream's codec parameters, to describe it after the file closes; for
    /// a `mebx` track, with the keys of its sample entry.
    func formatDescription(ofStreamAt index: Int) throws(ReelError) -> FormatDescription {
        let s = stream(index)
        var description: FormatDescription
        do {
            description = FormatDescription(
                parameters: try CodecParameters(
                    copying: s.pointee.codecpar, timeBase: s.pointee.time_base,
                    frameRate: s.pointee.avg_frame_rate))
        } catch {
            throw ReelError(.internalError, "could not copy the codec parameters", path: path, trackID: trackID(ofStreamAt: index), underlying: error)
        }
        if kind(ofStreamAt: index) == .metadata(.mebx) {
            description.metadataKeys = metadataKeys(trackID: trackID(ofStreamAt: index))
        }
        return description
    }

    /// The `mebx` keys of track `trackID`, from the file's own boxes (FFmpeg keeps no
    /// extradata for `mebx`), read through this demuxer's byte stream; empty when the
    /// boxes cannot be read, so the samples still come through raw.
    private func metadataKeys(trackID: Int32) -> [QuickTimeMetadataKey] {
        guard let tracks = try? movieFile()?.tracks(),
            let track = tracks.first(where: { Int64($0.trackID) == Int64(trackID) })
        else { return [] }
        return track.sampleEntries.first { $0.metadataFormat == .mebx }?.metadataKeys ?? []
    }

    /// When the keyframes of the stream at `index` show, in order, from the demuxer's index
    /// (`avformat_index_get_entry`); empty when it has none. MP4's index holds decode
    /// times: they are moved by the gap between the stream's start (its first presentation
    /// time) and its first shown entry, the reordering delay of the first keyframe.
    func keyframeTimes(ofStreamAt index: Int) -> [MediaTime] {
        let st = stream(index)
        let count = avformat_index_get_entries_count(st)
        guard count > 0 else { return [] }
        var stamps: [Int64] = []
        var first: Int64?
        for i in 0..<count {
            // Samples an edit list cuts away (AVINDEX_DISCARD_FRAME) are not shown.
            guard let entry = avformat_index_get_entry(st, i), entry.pointee.flags & AVINDEX_DISCARD_FRAME == 0 else { continue }
            if first == nil { first = entry.pointee.timestamp }
            if entry.pointee.flags & AVINDEX_KEYFRAME != 0 { stamps.append(entry.pointee.timestamp) }
        }
        let start = st.pointee.start_time
        let shift = start != reel_nopts_value() && first.map({ start > $0 }) == true ? start - (first ?? start) : 0
        let timeBase = st.pointee.time_base
        return stamps.sorted().map { MediaTime(ffmpeg: $0 &+ shift, timeBase: timeBase) }
    }

    /// Tells the demuxer to skip every stream but `index` (`AVStream.discard`).
    func discardAllStreams(except index: Int) {
        for i in 0..<streamCount {
            stream(i).pointee.discard = i == index ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }
}
