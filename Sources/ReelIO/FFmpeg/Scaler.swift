internal import CFFmpeg
import ReelCore

/// Owns libswscale contexts (``Scaler/Context``) and converts frames between FFmpeg's `AVFrame` and Reel's
/// ``PixelBuffer``, scaling when the sizes differ.
///
/// Same size and same format is a plane copy (`av_image_copy_plane`), with no libswscale
/// pass. The context is remade only when the input or output shape changes. With
/// `threads` other than 1, frame-to-buffer conversions use libswscale's slice threads
/// (`sws_scale_frame`). Not thread-safe: one thread drives it.
final class Scaler {
    /// The scaling algorithm; bilinear is the least the project accepts.
    let flags: Int32
    /// libswscale slice threads for frame-to-buffer conversions: 1 for none, 0 for one per core.
    let threads: Int32
    /// The context for `sws_scale` (one thread), and the one with slice threads.
    private var context: Context?
    private var threaded: Context?
    private let sourceView = Frame()
    private let destinationView = Frame()

    /// What a context is made for. The ranges are part of it: libswscale picks a plain
    /// copy for the same format and size when they are equal at initialisation, and then
    /// would not widen or narrow the range later.
    struct Shape: Equatable {
        var srcW: Int32, srcH: Int32, srcFormat: Int32, dstW: Int32, dstH: Int32, dstFormat: Int32
        var srcFullRange = false, dstFullRange = false
    }

    /// The YUV matrices and ranges libswscale is told (`sws_setColorspaceDetails`): those of
    /// the source's samples and of the destination's.
    struct ColorDetails: Equatable {
        var source: YCbCrEncoding, destination: YCbCrEncoding
    }

    /// Owns one libswscale context for one shape (`sws_alloc_context`, options,
    /// `sws_init_context`; `deinit` frees it with `sws_freeContext`), with the colour
    /// details last told to it. A new context starts with none, so it is always told: its
    /// address may be a freed context's, but its details are its own.
    final class Context {
        let pointer: OpaquePointer
        let shape: Shape
        private var colorDetails: ColorDetails?

        init(_ shape: Shape, flags: Int32, threads: Int32) throws(ReelError) {
            guard let made = sws_alloc_context() else { throw ReelError(.internalError, "out of memory for a libswscale context") }
            let object = UnsafeMutableRawPointer(made)
            let options: [(String, Int64)] = [
                ("srcw", Int64(shape.srcW)), ("srch", Int64(shape.srcH)), ("src_format", Int64(shape.srcFormat)),
                ("dstw", Int64(shape.dstW)), ("dsth", Int64(shape.dstH)), ("dst_format", Int64(shape.dstFormat)),
                ("src_range", shape.srcFullRange ? 1 : 0), ("dst_range", shape.dstFullRange ? 1 : 0),
                ("sws_flags", Int64(flags)), ("threads", Int64(threads)),
            ]
            var code: Int32 = 0
            for (key, value) in options where code >= 0 { code = av_opt_set_int(object, key, value, 0) }
            if code >= 0 { code = sws_init_context(made, nil, nil) }
            if code < 0 {
                sws_freeContext(made)
                throw ReelError(
                    .invalidArgument,
                    "libswscale cannot convert \(pixelFormatName(AVPixelFormat(rawValue: shape.srcFormat))) \(shape.srcW)x\(shape.srcH) to \(pixelFormatName(AVPixelFormat(rawValue: shape.dstFormat))) \(shape.dstW)x\(shape.dstH)",
                    underlying: ffFailure(code, "sws_init_context"))
            }
            pointer = made
            self.shape = shape
        }

        deinit { sws_freeContext(pointer) }

        /// Tells libswscale the YUV matrices and ranges (`sws_setColorspaceDetails`), only
        /// when they differ from what this context was last told.
        func setColorDetails(_ details: ColorDetails) {
            if details == colorDetails { return }
            colorDetails = details
            _ = sws_setColorspaceDetails(
                pointer, sws_getCoefficients(Scaler.swsMatrix(details.source.matrix)), details.source.fullRange ? 1 : 0,
                sws_getCoefficients(Scaler.swsMatrix(details.destination.matrix)), details.destination.fullRange ? 1 : 0,
                0, 1 << 16, 1 << 16)
        }
    }

    init(flags: Int32 = SWS_BILINEAR, threads: Int32 = 1) {
        self.flags = flags
        self.threads = threads
    }

