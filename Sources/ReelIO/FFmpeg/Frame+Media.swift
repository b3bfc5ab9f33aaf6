internal import CFFmpeg
import ReelCore

extension Frame {
    var width: Int32 { pointer.pointee.width }
    var height: Int32 { pointer.pointee.height }
    /// The frame's pixel format (video) as FFmpeg's `AVPixelFormat`.
    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pointer.pointee.format) }

    /// The presentation timestamp: `best_effort_timestamp` (the decoder's guess, which
    /// also covers streams without pts), else `pts`.
    var presentationTimestamp: Int64 {
        let best = pointer.pointee.best_effort_timestamp
        return best != reel_nopts_value() ? best : pointer.pointee.pts
    }

    /// The duration the packet that made this frame gave, 0 when unknown.
    var packetDuration: Int64 { pointer.pointee.pkt_duration }

    /// The plane pointers (`AVFrame.data`), lent for the duration of `body`.
    func withPlanes<R, E: Error>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int32>) throws(E) -> R) throws(E) -> R {
        let base = UnsafeMutableRawPointer(pointer)
        let data = (base + MemoryLayout<AVFrame>.offset(of: \AVFrame.data)!)
            .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        let linesize = (base + MemoryLayout<AVFrame>.offset(of: \AVFrame.linesize)!)
            .assumingMemoryBound(to: Int32.self)
        defer { withExtendedLifetime(self) {} }
        return try body(data, linesize)
    }

    /// Makes this frame show `buffer`'s planes without copying them (an unreferenced frame
    /// first): one read-only `AVBufferRef` per plane, each keeping the buffer alive until
    /// FFmpeg lets go of it. False when FFmpeg is out of memory.
    func reference(_ buffer: PixelBuffer) -> Bool {
        unref()
        let f = pointer
        f.pointee.format = buffer.format.avPixelFormat.rawValue
        f.pointee.width = Int32(buffer.width)
        f.pointee.height = Int32(buffer.height)
        return buffer.withUnsafePlanePointers { planes -> Bool in
            withPlanes { data, linesize -> Bool in
                let refs = UnsafeMutableRawPointer(f) + MemoryLayout<AVFrame>.offset(of: \AVFrame.buf)!
                let buf = refs.assumingMemoryBound(to: UnsafeMutablePointer<AVBufferRef>?.self)
                for p in 0..<buffer.planeCount {
                    let retained = Unmanaged.passRetained(buffer)
                    let base = planes[p].assumingMemoryBound(to: UInt8.self)
                    guard
                        let ref = av_buffer_create(
                            base, buffer.bytesPerRow[p] * buffer.planeSize(p).height,
                            { opaque, _ in
                                if let opaque { Unmanaged<PixelBuffer>.fromOpaque(opaque).release() }
                            }, retained.toOpaque(), Int32(AV_BUFFER_FLAG_READONLY))
                    else {
                        retained.release()
                        unref()
                        return false
                    }
                    buf[p] = ref
                    data[p] = base
                    linesize[p] = Int32(buffer.bytesPerRow[p])
                }
                return true
            }
        }
    }

    /// The decoded picture as a ``PixelBuffer`` of `format` without a copy, when it already
    /// is one: the frame's format is `format` (or its full-range `yuvj` twin), its planes are
    /// reference-counted and aligned as a pixel buffer's. The frame's references move into
    /// a frame the buffer keeps alive, so this frame is left empty; the buffer gets the
    /// colour properties a copy would (the frame's, tagged with its matrix and range).
    /// Nil, and the frame untouched, otherwise.
    ///
    /// The decoder may still read the picture as a reference for later ones, and no one
    /// writes it: a decoded picture is final.
    func movedIntoPixelBuffer(as format: PixelFormat) -> PixelBuffer? {
        guard Scaler.plainFormat(pixelFormat) == format.avPixelFormat, pointer.pointee.buf.0 != nil else { return nil }
        let count = format.planeCount
        let (planes, strides) = withPlanes { data, linesize in
            ((0..<count).map { data[$0].map(UnsafeMutableRawPointer.init) }, (0..<count).map { Int(linesize[$0]) })
        }
        let bases = planes.compactMap { $0 }
        guard bases.count == count else { return nil }
        let colour = colorProperties.tagged(ycbcrEncoding)
        let kept = Frame()
        guard
            let buffer = PixelBuffer(
                width: Int(width), height: Int(height), format: format, planes: bases, bytesPerRow: strides, keepingAlive: kept)
        else { return nil }
        av_frame_move_ref(kept.pointer, pointer)
        buffer.colorProperties = colour
        return buffer
    }

    /// The colour description FFmpeg attached to the frame, in Reel's words.
    var colorProperties: ColorProperties {
        func name(_ c: UnsafePointer<CChar>?) -> String? { c.map { String(cString: $0) } }
        let f = pointer.pointee
        return ColorProperties(
            primaries: f.color_primaries == AVCOL_PRI_UNSPECIFIED ? nil : name(av_color_primaries_name(f.color_primaries)),
            transferFunction: f.color_trc == AVCOL_TRC_UNSPECIFIED ? nil : name(av_color_transfer_name(f.color_trc)),
            matrix: f.colorspace == AVCOL_SPC_UNSPECIFIED ? nil : name(av_color_space_name(f.colorspace)),
            fullRange: f.color_range == AVCOL_RANGE_JPEG || isFullRangeFormat)
    }

    /// The matrix and range of the frame's samples: its tags, else the standard ones for its
    /// size (``ColorProperties/encoding(width:height:)``).
    var ycbcrEncoding: YCbCrEncoding { colorProperties.encoding(width: Int(width), height: Int(height)) }

    /// Tags the frame with `encoding`'s matrix and range.
    func tag(_ encoding: YCbCrEncoding) {
        pointer.pointee.colorspace = encoding.matrix.avColorSpace
        pointer.pointee.color_range = encoding.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
    }

    /// The deprecated `yuvj*` formats are full-range YUV.
    var isFullRangeFormat: Bool {
        let f = pixelFormat
        return f == AV_PIX_FMT_YUVJ420P || f == AV_PIX_FMT_YUVJ422P || f == AV_PIX_FMT_YUVJ444P
    }
}

