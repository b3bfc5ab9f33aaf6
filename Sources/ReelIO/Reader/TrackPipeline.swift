internal import CFFmpeg
import Foundation
import ReelCore

/// The demux/decode loop of one reader output, run on a thread of its own: reads the
/// track's packets from its own opened file (the reader's probed one for its first
/// output), decodes and converts them as the output's
/// settings ask, and pushes the results into the output's bounded queue (blocking there
/// when the consumer is behind).
///
/// A time range starts frame-exactly: the loop seeks to the keyframe at or before the
/// start, decodes from there, and drops what ends before the start. A sample is
/// delivered when `[pts, pts + duration)` overlaps the range (samples without a duration
/// when `pts` is inside it; samples without a pts, such as asynchronous KLV, always).
final class TrackPipeline {
    let input: InputFormatContext
    let streamIndex: Int
    let trackID: Int32
    let kind: StreamKind
    let settings: AssetReaderTrackOutput.Settings
    private(set) var start: MediaTime
    private(set) var end: MediaTime
    private(set) var queue: BoundedQueue<AssetReaderSample>
    private let timeBase: AVRational
    private let formatName: String
    private var decoder: Decoder?
    private var scaler: Scaler?
    private var pool: PixelBufferPool?
    private var resampler: Resampler?
    private let fallbackFrameDuration: MediaTime
    /// For an MP4/QuickTime metadata track: each sample's place through the edit list.
    private let metadataTimes: MetadataSampleTimes?
    /// A metadata sample waiting for the next one, which gives its duration when the
    /// container does not (fragmented MP4, MPEG-TS).
    private var heldSample: SampleBuffer?
    /// Whether the next metadata packet without a time is the track's first, read from
    /// its start (no seek): it is placed at the stream's start, and a decoder places the
    /// ones after it by their own time stamps relative to it (asynchronous KLV).
    private var untimedPacketStartsTrack = true