    /// Converts (and scales) `frame` into `buffer`, whose size and format say what is wanted.
    ///
    /// The frame's samples are read in its ``Frame/ycbcrEncoding``; a YUV buffer keeps that
    /// matrix, in limited range unless the planes are copied as they are. The buffer's
    /// colour properties are set to the frame's, with the matrix and range it now holds.
    func convert(_ frame: Frame, into buffer: PixelBuffer) throws(ReelError) {
        let source = frame.ycbcrEncoding
        // The deprecated full-range `yuvj*` formats are their plain twins with a full range.
        var srcFormat = Self.plainFormat(frame.pixelFormat)
        // gray8 is the luma plane as it is: read a YUV frame's first plane as gray of its
        // depth, so libswscale neither expands the range nor touches chroma.
        if buffer.format == .gray8, let luma = Self.lumaFormat(of: srcFormat) { srcFormat = luma }
        let srcW = frame.width, srcH = frame.height
        guard srcW > 0, srcH > 0 else { throw ReelError(.decoderFailed, "decoded frame has no size") }
        let dstFormat = buffer.format.avPixelFormat
        if srcFormat == dstFormat, Int(srcW) == buffer.width, Int(srcH) == buffer.height {
            copyPlanes(from: frame, into: buffer)
            buffer.colorProperties = frame.colorProperties.tagged(source)
            return
        }
        let details = ColorDetails(source: source, destination: YCbCrEncoding(matrix: source.matrix))
        let shape = Shape(
            srcW: srcW, srcH: srcH, srcFormat: srcFormat.rawValue,
            dstW: Int32(buffer.width), dstH: Int32(buffer.height), dstFormat: dstFormat.rawValue,
            srcFullRange: source.fullRange, dstFullRange: false)
        buffer.colorProperties = frame.colorProperties.tagged(details.destination)
        if threads != 1 {
            let made = try Self.context(&threaded, for: shape, flags: flags, threads: threads)
            made.setColorDetails(details)
            try scaleThreaded(made.pointer, frame, as: srcFormat, into: buffer)
            return
        }
        let made = try Self.context(&context, for: shape, flags: flags, threads: 1)
        made.setColorDetails(details)
        let context = made.pointer
        let strides = buffer.bytesPerRow.map { Int32($0) } + [Int32](repeating: 0, count: 4 - buffer.planeCount)
        let height = try frame.withPlanes { (data, linesize) throws(ReelError) -> Int32 in
            try buffer.withUnsafePlanePointers { (planes) throws(ReelError) -> Int32 in
                var dst: [UnsafeMutablePointer<UInt8>?] = planes.map { $0.assumingMemoryBound(to: UInt8.self) }
                dst += [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4 - dst.count)
                return data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { src in
                    sws_scale(context, src, linesize, 0, srcH, dst, strides)
                }
            }
        }
        if height <= 0 { throw ReelError(.decoderFailed, "libswscale could not convert \(pixelFormatName(srcFormat)) to \(buffer.format.rawValue)") }
    }