extension PixelFormat {
    /// FFmpeg's name for the same layout.
    var avPixelFormat: AVPixelFormat {
        switch self {
        case .bgra: AV_PIX_FMT_BGRA
        case .rgba: AV_PIX_FMT_RGBA
        case .yuv420p: AV_PIX_FMT_YUV420P
        case .nv12: AV_PIX_FMT_NV12
        case .gray8: AV_PIX_FMT_GRAY8
        }
    }

    /// The Reel format for an FFmpeg pixel format, when Reel has one.
    init?(_ format: AVPixelFormat) {
        switch format {
        case AV_PIX_FMT_BGRA: self = .bgra
        case AV_PIX_FMT_RGBA: self = .rgba
        case AV_PIX_FMT_YUV420P: self = .yuv420p
        case AV_PIX_FMT_NV12: self = .nv12
        case AV_PIX_FMT_GRAY8: self = .gray8
        default: return nil
        }
    }
}

/// FFmpeg's name for a pixel format (`av_get_pix_fmt_name`), for messages.
func pixelFormatName(_ format: AVPixelFormat) -> String {
    av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "unknown(\(format.rawValue))"
}

extension Frame {
    /// A video frame with planes of its own (`av_frame_get_buffer`) for `format`.
    static func video(width: Int, height: Int, format: PixelFormat) throws(ReelError) -> Frame {
        let frame = Frame()
        frame.pointer.pointee.format = format.avPixelFormat.rawValue
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        let code = av_frame_get_buffer(frame.pointer, 0)
        try ffCheck(code, "av_frame_get_buffer") {
            ReelError(.internalError, "could not allocate a \(width)x\(height) \(format.rawValue) frame", underlying: $0)
        }
        return frame
    }
}

extension YCbCrMatrix {
    /// FFmpeg's colour space of the matrix.
    var avColorSpace: AVColorSpace {
        switch self {
        case .bt601: AVCOL_SPC_SMPTE170M
        case .bt709: AVCOL_SPC_BT709
        case .bt2020: AVCOL_SPC_BT2020_NCL
        }
    }

    /// The primaries and transfer function that go with the matrix when a stream names
    /// none of its own.
    var avPrimaries: AVColorPrimaries {
        switch self {
        case .bt601: AVCOL_PRI_SMPTE170M
        case .bt709: AVCOL_PRI_BT709
        case .bt2020: AVCOL_PRI_BT2020
        }
    }

    var avTransfer: AVColorTransferCharacteristic {
        switch self {
        case .bt601: AVCOL_TRC_SMPTE170M
        case .bt709: AVCOL_TRC_BT709
        case .bt2020: AVCOL_TRC_BT2020_10
        }
    }
}
