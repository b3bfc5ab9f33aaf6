internal import CFFmpeg
import Foundation
import ReelCore

/// Owns an output (`AVFormatContext` from `avformat_alloc_output_context2`, its file
/// opened with `avio_open`); `deinit` closes the file (`avio_closep`) and frees the
/// context (`avformat_free_context`). It writes the header, packets and trailer.
///
/// Not thread-safe: the writer thread alone uses it.
final class OutputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    /// The file written (the writer's temporary file).
    let path: String
    private var fileOpen = false

    /// Makes a muxer of format `formatName` (`mp4`, `mov`, `mpegts`, `matroska`) for `path`.
    init(formatName: String, path: String) throws(ReelError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        let code = avformat_alloc_output_context2(&context, nil, formatName, path)
        guard code >= 0, let context else {
            throw ReelError(
                .outputFailed, "FFmpeg has no \(formatName) muxer", path: path,
                underlying: ffFailure(code, "avformat_alloc_output_context2"))
        }
        self.pointer = context
        self.path = path
    }

    deinit {
        if fileOpen { avio_closep(&pointer.pointee.pb) }
        avformat_free_context(pointer)
    }

    /// The container family of the muxer (MP4 and MOV are `.quickTime`).
    var family: ContainerFamily { ContainerFamily(formatName: String(cString: pointer.pointee.oformat.pointee.name)) }
    /// Whether the format wants codec headers out of band (`AVFMT_GLOBALHEADER`).
    var wantsGlobalHeader: Bool { pointer.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }
    /// Whether packets of a stream may share a decode time (`AVFMT_TS_NONSTRICT`: Matroska).
    var allowsNonStrictTimestamps: Bool { pointer.pointee.oformat.pointee.flags & AVFMT_TS_NONSTRICT != 0 }

    /// Adds a stream (`avformat_new_stream`), owned by this context.
    func addStream() throws(ReelError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(pointer, nil) else {
            throw ReelError(.outputFailed, "could not add a stream", path: path)
        }
        return stream
    }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { pointer.pointee.streams[index]! }

    /// Tags stream `streamIndex` with a language (`av_dict_set` on its metadata, which the
    /// stream owns): MP4/MOV write it in `mdhd`, Matroska as the track's language.
    func setLanguage(_ code: String, streamIndex: Int) {
        av_dict_set(&stream(streamIndex).pointee.metadata, "language", code, 0)
    }

    /// Gives a video stream the timecode of its first frame: the MP4/MOV muxer then adds a
    /// timecode track (`tmcd`) for it, counted at the stream's average frame rate.
    func setTimecode(_ timecode: Timecode, streamIndex: Int) {
        av_dict_set(&stream(streamIndex).pointee.metadata, "timecode", timecode.description, 0)
    }

    /// Gives a stream a display matrix (`av_stream_new_side_data`,
    /// `AV_PKT_DATA_DISPLAYMATRIX`): `x' = a x + c y + tx`, `y' = b x + d y + ty`, in
    /// 16.16 fixed point, the last column 0, 0, 1 in 2.30.
    func setDisplayMatrix(_ t: Transform2D, streamIndex: Int) throws(ReelError) {
        func fixed(_ v: Double) -> Int32 { Int32(clamping: Int64((v * 65536).rounded())) }
        let values: [Int32] = [fixed(t.a), fixed(t.b), 0, fixed(t.c), fixed(t.d), 0, fixed(t.tx), fixed(t.ty), 1 << 30]
        guard [t.a, t.b, t.c, t.d, t.tx, t.ty].allSatisfy(\.isFinite),
            let raw = av_stream_new_side_data(stream(streamIndex), AV_PKT_DATA_DISPLAYMATRIX, 9 * 4)
        else {
            throw ReelError(.outputFailed, "could not give the video track its display matrix", path: path)
        }
        values.withUnsafeBytes { UnsafeMutableRawPointer(raw).copyMemory(from: $0.baseAddress!, byteCount: 9 * 4) }
    }

    /// Adds a cover picture as a video stream of one picture marked
    /// `AV_DISPOSITION_ATTACHED_PIC` (the MP4 muxer writes it as the `covr` item, not as a
    /// track); the picture itself goes in by ``writeAttachedPicture(_:streamIndex:)`` after
    /// the header. Returns the stream's index.
    /// A video stream needs its size: libavformat refuses the header without one.
    func addAttachedPicture(png: Bool, width: Int, height: Int) throws(ReelError) -> Int32 {
        let stream = try addStream()
        let par = stream.pointee.codecpar!
        par.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        par.pointee.codec_id = png ? AV_CODEC_ID_PNG : AV_CODEC_ID_MJPEG
        par.pointee.width = Int32(clamping: width)
        par.pointee.height = Int32(clamping: height)
        stream.pointee.disposition = AV_DISPOSITION_ATTACHED_PIC
        stream.pointee.time_base = AVRational(num: 1, den: 90000)
        return stream.pointee.index
    }

    /// Writes the one packet of an attached-picture stream: the picture's bytes.
    func writeAttachedPicture(_ data: Data, streamIndex: Int32) throws(ReelError) {
        let packet = Packet()
        let code = av_new_packet(packet.pointer, Int32(clamping: data.count))
        if code < 0 || data.count > Int(Int32.max) - 64 {
            throw ReelError(.outputFailed, "out of memory for the cover picture", path: path, underlying: ffFailure(code, "av_new_packet"))
        }
        if let dst = packet.pointer.pointee.data {
            data.withUnsafeBytes { src in dst.update(from: src.bindMemory(to: UInt8.self).baseAddress!, count: data.count) }
        }
        packet.pointer.pointee.stream_index = streamIndex
        packet.pointer.pointee.pts = 0
        packet.pointer.pointee.dts = 0
        packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY
        try write(packet)
    }

    /// Adds a file attached to the container (Matroska's attachments): `data` as the
    /// stream's extradata, which the stream then owns, with its file name and MIME type.
    func addAttachment(_ data: Data, fileName: String, mimeType: String) throws(ReelError) {
        let stream = try addStream()
        let par = stream.pointee.codecpar!
        par.pointee.codec_type = AVMEDIA_TYPE_ATTACHMENT
        guard data.count <= Int(Int32.max) - 64,
            let extradata = av_mallocz(data.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self)
        else {
            throw ReelError(.outputFailed, "out of memory for the attachment \(fileName)", path: path)
        }
        data.withUnsafeBytes { extradata.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: data.count) }
        // The codec parameters own the block from here (avcodec_parameters_free frees it).
        par.pointee.extradata = extradata
        par.pointee.extradata_size = Int32(data.count)
        av_dict_set(&stream.pointee.metadata, "filename", fileName, 0)
        av_dict_set(&stream.pointee.metadata, "mimetype", mimeType, 0)
    }

    /// Adds the container's chapters before the header is written: each a title over a
    /// time range of the file, in microseconds (`AVFormatContext.chapters`, which the
    /// context frees). FFmpeg's MP4/MOV muxer writes them as a QuickTime chapter track
    /// (and a Nero `chpl` list in MP4); Matroska as its own chapters.
    func setChapters(_ chapters: [(title: String, start: MediaTime, end: MediaTime)]) throws(ReelError) {
        guard !chapters.isEmpty else { return }
        let timeBase = AVRational(num: 1, den: 1_000_000)
        let count = Int(pointer.pointee.nb_chapters) + chapters.count
        guard
            let list = av_realloc_array(pointer.pointee.chapters, count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride)?
                .assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self)
        else {
            throw ReelError(.outputFailed, "out of memory for \(chapters.count) chapters", path: path)
        }
        pointer.pointee.chapters = list
        for (title, start, end) in chapters {
            guard let chapter = av_mallocz(MemoryLayout<AVChapter>.size)?.assumingMemoryBound(to: AVChapter.self) else {
                throw ReelError(.outputFailed, "out of memory for the chapter \"\(title)\"", path: path)
            }
            let index = Int(pointer.pointee.nb_chapters)
            chapter.pointee.id = Int64(index + 1)
            chapter.pointee.time_base = timeBase
            chapter.pointee.start = start.ffmpegTimestamp(in: timeBase) ?? 0
            chapter.pointee.end = end.ffmpegTimestamp(in: timeBase) ?? chapter.pointee.start
            av_dict_set(&chapter.pointee.metadata, "title", title, 0)
            list[index] = chapter
            pointer.pointee.nb_chapters += 1
        }
    }

    /// Sets container tags (`title`, `creation_time`, ...) before the header is written
    /// (`av_dict_set` on the context's metadata).
    func setMetadata(_ tags: [(key: String, value: String)]) {
        for (key, value) in tags { av_dict_set(&pointer.pointee.metadata, key, value, 0) }
    }

    /// Opens the file and writes the header (`avio_open`, `avformat_write_header`), with
    /// muxer options such as `movflags`.
    func writeHeader(options: [String: String]) throws(ReelError) {
        if pointer.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            let code = avio_open(&pointer.pointee.pb, path, AVIO_FLAG_WRITE)
            try ffCheck(code, "avio_open") { ReelError(.outputFailed, "could not create the file", path: path, underlying: $0) }
            fileOpen = true
        }
        var dict: OpaquePointer?
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        let code = avformat_write_header(pointer, &dict)
        av_dict_free(&dict)
        try ffCheck(code, "avformat_write_header") { ReelError(.outputFailed, "could not write the file header", path: path, underlying: $0) }
    }

    /// Writes a packet, interleaving streams by time (`av_interleaved_write_frame`, which
    /// takes the packet's payload).
    func write(_ packet: Packet) throws(ReelError) {
        let code = av_interleaved_write_frame(pointer, packet.pointer)
        try ffCheck(code, "av_interleaved_write_frame") { ReelError(.outputFailed, "could not write a packet", path: path, underlying: $0) }
    }

    /// Flushes the interleaving queue, writes the trailer (`av_write_trailer`) and closes
    /// the file.
    func finish() throws(ReelError) {
        let code = av_write_trailer(pointer)
        if fileOpen {
            avio_closep(&pointer.pointee.pb)
            fileOpen = false
        }
        try ffCheck(code, "av_write_trailer") { ReelError(.outputFailed, "could not finish the file", path: path, underlying: $0) }
    }
}