    /// A loop reading track `trackID` of `input`, which it then owns. Made on the output's
    /// own thread: it reads the MP4 boxes of a metadata track (through `movie`, once per
    /// reader) and opens the decoder. ``check(_:track:path:)`` has already run.
    init(input: InputFormatContext, trackID: Int32, settings: AssetReaderTrackOutput.Settings, timeRange: TimeRange,
         queue: BoundedQueue<AssetReaderSample>, movie: MetadataSampleTimes.Movie) throws(ReelError) {
        guard let index = input.streamIndex(forTrackID: trackID) else {
            throw ReelError(.invalidArgument, "the file has no such track", path: input.path, trackID: trackID)
        }
        self.input = input
        self.streamIndex = index
        self.trackID = trackID
        self.kind = input.kind(ofStreamAt: index)
        self.settings = settings
        self.start = timeRange.start
        self.end = timeRange.end
        self.queue = queue
        let stream = input.stream(index)
        self.timeBase = stream.pointee.time_base
        let rate = stream.pointee.avg_frame_rate
        self.fallbackFrameDuration = rate.num > 0 && rate.den > 0 ? MediaTime(value: Int64(rate.den), timescale: rate.num) : .invalid
        let isQuickTime = ContainerFamily(formatName: input.formatName) == .quickTime
        switch kind {
        case .metadata(let format):
            formatName = format.rawValue
            metadataTimes = isQuickTime ? movie.sampleTimes(trackID: trackID) : nil
        default:
            metadataTimes = nil
            formatName = fourCCString(stream.pointee.codecpar.pointee.codec_tag)
            ?? String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id))
        }
        try configure()
        input.discardAllStreams(except: index)
    }

    /// Checks that `settings` fit `track` without touching the file: the track's kind, the
    /// output size, and that a decoder exists for its codec (``AssetTrack/isDecodable``,
    /// from `avcodec_find_decoder`). ``AssetReader/startReading()`` throws what this throws.
    static func check(_ settings: AssetReaderTrackOutput.Settings, track: AssetTrack, path: String) throws(ReelError) {
        switch settings {
        case .passthrough:
            return
        case .video(_, let width, let height):
            // Cover art is a video stream of one attached picture: not a track to decode.
            guard track.mediaType == .video, !track.isCoverPicture else {
                throw ReelError(.invalidArgument, "track is not a video track: use .passthrough or .audioPCM", path: path, trackID: track.trackID)
            }
            if let width, let height, width <= 0 || height <= 0 || width > 16384 || height > 16384 {
                throw ReelError(.invalidArgument, "output size \(width)x\(height) is out of range", path: path, trackID: track.trackID)
            }
        case .audioPCM:
            guard track.mediaType == .audio else {
                throw ReelError(.invalidArgument, "track is not an audio track: use .video or .passthrough", path: path, trackID: track.trackID)
            }
        }
        guard track.isDecodable else {
            throw ReelError(.decoderFailed, "no decoder for \(track.formatDescription.codecName) in this FFmpeg", path: path, trackID: track.trackID)
        }
    }

    /// Opens the decoder the settings need (``check(_:track:path:)`` has passed).
    private func configure() throws(ReelError) {
        let stream = input.stream(streamIndex)
        switch settings {
        case .passthrough:
            return
        case .video:
            // Slice threads for the conversion: it then overlaps the decoder's frame threads.
            scaler = Scaler(threads: 0)
        case .audioPCM:
            break
        }
        do {
            let made = try Decoder(parameters: stream.pointee.codecpar, timeBase: timeBase)
            decoder = made
            if case .audioPCM = settings { resampler = try Resampler(decoder: made.pointer) }
        } catch {
            throw ReelError(.decoderFailed, "could not open a decoder for \(String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id)))",
                            path: input.path, trackID: trackID, underlying: error)
        }
    }

    /// The loop: runs until the track or the range ends, the consumer cancels, or an
    /// error, which it returns. The caller then finishes the queue.
    func run() -> ReelError? {
        do throws(ReelError) { try seekToStart() } catch { return error }
        return readToEnd()
    }

    /// Reads `timeRange` next, into `queue`, with the same opened file and decoder: seeks
    /// the demuxer to the keyframe at or before its start (`avformat_seek_file`), or at or
    /// before `seekTime` when that is later (frames before it are then not wanted, though
    /// the range starts earlier), empties the decoder (`avcodec_flush_buffers`), then runs
    /// as ``run()`` does. What the last range left half-read is dropped.
    func run(timeRange: TimeRange, seekingTo seekTime: MediaTime? = nil, into queue: BoundedQueue<AssetReaderSample>) -> ReelError? {
        start = timeRange.start
        end = timeRange.end
        self.queue = queue
        heldSample = nil
        decoder?.flush()
        do throws(ReelError) {
            let streamStart = input.stream(streamIndex).pointee.start_time
            let target = seekTime.flatMap { $0.isNumeric && $0 > start ? $0 : nil } ?? start
            let wanted = target.isNumeric ? target.ffmpegTimestamp(in: timeBase, method: .roundTowardNegativeInfinity) : nil
            var ts = wanted ?? (streamStart != reel_nopts_value() ? streamStart : 0)
            if streamStart != reel_nopts_value(), ts < streamStart { ts = streamStart }
            untimedPacketStartsTrack = streamStart != reel_nopts_value() && ts <= streamStart
            try input.seek(streamIndex: Int32(streamIndex), timestamp: ts)
        } catch {
            return error
        }
        return readToEnd()
    }

    private func readToEnd() -> ReelError? {
        do throws(ReelError) {
            let packet = Packet()
            let frame = Frame()
            var done = false
            while !done, try input.readPacket(into: packet) {
                defer { packet.unref() }
                if queue.isCancelled { return nil }
                guard packet.streamIndex == Int32(streamIndex) else { continue }
                if let decoder {
                    if case .video = settings {
                        // A picture shown wholly before the range is decoded only if others
                        // refer to it: after a seek, about half of the frames up to the one
                        // asked for are B-frames nothing refers to.
                        let skip = endsBeforeStart(packet)
                        if decoder.skipsNonReferenceFrames != skip { decoder.skipsNonReferenceFrames = skip }
                    }
                    done = try decode(packet, with: decoder, into: frame)
                } else {
                    done = try passThrough(packet)
                }
            }
            if !done, let decoder { _ = try decode(nil, with: decoder, into: frame) }
            if !done { try releaseHeldSample(before: streamEnd) }
            return nil
        } catch {
            return error
        }
    }

    /// Whether the packet's picture is shown and gone before the range starts (by its
    /// time stamp and duration); false when it has no time stamp.
    private func endsBeforeStart(_ packet: Packet) -> Bool {
        guard start.isNumeric, start > .zero, packet.pts != reel_nopts_value() else { return false }
        let duration = packet.duration > 0 ? MediaTime(ffmpeg: packet.duration, timeBase: timeBase) : fallbackFrameDuration
        guard duration.isNumeric, duration > .zero else { return false }
        return !(MediaTime(ffmpeg: packet.pts, timeBase: timeBase) + duration > start)
    }

    private func seekToStart() throws(ReelError) {
        guard start.isNumeric, start > .zero, let ts = start.ffmpegTimestamp(in: timeBase, method: .roundTowardNegativeInfinity) else { return }
        let streamStart = input.stream(streamIndex).pointee.start_time
        if streamStart != reel_nopts_value(), ts <= streamStart { return }
        untimedPacketStartsTrack = false
        try input.seek(streamIndex: Int32(streamIndex), timestamp: ts)
    }

    private func decodeError(_ error: FFmpegError) -> ReelError {
        ReelError(.decoderFailed, "could not decode", path: input.path, trackID: trackID, underlying: error)
    }

    /// Whether a sample at `pts` lasting `duration` overlaps the range; `.pastEnd` once it
    /// starts at or after the end.
    private enum Placement { case before, inside, pastEnd }
    private func place(_ pts: MediaTime, _ duration: MediaTime) -> Placement {
        guard pts.isNumeric else { return .inside }
        if end.isNumeric || end.isNegativeInfinity, !(pts < end) { return .pastEnd }
        if duration.isNumeric, duration > .zero { return pts + duration > start ? .inside : .before }
        return pts < start ? .before : .inside
    }

    /// Feeds a packet (nil: the end of the stream) and hands on the frames it gives; true
    /// once past the range's end or cancelled.
    private func decode(_ packet: Packet?, with decoder: Decoder, into frame: Frame) throws(ReelError) -> Bool {
        let went = try CodecExchange.feed(
            send: { () throws(ReelError) -> FFmpegState in
                do throws(FFmpegError) {
                    if let packet { return try decoder.send(packet) }
                    return try decoder.sendEndOfStream()
                } catch { throw decodeError(error) }
            },
            receive: { () throws(ReelError) -> FFmpegState in
                do throws(FFmpegError) { return try decoder.receive(into: frame) } catch { throw decodeError(error) }
            },
            take: { () throws(ReelError) -> Bool in try deliver(frame) },
            stuck: { ReelError(.decoderFailed, "the \(decoder.name) decoder took no packet and gave no frame", path: input.path, trackID: trackID) })
        return !went
    }

    /// Hands on a decoded frame as the settings ask; false once past the range's end or
    /// cancelled.
    private func deliver(_ frame: Frame) throws(ReelError) -> Bool {
        defer { frame.unref() }
        let pts = MediaTime(ffmpeg: frame.presentationTimestamp, timeBase: timeBase)
        let sample: AssetReaderSample
        switch settings {
        case .video(let format, let width, let height):
            let duration = frame.packetDuration > 0 ? MediaTime(ffmpeg: frame.packetDuration, timeBase: timeBase) : fallbackFrameDuration
            switch place(pts, duration) {
            case .before: return true
            case .pastEnd: return false
            case .inside: break
            }
            let buffer = makeBuffer(format: format, width: width ?? Int(frame.width), height: height ?? Int(frame.height))
            // The scaler also sets the buffer's colour: the frame's, with the matrix and range it holds.
            try scaler?.convert(frame, into: buffer)
            var captions: Data?
            if let side = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_A53_CC), side.pointee.size > 0 {
                captions = Data(bytes: side.pointee.data, count: Int(side.pointee.size))
            }
            sample = .videoFrame(VideoFrame(pixelBuffer: buffer, presentationTime: pts, duration: duration, closedCaptions: captions))
        case .audioPCM:
            guard let resampler else { return true }
            let rate = frame.pointer.pointee.sample_rate
            let duration = rate > 0 ? MediaTime(value: Int64(frame.pointer.pointee.nb_samples), timescale: rate) : .invalid
            switch place(pts, duration) {
            case .before: return true
            case .pastEnd: return false
            case .inside: break
            }
            let samples: [Float]
            do { samples = try resampler.convert(frame) } catch { throw decodeError(error) }
            sample = .audio(DecodedAudio(samples: samples, channelCount: resampler.channelCount,
                                         sampleRate: resampler.sampleRate, presentationTime: pts))
        case .passthrough:
            return true
        }
        return push(sample)
    }

    /// Hands `sample` to the consumer, blocking while the queue is full; false once the
    /// consumer cancelled (the loop stops).
    private func push(_ sample: AssetReaderSample) -> Bool {
        do {
            try queue.sendBlocking(sample)
            return true
        } catch {
            return false
        }
    }

    private func makeBuffer(format: PixelFormat, width: Int, height: Int) -> PixelBuffer {
        if let pool, pool.width == width, pool.height == height, pool.format == format { return pool.makeBuffer() }
        // Buffers out: the queue's plus the consumer's and one being filled.
        let made = PixelBufferPool(width: width, height: height, format: format, maximumIdleCount: queue.capacity + 4)
        pool = made
        return made.makeBuffer()
    }

    /// Hands on a packet's bytes; true once past the range's end or cancelled.
    private func passThrough(_ packet: Packet) throws(ReelError) -> Bool {
        var sample = SampleBuffer(data: packet.data, presentationTime: MediaTime(ffmpeg: packet.pts, timeBase: timeBase),
                                  duration: packet.duration > 0 ? MediaTime(ffmpeg: packet.duration, timeBase: timeBase) : .invalid,
                                  format: formatName, decodeTime: MediaTime(ffmpeg: packet.dts, timeBase: timeBase), isSync: packet.isKeyframe)
        if formatName == "webvtt" {
            sample.cueSettings = packet.sideDataText(AV_PKT_DATA_WEBVTT_SETTINGS)
            sample.cueIdentifier = packet.sideDataText(AV_PKT_DATA_WEBVTT_IDENTIFIER)
        }
        guard case .metadata = kind else { return try deliver(sample) }
        if let placement = metadataTimes?.placement(atOffset: packet.pointer.pointee.pos) {
            guard case .shown(let range) = placement else { return false }
            sample.presentationTime = range.start
            sample.duration = range.duration
            sample.decodeTime = range.start
            return try deliver(sample)
        }
        guard sample.presentationTime.isNumeric else {
            if untimedPacketStartsTrack, streamStart.isNumeric {
                sample.presentationTime = streamStart
                sample.decodeTime = streamStart
            }
            untimedPacketStartsTrack = false
            return try deliver(sample)
        }
        untimedPacketStartsTrack = false
        if try releaseHeldSample(before: sample.presentationTime) { return true }
        heldSample = sample
        return false
    }

    /// Delivers the held metadata sample, lasting until `next` when it has no duration of
    /// its own; true once past the range's end or cancelled.
    @discardableResult
    private func releaseHeldSample(before next: MediaTime) throws(ReelError) -> Bool {
        guard var sample = heldSample else { return false }
        heldSample = nil
        if !sample.duration.isNumeric, next.isNumeric, sample.presentationTime < next {
            sample.duration = next - sample.presentationTime
        }
        return try deliver(sample)
    }

    /// Where the stream starts: its own start time, else the container's.
    private var streamStart: MediaTime {
        let own = MediaTime(ffmpeg: input.stream(streamIndex).pointee.start_time, timeBase: timeBase)
        return own.isNumeric ? own : MediaTime(ffmpeg: input.pointer.pointee.start_time, timeBase: AVRational(num: 1, den: reel_time_base()))
    }

    /// The end of the stream: its start plus its duration, or the container's end when
    /// that is later (a stream of instants, such as KLV in MPEG-TS, ends at its last
    /// packet's time, which still holds until the file ends).
    private var streamEnd: MediaTime {
        let stream = input.stream(streamIndex).pointee
        let start = MediaTime(ffmpeg: stream.start_time, timeBase: timeBase)
        let duration = MediaTime(ffmpeg: stream.duration, timeBase: timeBase)
        let own = start.isNumeric && duration.isNumeric ? start + duration : MediaTime.invalid
        let format = input.pointer.pointee
        let fileStart = MediaTime(ffmpeg: format.start_time, timeBase: AVRational(num: 1, den: reel_time_base()))
        let fileDuration = MediaTime(ffmpeg: format.duration, timeBase: AVRational(num: 1, den: reel_time_base()))
        let fileEnd = fileStart.isNumeric && fileDuration.isNumeric ? fileStart + fileDuration : MediaTime.invalid
        guard fileEnd.isNumeric else { return own }
        return own.isNumeric ? MediaTime.maximum(own, fileEnd) : fileEnd
    }

    /// Pushes a sample that overlaps the range; true once past the range's end or cancelled.
    private func deliver(_ sample: SampleBuffer) throws(ReelError) -> Bool {
        // Packets come in decode order: stop on the decode time, filter on the presentation time.
        if sample.decodeTime.isNumeric, end.isNumeric, !(sample.decodeTime < end) { return true }
        switch place(sample.presentationTime, sample.duration) {
        case .before: return false
        case .pastEnd: return kind != .video
        case .inside: break
        }
        return !push(.sampleBuffer(sample))
    }
}
