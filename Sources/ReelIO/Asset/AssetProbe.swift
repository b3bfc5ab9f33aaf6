internal import CFFmpeg
import Foundation
import ReelCore

/// Reads what an ``Asset`` needs from one opened file: container, tracks, tags and
/// chapters. Header data only (`avformat_open_input` + `avformat_find_stream_info`);
/// packets are read only when precise timing is asked for. Runs on the asset's I/O queue.
enum AssetProbe {
    static func read(_ source: AssetSource) throws(ReelError) -> AssetSnapshot {
        let context = try source.open()
        defer { source.giveBack(context) }
        let path = NetworkInput.location(source.url)
        let ctx = context.pointer
        let family = ContainerFamily(formatName: context.formatName)
        let fileSize: Int64? = ctx.pointee.pb.map { avio_size($0) }.flatMap { $0 > 0 ? $0 : nil }

        if context.streamCount == 0 {
            throw ReelError(.unsupportedFormat, "no audio, video or data tracks found", path: path)
        }
        if family == .quickTime, let fileSize { try checkNotTruncated(context, fileSize: fileSize, path: path) }

        let formatStart = MediaTime(ffmpeg: ctx.pointee.start_time, timeBase: AVRational(timescale: reel_time_base()))
        let (headerTracks, containerDuration, origin) = try tracks(context, family: family)
        var tracks = headerTracks
        if source.options.preferPreciseDurationAndTiming {
            try refineTiming(&tracks, context: context, path: path)
        }
        settle(&tracks, origin: origin)

        var format = ContainerFormat(
            name: context.formatName,
            longName: ctx.pointee.iformat.pointee.long_name.map { String(cString: $0) },
            fileSize: fileSize,
            bitRate: ctx.pointee.bit_rate > 0 ? ctx.pointee.bit_rate : nil,
            startTime: formatStart.isNumeric ? formatStart : .zero)
        // FFmpeg's HTTP protocol can seek only when the server answers a `Range:` request
        // with its range (206, `Content-Range`); a server that sends the whole file each time
        // leaves a byte stream that reads forward only.
        format.isSeekable = ctx.pointee.pb.map { $0.pointee.seekable & AVIO_SEEKABLE_NORMAL != 0 } ?? true
        return AssetSnapshot(
            format: format,
            duration: duration(
                of: tracks, container: containerDuration, origin: origin,
                precise: source.options.preferPreciseDurationAndTiming),
            tracks: tracks,
            metadata: ContainerMetadata.items(from: containerTags(ctx), family: family),
            chapters: chapters(ctx, family: family),
            pictures: pictures(context, family: family))
    }

    // MARK: Tracks

    /// Every stream of an opened file as a track, from the headers alone (no packets read),
    /// with the container's duration and the timeline's origin. ``AssetReader`` lists these;
    /// ``read(_:)`` refines their timing first when asked.
    static func tracks(_ context: InputFormatContext, family: ContainerFamily) throws(ReelError)
        -> (tracks: [AssetTrack], containerDuration: MediaTime, origin: MediaTime)
    {
        let ctx = context.pointer
        let formatStart = MediaTime(ffmpeg: ctx.pointee.start_time, timeBase: AVRational(timescale: reel_time_base()))
        let containerDuration = MediaTime(ffmpeg: ctx.pointee.duration, timeBase: AVRational(timescale: reel_time_base()))
        // The timeline starts at zero in MP4/MOV; elsewhere at the earliest timestamp, taken
        // exactly from the streams (the container's own start is rounded to microseconds).
        var origin: MediaTime = .zero
        if family != .quickTime {
            let starts = (0..<context.streamCount).map { i in
                let st = context.stream(i)
                return MediaTime(ffmpeg: st.pointee.start_time, timeBase: st.pointee.time_base)
            }.filter(\.isNumeric)
            origin = starts.min(by: <) ?? (formatStart.isNumeric ? formatStart : .zero)
        }
        var tracks: [AssetTrack] = []
        for index in 0..<context.streamCount {
            tracks.append(try track(context, index: index, family: family, containerDuration: containerDuration, origin: origin))
        }
        return (tracks, containerDuration, origin)
    }

