internal import CFFmpeg
import Foundation
import ReelCore

/// Still-image file formats ``ImageEncoder`` writes.
public enum ImageFileType: Sendable, Hashable {
    /// PNG (FFmpeg's `png` encoder): RGB, or RGBA for buffers with alpha. Lossless.
    case png
    /// JPEG (FFmpeg's `mjpeg` encoder), full-range 4:2:0; `quality` 1 (worst) ... 100 (best).
    case jpeg(quality: Int = 90)

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        }
    }
}

/// Encodes one `PixelBuffer` as a PNG or JPEG file's bytes, with FFmpeg's image encoders
/// (an `Encoder` opened for the one frame, fed it and drained).
public enum ImageEncoder {
    /// The bytes of an image file holding `buffer`.
    public static func data(for buffer: PixelBuffer, as type: ImageFileType) throws(ReelError) -> Data {
        let name: String
        let format: AVPixelFormat
        switch type {
        case .png:
            name = "png"
            format = buffer.format.hasAlpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24
        case .jpeg:
            name = "mjpeg"
            format = AV_PIX_FMT_YUVJ420P
        }
        let encoder = try Encoder(name: name) { (ctx) throws(ReelError) in
            ctx.pointee.width = Int32(buffer.width)
            ctx.pointee.height = Int32(buffer.height)
            ctx.pointee.pix_fmt = format
            ctx.pointee.time_base = AVRational(num: 1, den: 25)
            ctx.pointee.thread_count = 1
            if case .jpeg(let quality) = type {
                // 1...100 onto mjpeg's quantiser scale 31...2.
                let q = min(max(quality, 1), 100)
                let qscale = Int32(31 - (q - 1) * 29 / 99)
                ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
                ctx.pointee.global_quality = qscale * FF_QP2LAMBDA
                ctx.pointee.qmin = qscale
                ctx.pointee.qmax = qscale
                ctx.pointee.color_range = AVCOL_RANGE_JPEG
            }
        }
        let frame = Frame()
        // Planes in the encoder's layout; JPEG goes through limited-range yuv420p, then widened.
        frame.pointer.pointee.format = (format == AV_PIX_FMT_YUVJ420P ? AV_PIX_FMT_YUV420P : format).rawValue
        frame.pointer.pointee.width = Int32(buffer.width)
        frame.pointer.pointee.height = Int32(buffer.height)
        let code = av_frame_get_buffer(frame.pointer, 0)
        try ffCheck(code, "av_frame_get_buffer") { ReelError(.encoderFailed, "out of memory for a \(buffer.width)x\(buffer.height) image", underlying: $0) }
        try Scaler().convert(buffer, into: frame)
        if format == AV_PIX_FMT_YUVJ420P {
            if frame.pointer.pointee.color_range != AVCOL_RANGE_JPEG { expandToFullRange(frame) }
            frame.pointer.pointee.format = AV_PIX_FMT_YUVJ420P.rawValue
            frame.pointer.pointee.color_range = AVCOL_RANGE_JPEG
        }
        frame.pointer.pointee.pts = 0
        let packet = Packet()
        var out = Data()
        do {
            _ = try encoder.send(frame)
            _ = try encoder.send(nil)
            while try encoder.receive(into: packet) == .ok {
                out.append(packet.data)
                packet.unref()
            }
        } catch {
            throw ReelError(.encoderFailed, "the \(name) encoder could not encode a \(buffer.width)x\(buffer.height) image", underlying: error)
        }
        guard !out.isEmpty else { throw ReelError(.encoderFailed, "the \(name) encoder gave no image") }
        return out
    }

    /// Writes `buffer` to `url` as `type`, replacing what is there only when `overwrite`.
    /// The file is written beside the destination and renamed into place.
    public static func write(_ buffer: PixelBuffer, to url: URL, as type: ImageFileType, overwrite: Bool = false) throws(ReelError) {
        // The destination is checked before the (slower) encoding.
        let file = try AtomicFile(url, replacing: overwrite)
        try file.write(data(for: buffer, as: type))
    }

    /// Widens limited-range (16...235 / 16...240) samples to full range in place.
    private static func expandToFullRange(_ frame: Frame) {
        let width = Int(frame.width), height = Int(frame.height)
        frame.withPlanes { data, linesize in
            for p in 0..<3 {
                guard let base = data[p] else { continue }
                let (w, h) = p == 0 ? (width, height) : ((width + 1) / 2, (height + 1) / 2)
                let (low, span) = p == 0 ? (16, 219) : (16, 224)
                let table: [UInt8] = (0..<256).map { v in
                    p == 0
                        ? UInt8(clamping: ((v - low) * 255 + span / 2) / span)
                        : UInt8(clamping: 128 + ((v - 128) * 255 + (v >= 128 ? span / 2 : -span / 2)) / span)
                }
                let stride = Int(linesize[p])
                for y in 0..<h {
                    let row = base + y * stride
                    for x in 0..<w { row[x] = table[Int(row[x])] }
                }
            }
        }
    }
}

extension ImageEncoder {
    /// A copy of `buffer` scaled to `width` x `height` in the same format (libswscale,
    /// area averaging when shrinking).
    public static func scaled(_ buffer: PixelBuffer, width: Int, height: Int) throws(ReelError) -> PixelBuffer {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw ReelError(.invalidArgument, "cannot scale a picture to \(width)x\(height)")
        }
        let frame = Frame()
        frame.pointer.pointee.format = buffer.format.avPixelFormat.rawValue
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        let code = av_frame_get_buffer(frame.pointer, 0)
        try ffCheck(code, "av_frame_get_buffer") { ReelError(.internalError, "out of memory for a \(width)x\(height) picture", underlying: $0) }
        try Scaler(flags: SWS_AREA).convert(buffer, into: frame)
        let out = PixelBuffer(width: width, height: height, format: buffer.format)
        out.colorProperties = buffer.colorProperties
        try Scaler().convert(frame, into: out)
        return out
    }
}