    /// Converts (and scales) `buffer` into `frame`, which already has its size, format and
    /// planes (`av_frame_get_buffer`).
    ///
    /// The buffer's samples are read in its ``PixelBuffer/ycbcrEncoding``. The frame's
    /// samples are made in `target` (the writer's output encoding); without one, a frame of
    /// the buffer's format and size gets its planes as they are, any other frame the
    /// buffer's matrix (for a YUV buffer) or the frame size's (for RGB) in limited range.
    /// The frame is tagged with what it holds.
    func convert(_ buffer: PixelBuffer, into frame: Frame, as target: YCbCrEncoding? = nil) throws(ReelError) {
        let srcFormat = buffer.format.avPixelFormat
        let dstFormat = frame.pixelFormat
        let source = buffer.format.isYUV ? buffer.ycbcrEncoding : YCbCrEncoding(matrix: buffer.ycbcrEncoding.matrix)
        let sameShape = srcFormat == dstFormat && Int(frame.width) == buffer.width && Int(frame.height) == buffer.height
        let matrix = buffer.format.isYUV ? source.matrix : buffer.colorProperties.encoding(width: Int(frame.width), height: Int(frame.height)).matrix
        let destination = target ?? (sameShape ? source : YCbCrEncoding(matrix: matrix))
        frame.tag(destination)
        if sameShape && (destination == source || !buffer.format.isYUV) {
            copyPlanes(from: buffer, into: frame)
            return
        }
        let shape = Shape(
            srcW: Int32(buffer.width), srcH: Int32(buffer.height), srcFormat: srcFormat.rawValue,
            dstW: frame.width, dstH: frame.height, dstFormat: dstFormat.rawValue,
            srcFullRange: source.fullRange, dstFullRange: destination.fullRange)
        let made = try Self.context(&context, for: shape, flags: flags, threads: 1)
        made.setColorDetails(ColorDetails(source: source, destination: destination))
        let context = made.pointer
        let strides = buffer.bytesPerRow.map { Int32($0) } + [Int32](repeating: 0, count: 4 - buffer.planeCount)
        let height = frame.withPlanes { (data, linesize) -> Int32 in
            buffer.withUnsafePlanePointers { planes -> Int32 in
                var src: [UnsafePointer<UInt8>?] = planes.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) }
                src += [UnsafePointer<UInt8>?](repeating: nil, count: 4 - src.count)
                return sws_scale(context, src, strides, 0, Int32(buffer.height), data, linesize)
            }
        }
        if height <= 0 { throw ReelError(.encoderFailed, "libswscale could not convert \(buffer.format.rawValue) to \(pixelFormatName(dstFormat))") }
    }

    /// The context in `slot` when it has `shape`, else a new one put there (the old one is freed).
    private static func context(_ slot: inout Context?, for shape: Shape, flags: Int32, threads: Int32) throws(ReelError) -> Context {
        if let slot, slot.shape == shape { return slot }
        slot = nil
        let made = try Context(shape, flags: flags, threads: threads)
        slot = made
        return made
    }

    /// `sws_scale_frame` from a view of `frame` (read as `format`) into a frame view of
    /// `buffer`'s planes. The view's buffer reference does not own the memory (its free
    /// function does nothing); it lives only for this call.
    private func scaleThreaded(_ context: OpaquePointer, _ frame: Frame, as format: AVPixelFormat, into buffer: PixelBuffer) throws(ReelError) {
        sourceView.unref()
        defer { sourceView.unref() }
        var code = av_frame_ref(sourceView.pointer, frame.pointer)
        try ffCheck(code, "av_frame_ref") { ReelError(.decoderFailed, "could not reference a frame", underlying: $0) }
        sourceView.pointer.pointee.format = format.rawValue
        code = buffer.withUnsafePlanePointers { planes -> Int32 in
            let dst = destinationView
            dst.unref()
            defer { dst.unref() }
            dst.pointer.pointee.format = buffer.format.avPixelFormat.rawValue
            dst.pointer.pointee.width = Int32(buffer.width)
            dst.pointer.pointee.height = Int32(buffer.height)
            let last = buffer.planeCount - 1
            let size = (planes[last] - planes[0]) + buffer.bytesPerRow[last] * buffer.planeSize(last).height
            dst.withPlanes { data, linesize in
                for p in 0..<buffer.planeCount {
                    data[p] = planes[p].assumingMemoryBound(to: UInt8.self)
                    linesize[p] = Int32(buffer.bytesPerRow[p])
                }
            }
            guard let reference = av_buffer_create(planes[0].assumingMemoryBound(to: UInt8.self), size, { _, _ in }, nil, 0) else {
                return reel_averror(ENOMEM)
            }
            dst.pointer.pointee.buf.0 = reference
            return sws_scale_frame(context, dst.pointer, sourceView.pointer)
        }
        try ffCheck(code, "sws_scale_frame") {
            ReelError(.decoderFailed, "libswscale could not convert \(pixelFormatName(format)) to \(buffer.format.rawValue)", underlying: $0)
        }
    }

    /// The gray format with the depth of a planar YUV format's luma plane, when it has one.
    static func lumaFormat(of format: AVPixelFormat) -> AVPixelFormat? {
        guard let desc = av_pix_fmt_desc_get(format) else { return nil }
        let d = desc.pointee
        guard d.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0, d.flags & UInt64(AV_PIX_FMT_FLAG_BE) == 0,
            d.nb_components >= 1, d.comp.0.plane == 0, d.comp.0.step == (d.comp.0.depth > 8 ? 2 : 1)
        else { return nil }
        switch d.comp.0.depth {
        case 8: return AV_PIX_FMT_GRAY8
        case 10: return AV_PIX_FMT_GRAY10LE
        case 12: return AV_PIX_FMT_GRAY12LE
        case 16: return AV_PIX_FMT_GRAY16LE
        default: return nil
        }
    }

    /// `yuvj420p` -> `yuv420p` (and 422, 444): same memory layout, range said separately.
    static func plainFormat(_ format: AVPixelFormat) -> AVPixelFormat {
        switch format {
        case AV_PIX_FMT_YUVJ420P: AV_PIX_FMT_YUV420P
        case AV_PIX_FMT_YUVJ422P: AV_PIX_FMT_YUV422P
        case AV_PIX_FMT_YUVJ444P: AV_PIX_FMT_YUV444P
        default: format
        }
    }

    /// The libswscale coefficient table (`SWS_CS_*`) of a matrix.
    static func swsMatrix(_ matrix: YCbCrMatrix) -> Int32 {
        switch matrix {
        case .bt601: SWS_CS_ITU601
        case .bt709: SWS_CS_ITU709
        case .bt2020: SWS_CS_BT2020
        }
    }

    private func copyPlanes(from frame: Frame, into buffer: PixelBuffer) {
        frame.withPlanes { data, linesize in
            buffer.withUnsafePlanePointers { planes in
                for p in 0..<buffer.planeCount {
                    let (w, h) = buffer.planeSize(p)
                    av_image_copy_plane(
                        planes[p].assumingMemoryBound(to: UInt8.self), Int32(buffer.bytesPerRow[p]),
                        data[p], linesize[p], Int32(w * buffer.format.bytesPerPixel(plane: p)), Int32(h))
                }
            }
        }
    }

    private func copyPlanes(from buffer: PixelBuffer, into frame: Frame) {
        frame.withPlanes { data, linesize in
            buffer.withUnsafePlanePointers { planes in
                for p in 0..<buffer.planeCount {
                    let (w, h) = buffer.planeSize(p)
                    av_image_copy_plane(
                        data[p], linesize[p], planes[p].assumingMemoryBound(to: UInt8.self),
                        Int32(buffer.bytesPerRow[p]), Int32(w * buffer.format.bytesPerPixel(plane: p)), Int32(h))
                }
            }
        }
    }
}
