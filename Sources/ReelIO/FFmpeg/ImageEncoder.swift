internal import CFFmpeg
internal import CTurboJPEG
import Foundation
import ReelCore

/// Still-image file formats ``ImageEncoder`` writes.
public enum ImageFileType: Sendable, Hashable {
    /// PNG (FFmpeg's `png` encoder): RGB, or RGBA for buffers with alpha. Lossless.
    case png
    /// JPEG (libjpeg-turbo), 4:2:0 (gray for a gray picture) in JPEG's full-range BT.601
    /// YCbCr; `quality` 1 (worst) ... 100 (best), libjpeg's scale.
    case jpeg(quality: Int = 90)

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        }
    }
}

/// Encodes one `PixelBuffer` as a PNG or JPEG file's bytes: PNG with FFmpeg's encoder (an
/// `Encoder` opened for the one frame, fed it and drained), JPEG with libjpeg-turbo.
public enum ImageEncoder {
    /// The bytes of an image file holding `buffer`.
    public static func data(for buffer: PixelBuffer, as type: ImageFileType) throws(ReelError) -> Data {
        switch type {
        case .png: try png(buffer)
        case .jpeg(let quality): try jpeg(buffer, quality: quality)
        }
    }

    private static func png(_ buffer: PixelBuffer) throws(ReelError) -> Data {
        let format = buffer.format.hasAlpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24
        let encoder = try Encoder(name: "png") { (ctx) throws(ReelError) in
            ctx.pointee.width = Int32(buffer.width)
            ctx.pointee.height = Int32(buffer.height)
            ctx.pointee.pix_fmt = format
            ctx.pointee.time_base = AVRational(num: 1, den: 25)
            ctx.pointee.thread_count = 1
        }
        let frame = try rgbFrame(of: buffer, format: format)
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
            throw ReelError(.encoderFailed, "the png encoder could not encode a \(buffer.width)x\(buffer.height) image", underlying: error)
        }
        guard !out.isEmpty else { throw ReelError(.encoderFailed, "the png encoder gave no image") }
        return out
    }

    /// libjpeg-turbo (TurboJPEG) takes packed RGB or gray and makes JPEG's YCbCr itself;
    /// it codes a 960x540 picture in about a third of the time FFmpeg's `mjpeg` encoder
    /// (with its conversion to `yuvj420p`) took.
    private static func jpeg(_ buffer: PixelBuffer, quality: Int) throws(ReelError) -> Data {
        guard let handle = tjInitCompress() else { throw ReelError(.encoderFailed, "could not start libjpeg-turbo's encoder") }
        defer { tjDestroy(handle) }
        var jpeg: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { tjFree(jpeg) }
        let quality = Int32(min(max(quality, 1), 100))
        let code: Int32
        switch buffer.format {
        case .bgra, .rgba, .gray8:
            let (pixelFormat, subsampling) =
                switch buffer.format {
                case .bgra: (TJPF_BGRA, TJSAMP_420)
                case .rgba: (TJPF_RGBA, TJSAMP_420)
                default: (TJPF_GRAY, TJSAMP_GRAY)
                }
            code = buffer.withUnsafeBytes(plane: 0) { pixels in
                tjCompress2(
                    handle, pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(buffer.width), Int32(buffer.bytesPerRow[0]),
                    Int32(buffer.height), Int32(pixelFormat.rawValue), &jpeg, &size, Int32(subsampling.rawValue), quality, 0)
            }
        case .yuv420p, .nv12:
            // To RGB in the picture's own matrix and range, then JPEG's.
            let frame = try rgbFrame(of: buffer, format: AV_PIX_FMT_BGRA)
            code = frame.withPlanes { data, linesize in
                tjCompress2(
                    handle, data[0], Int32(buffer.width), linesize[0], Int32(buffer.height), Int32(TJPF_BGRA.rawValue), &jpeg, &size,
                    Int32(TJSAMP_420.rawValue), quality, 0)
            }
        }
        guard code == 0, let jpeg, size > 0 else {
            let why = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "no reason given"
            throw ReelError(.encoderFailed, "libjpeg-turbo could not encode a \(buffer.width)x\(buffer.height) JPEG: \(why)")
        }
        return Data(bytes: jpeg, count: Int(size))
    }

    /// `buffer` converted into a new frame of packed RGB `format`.
    private static func rgbFrame(of buffer: PixelBuffer, format: AVPixelFormat) throws(ReelError) -> Frame {
        let frame = Frame()
        frame.pointer.pointee.format = format.rawValue
        frame.pointer.pointee.width = Int32(buffer.width)
        frame.pointer.pointee.height = Int32(buffer.height)
        let code = av_frame_get_buffer(frame.pointer, 0)
        try ffCheck(code, "av_frame_get_buffer") { ReelError(.encoderFailed, "out of memory for a \(buffer.width)x\(buffer.height) image", underlying: $0) }
        try Scaler().convert(buffer, into: frame)
        return frame
    }

    /// Writes `buffer` to `url` as `type`, replacing what is there only when `overwrite`.
    /// The file is written beside the destination and renamed into place.
    public static func write(_ buffer: PixelBuffer, to url: URL, as type: ImageFileType, overwrite: Bool = false) throws(ReelError) {
        // The destination is checked before the (slower) encoding.
        let file = try AtomicFile(url, replacing: overwrite)
        try file.write(data(for: buffer, as: type))
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