    /// Each track's edit segments on the timeline, and the associations between tracks.
    static func settle(_ tracks: inout [AssetTrack], origin: MediaTime) {
        for i in tracks.indices { tracks[i].segments = segments(for: tracks[i].timeRange, origin: origin) }
        associate(&tracks)
    }

    static func track(
        _ context: InputFormatContext, index: Int, family: ContainerFamily,
        containerDuration: MediaTime, origin: MediaTime
    ) throws(ReelError) -> AssetTrack {
        let st = context.stream(index)
        let par = st.pointee.codecpar.pointee
        let timeBase = st.pointee.time_base
        let streamTags = tags(st.pointee.metadata)
        let description = try context.formatDescription(ofStreamAt: index)
        let mediaType = classify(par, tag: description.codecTag)
        let isCoverPicture = st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        let handler = streamTags.first { $0.key == "handler_name" }?.value
            .trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters))
        let naturalSize = description.dimensions.map { Size(width: $0.width, height: $0.height) } ?? .zero

        let timeRange = trackTimeRange(st, containerDuration: containerDuration, origin: origin)
        let isVideo = mediaType == .video
        return AssetTrack(
            trackID: context.trackID(ofStreamAt: index),
            index: index,
            mediaType: mediaType,
            formatDescriptions: [description],
            metadataFormat: metadataFormat(par, tag: description.codecTag),
            handlerName: handler?.isEmpty == false ? handler : nil,
            naturalSize: naturalSize,
            preferredTransform: displayMatrix(st) ?? .identity,
            nominalFrameRate: isVideo ? Float(rate(st.pointee.avg_frame_rate) ?? rate(st.pointee.r_frame_rate) ?? 0) : 0,
            minFrameDuration: isVideo ? minFrameDuration(st, in: context, family: family) : .invalid,
            timeRange: timeRange,
            naturalTimeScale: timeBase.num == 1 ? timeBase.den : timeRange.duration.timescale,
            segments: [],
            estimatedDataRate: Float(description.bitRate),
            languageCode: streamTags.first { $0.key == "language" }?.value,
            metadata: ContainerMetadata.items(from: streamTags, family: family),
            startTimecode: startTimecode(streamTags, context: context, isVideo: isVideo),
            isEnabled: family == .quickTime ? st.pointee.disposition & AV_DISPOSITION_DEFAULT != 0 : true,
            sampleCount: st.pointee.nb_frames > 0 ? Int(st.pointee.nb_frames) : nil,
            isDecodable: avcodec_find_decoder(par.codec_id) != nil,
            isPlayable: avcodec_find_decoder(par.codec_id) != nil && !isCoverPicture
                && [.video, .audio, .text, .subtitle].contains(mediaType),
            flags: characteristics(disposition: st.pointee.disposition),
            isMarkedDefault: st.pointee.disposition & AV_DISPOSITION_DEFAULT != 0,
            isCoverPicture: isCoverPicture,
            associations: [:],
            source: nil,
            timeBase: (timeBase.num, timeBase.den))
    }

    /// A stream's `timecode` tag, else for video the container's (FFmpeg puts an MXF
    /// file's or an MPEG-2 stream's there); nil when neither reads as a timecode.
    static func startTimecode(_ streamTags: [(key: String, value: String)], context: InputFormatContext, isVideo: Bool) -> Timecode? {
        if let value = streamTags.first(where: { $0.key == "timecode" })?.value { return Timecode(value) }
        guard isVideo else { return nil }
        return tags(context.pointer.pointee.metadata).first { $0.key == "timecode" }.flatMap { Timecode($0.value) }
    }

    /// What a stream holds: the one classification of ``Asset``'s and ``AssetReader``'s
    /// tracks. Video (cover pictures too: they are flagged), audio and subtitles by codec
    /// type (3GPP timed text is `.text`, and so is a chapter track); data tracks by sample entry or codec: FFmpeg
    /// marks no metadata track as such (no `AV_DISPOSITION_METADATA`).
    static func classify(_ par: AVCodecParameters, tag: String?) -> MediaType {
        switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: return .video
        case AVMEDIA_TYPE_AUDIO: return .audio
        case AVMEDIA_TYPE_SUBTITLE:
            return par.codec_id == AV_CODEC_ID_MOV_TEXT ? .text : .subtitle
        case AVMEDIA_TYPE_ATTACHMENT: return .attachment
        default:
            // A QuickTime chapter track: FFmpeg reads its samples as the chapters and hands
            // the track on as data. It is a text track, as AVFoundation has it, not timed metadata.
            if tag == "text" || tag == "tx3g", par.codec_id == AV_CODEC_ID_BIN_DATA { return .text }
            if let tag, MetadataFormat(knownCode: tag) != nil { return .metadata }
            if par.codec_id == AV_CODEC_ID_BIN_DATA || par.codec_id == AV_CODEC_ID_SMPTE_KLV
                || par.codec_id == AV_CODEC_ID_TIMED_ID3
            {
                return .metadata
            }
            if tag == "tmcd" { return .timecode }
            return .data
        }
    }

    /// The characteristics FFmpeg's dispositions flag (MP4 `kind` boxes, Matroska flags,
    /// MPEG-TS descriptors).
    static func characteristics(disposition: Int32) -> Set<MediaCharacteristic> {
        let table: [(Int32, [MediaCharacteristic])] = [
            (AV_DISPOSITION_FORCED, [.containsOnlyForcedSubtitles]),
            (AV_DISPOSITION_HEARING_IMPAIRED, [.describesMusicAndSoundForAccessibility, .transcribesSpokenDialogForAccessibility]),
            (AV_DISPOSITION_CAPTIONS, [.describesMusicAndSoundForAccessibility, .transcribesSpokenDialogForAccessibility]),
            (AV_DISPOSITION_VISUAL_IMPAIRED, [.describesVideoForAccessibility]),
            (AV_DISPOSITION_DESCRIPTIONS, [.describesVideoForAccessibility]),
            (AV_DISPOSITION_DUB, [.dubbedTranslation]),
            (AV_DISPOSITION_ORIGINAL, [.isOriginalContent]),
            (AV_DISPOSITION_COMMENT, [.isAuxiliaryContent]),
        ]
        return Set(table.filter { disposition & $0.0 != 0 }.flatMap(\.1))
    }

    /// The format of the samples of a timed-metadata stream Reel decodes, which its
    /// ``SampleBuffer``s carry: by codec for KLV, else by sample entry (`gpmd`, `mebx`,
    /// `camm`), else `gpmd` for FFmpeg's binary data; nil for any other stream, timed ID3
    /// included (its samples come through as they are).
    static func metadataFormat(_ par: AVCodecParameters, tag: String?) -> MetadataFormat? {
        guard par.codec_type != AVMEDIA_TYPE_VIDEO, par.codec_type != AVMEDIA_TYPE_AUDIO,
            classify(par, tag: tag) != .text
        else { return nil }  // a chapter track is no metadata
        if par.codec_id == AV_CODEC_ID_SMPTE_KLV { return .klv }
        if let tag, let format = MetadataFormat(knownCode: tag), format != .klv { return format }
        return par.codec_id == AV_CODEC_ID_BIN_DATA ? .gpmd : nil
    }

    /// Start and duration in the stream's time base; a missing duration falls back to the
    /// container's.
    static func trackTimeRange(_ st: UnsafeMutablePointer<AVStream>, containerDuration: MediaTime, origin: MediaTime) -> TimeRange {
        let tb = st.pointee.time_base
        var start = MediaTime(ffmpeg: st.pointee.start_time, timeBase: tb)
        if !start.isNumeric { start = origin }
        var duration = MediaTime(ffmpeg: st.pointee.duration, timeBase: tb)
        if !duration.isNumeric || duration < .zero, let tagged = taggedDuration(st) {
            // Matroska keeps a stream's duration in its DURATION tag.
            duration = tagged.convertScale(tb.num == 1 ? tb.den : tagged.timescale, method: .roundHalfAwayFromZero)
        }
        if !duration.isNumeric || duration < .zero {
            duration = containerDuration.isNumeric ? MediaTime.maximum(.zero, containerDuration - (start - origin)) : .invalid
        }
        return TimeRange(start: start, duration: duration)
    }

    /// A `DURATION` tag such as `00:00:01.000000000` (Matroska), exactly, in nanoseconds.
    static func taggedDuration(_ st: UnsafeMutablePointer<AVStream>) -> MediaTime? {
        guard let entry = av_dict_get(st.pointee.metadata, "DURATION", nil, 0) else { return nil }
        let text = String(cString: entry.pointee.value)
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Int64(parts[0]), let m = Int64(parts[1]) else { return nil }
        let secondParts = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard let s = Int64(secondParts[0]), secondParts.count <= 2 else { return nil }
        var nanos: Int64 = 0
        if secondParts.count == 2 {
            let digits = String(secondParts[1].prefix(9))
            guard let f = Int64(digits), digits.allSatisfy(\.isNumber) else { return nil }
            nanos = f * Int64(pow(10.0, Double(9 - digits.count)))
        }
        // Bounded so the sum below cannot overflow whatever the tag says.
        guard (0..<100_000).contains(h), (0..<100_000).contains(m), (0..<10_000_000).contains(s) else { return nil }
        return MediaTime(value: ((h * 60 + m) * 60 + s) * 1_000_000_000 + nanos, timescale: 1_000_000_000)
    }

    static func rate(_ r: AVRational) -> Double? {
        r.num > 0 && r.den > 0 ? Double(r.num) / Double(r.den) : nil
    }

    /// The shortest gap between shown samples in the MP4/MOV sample table when it has one;
    /// otherwise one frame at the rate FFmpeg guesses the stream's frames come at
    /// (`av_guess_frame_rate`, the ffmpeg CLI's output rate). Its base rate (`r_frame_rate`)
    /// is the field rate of interlaced H.264 (59.94 for 1080i's 29.97 frames a second), on
    /// which a render would show each frame twice.
    static func minFrameDuration(
        _ st: UnsafeMutablePointer<AVStream>, in context: InputFormatContext, family: ContainerFamily
    ) -> MediaTime {
        let tb = st.pointee.time_base
        if family == .quickTime {
            let count = avformat_index_get_entries_count(st)
            if count >= 2 {
                var previous: Int64? = nil
                var smallest: Int64 = .max
                for i in 0..<count {
                    // Samples an edit list cuts away (AVINDEX_DISCARD_FRAME) are not shown.
                    guard let entry = avformat_index_get_entry(st, i), entry.pointee.flags & AVINDEX_DISCARD_FRAME == 0
                    else { continue }
                    let ts = entry.pointee.timestamp
                    if let previous, ts > previous {
                        let (gap, overflow) = ts.subtractingReportingOverflow(previous)
                        if !overflow { smallest = min(smallest, gap) }
                    }
                    previous = ts
                }
                if smallest != .max { return MediaTime(ffmpeg: smallest, timeBase: tb) }
            }
        }
        let r = av_guess_frame_rate(context.pointer, st, nil)
        guard r.num > 0, r.den > 0 else { return .invalid }
        return MediaTime(value: Int64(r.den), timescale: r.num)
    }

    /// The display matrix (`AV_PKT_DATA_DISPLAYMATRIX`, the MP4 `tkhd` matrix) as a
    /// transform: `x' = a x + c y + tx`, `y' = b x + d y + ty`, 16.16 fixed point.
    static func displayMatrix(_ st: UnsafeMutablePointer<AVStream>) -> Transform2D? {
        var size = 0
        guard let raw = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 9 * 4 else { return nil }
        var m = [Int32](repeating: 0, count: 9)
        m.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: 9 * 4)) }
        let one = 65536.0
        return Transform2D(
            a: Double(m[0]) / one, b: Double(m[1]) / one, c: Double(m[3]) / one,
            d: Double(m[4]) / one, tx: Double(m[6]) / one, ty: Double(m[7]) / one)
    }

    /// An empty edit from the timeline's origin to the track's start, then the media.
    static func segments(for range: TimeRange, origin: MediaTime) -> [TimeMapping] {
        guard range.isValid else { return [] }
        var result: [TimeMapping] = []
        if origin < range.start {
            result.append(TimeMapping(emptyTarget: TimeRange(start: origin, end: range.start)))
        }
        result.append(TimeMapping(source: range, target: range))
        return result
    }

    /// FFmpeg does not expose `tref`: a metadata track is taken to describe the first video
    /// track, and a video track's timecode is the file's timecode track.
    static func associate(_ tracks: inout [AssetTrack]) {
        let video = tracks.first { $0.mediaType == .video }?.trackID
        let timecodes = tracks.filter { $0.mediaType == .timecode }.map(\.trackID)
        for i in tracks.indices {
            if tracks[i].mediaType == .metadata, let video { tracks[i].associations[.metadataReferent] = [video] }
            if tracks[i].mediaType == .video, !timecodes.isEmpty { tracks[i].associations[.timecode] = timecodes }
        }
    }

    /// The container's duration, exact when a track ends exactly there.
    static func duration(of tracks: [AssetTrack], container: MediaTime, origin: MediaTime, precise: Bool) -> MediaTime {
        let ends = tracks.compactMap { t -> MediaTime? in
            let end = t.timeRange.end
            return end.isNumeric ? end - origin : nil
        }
        if precise, let longest = ends.max(by: <) { return longest }
        guard container.isNumeric else { return ends.max(by: <) ?? .invalid }
        let tolerance = MediaTime(value: 1, timescale: 1_000_000)
        if let exact = ends.first(where: { ($0 - container).magnitude <= tolerance }) { return exact }
        return container
    }

    // MARK: Integrity

    /// A moov-first MP4 cut short still opens: check that every sample lies inside the file.
    static func checkNotTruncated(_ context: InputFormatContext, fileSize: Int64, path: String) throws(ReelError) {
        for index in 0..<context.streamCount {
            let st = context.stream(index)
            let count = avformat_index_get_entries_count(st)
            var end: Int64 = 0
            for i in 0..<count {
                guard let entry = avformat_index_get_entry(st, i) else { continue }
                let (sampleEnd, overflow) = entry.pointee.pos.addingReportingOverflow(Int64(entry.pointee.size))
                end = max(end, overflow ? .max : sampleEnd)
            }
            if end > fileSize {
                throw ReelError(
                    .corruptData,
                    "the file is cut short: track \(st.pointee.id)'s samples run to byte \(end), the file ends at byte \(fileSize)",
                    path: path)
            }
        }
    }

    // MARK: Precise timing

    /// Reads every packet (no decoding) for exact start and end times, the shortest frame
    /// gap and the data rate of each track.
    static func refineTiming(_ tracks: inout [AssetTrack], context: InputFormatContext, path: String) throws(ReelError) {
        struct Span { var first: Int64 = .max; var end: Int64 = .min; var pts: [Int64] = []; var bytes: Int64 = 0 }
        var spans = [Span](repeating: Span(), count: tracks.count)
        let packet = Packet()
        let nopts = reel_nopts_value()
        while try context.readPacket(into: packet) {
            defer { packet.unref() }
            let i = Int(packet.streamIndex)
            guard spans.indices.contains(i) else { continue }
            spans[i].bytes += Int64(packet.pointer.pointee.size)
            let pts = packet.pts
            guard pts != nopts else { continue }
            spans[i].first = min(spans[i].first, pts)
            let (end, overflow) = pts.addingReportingOverflow(max(0, packet.duration))
            spans[i].end = max(spans[i].end, overflow ? pts : end)
            if tracks[i].mediaType == .video { spans[i].pts.append(pts) }
        }
        for i in tracks.indices where spans[i].first != .max {
            let tb = AVRational(num: tracks[i].timeBase.num, den: tracks[i].timeBase.den)
            let start = MediaTime(ffmpeg: spans[i].first, timeBase: tb)
            let end = MediaTime(ffmpeg: spans[i].end, timeBase: tb)
            tracks[i].timeRange = TimeRange(start: start, end: end)
            let seconds = tracks[i].timeRange.duration.seconds
            if seconds > 0 { tracks[i].estimatedDataRate = Float(Double(spans[i].bytes * 8) / seconds) }
            let sorted = spans[i].pts.sorted()
            var smallest: Int64 = .max
            for (a, b) in zip(sorted, sorted.dropFirst()) where b > a {
                let (gap, overflow) = b.subtractingReportingOverflow(a)
                if !overflow { smallest = min(smallest, gap) }
            }
            if smallest != .max { tracks[i].minFrameDuration = MediaTime(ffmpeg: smallest, timeBase: tb) }
        }
    }

    // MARK: Tags and chapters

    /// The cover pictures FFmpeg found (streams with `AV_DISPOSITION_ATTACHED_PIC`, whose
    /// `attached_pic` packet holds the picture: ID3 `APIC`, MP4 `covr`, FLAC and Matroska
    /// covers), as artwork items of the container's key space.
    static func pictures(_ context: InputFormatContext, family: ContainerFamily) -> [MetadataItem] {
        var items: [MetadataItem] = []
        for index in 0..<context.streamCount {
            let st = context.stream(index)
            let packet = st.pointee.attached_pic
            guard st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0, let bytes = packet.data, packet.size > 0 else { continue }
            let identifier: MetadataIdentifier =
                switch family {
                case .id3: MetadataIdentifier(keySpace: .id3, key: "APIC")
                case .quickTime: MetadataIdentifier(keySpace: .iTunes, key: "covr")
                default: MetadataIdentifier(keySpace: .container, key: "cover")
                }
            let types: [AVCodecID: String] = [AV_CODEC_ID_PNG: "PNG", AV_CODEC_ID_MJPEG: "JPEG", AV_CODEC_ID_BMP: "BMP", AV_CODEC_ID_GIF: "GIF"]
            let type = types[st.pointee.codecpar.pointee.codec_id].map { "com.apple.metadata.datatype." + $0 }
            items.append(MetadataItem(identifier: identifier, value: .data(Data(bytes: bytes, count: Int(packet.size))), dataType: type))
        }
        return items
    }

    /// The container's tags, then its programs' tags not already there (MPEG-TS keeps
    /// `service_name` and `service_provider` on the program).
    static func containerTags(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> [(key: String, value: String)] {
        var result = tags(ctx.pointee.metadata)
        guard let programs = ctx.pointee.programs else { return result }
        for i in 0..<Int(ctx.pointee.nb_programs) {
            guard let program = programs[i] else { continue }
            for tag in tags(program.pointee.metadata) where !result.contains(where: { $0.key == tag.key }) {
                result.append(tag)
            }
        }
        return result
    }

    /// The entries of an `AVDictionary`, in order (`av_dict_get` with an empty key).
    static func tags(_ dict: OpaquePointer?) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(dict, "", entry.map { UnsafePointer($0) }, AV_DICT_IGNORE_SUFFIX) {
            result.append((String(cString: next.pointee.key), String(cString: next.pointee.value)))
            entry = next
        }
        return result
    }

    /// The container's chapters (`AVFormatContext.chapters`), each a group with a
    /// `common/title` item plus its other tags.
    static func chapters(_ ctx: UnsafeMutablePointer<AVFormatContext>, family: ContainerFamily) -> [TimedMetadataGroup] {
        guard let list = ctx.pointee.chapters else { return [] }
        var groups: [TimedMetadataGroup] = []
        for i in 0..<Int(ctx.pointee.nb_chapters) {
            guard let chapter = list[i] else { continue }
            let tb = chapter.pointee.time_base
            let start = MediaTime(ffmpeg: chapter.pointee.start, timeBase: tb)
            let end = MediaTime(ffmpeg: chapter.pointee.end, timeBase: tb)
            guard start.isNumeric, end.isNumeric else { continue }
            let chapterTags = tags(chapter.pointee.metadata)
            var items: [MetadataItem] = []
            if let title = chapterTags.first(where: { $0.key.lowercased() == "title" })?.value {
                items.append(MetadataItem(identifier: .commonIdentifierTitle, value: .string(title), time: start, duration: end - start))
            }
            for item in ContainerMetadata.items(from: chapterTags, family: family) where item.key.lowercased() != "title" {
                var timed = item
                timed.time = start
                timed.duration = end - start
                items.append(timed)
            }
            groups.append(TimedMetadataGroup(timeRange: TimeRange(start: start, end: end), items: items))
        }
        return groups
    }
}
