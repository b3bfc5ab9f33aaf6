import Foundation
import Reel

/// Draws a GPS read-out (speed in large type, altitude, time, latitude/longitude) from the
/// request's timed metadata over the source frame, in yuv420p: the frame is copied plane
/// by plane and only the text boxes are drawn.
struct GPSOverlayCompositor: AsyncVideoCompositing {
    let videoTrackID: Int32
    let metadataTrackID: Int32

    var sourcePixelBufferAttributes: PixelBufferAttributes? { PixelBufferAttributes(pixelFormatType: [.yuv420p]) }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { PixelBufferAttributes(pixelFormatType: [.yuv420p]) }

    func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
        let out = request.renderContext.newPixelBuffer()
        if let source = request.sourceFrame(byTrackID: videoTrackID), source.width == out.width, source.height == out.height {
            for p in 0..<out.planeCount {
                source.withUnsafeBytes(plane: p) { src in
                    out.withUnsafeMutableBytes(plane: p) { dst in
                        if source.bytesPerRow[p] == out.bytesPerRow[p] {
                            dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<min(src.count, dst.count)]))
                        } else {
                            let (w, h) = out.planeSize(p)
                            for y in 0..<h {
                                let s = UnsafeRawBufferPointer(rebasing: src[(y * source.bytesPerRow[p])..<(y * source.bytesPerRow[p] + w)])
                                UnsafeMutableRawBufferPointer(rebasing: dst[(y * out.bytesPerRow[p])..<(y * out.bytesPerRow[p] + w)]).copyMemory(from: s)
                            }
                        }
                    }
                }
            }
        }
        guard let group = request.sourceTimedMetadata(byTrackID: metadataTrackID), let fix = GPSFix(group) else { return out }
        let h = out.height
        let speed = (fix.speed2D ?? 0) * 3.6
        BitmapFont.draw(String(format: "%.1f km/h", speed), x: 60, y: h - 220, scale: 16, into: out)
        BitmapFont.draw(String(format: "ALT %.1f m", fix.altitude ?? 0), x: 60, y: 60, scale: 6, into: out)
        BitmapFont.draw(Self.clock(group.timeRange.start), x: 60, y: 140, scale: 6, into: out)
        BitmapFont.draw(String(format: "%.6f N", fix.latitude), x: out.width - 560, y: 60, scale: 6, into: out)
        BitmapFont.draw(String(format: "%.6f E", fix.longitude), x: out.width - 560, y: 140, scale: 6, into: out)
        return out
    }

    /// `10:00:03.433` for a composition time, from the clip's 10:00:00 start.
    static func clock(_ t: MediaTime) -> String {
        let ms = Int((t.seconds * 1000).rounded())
        let s = 36000 + ms / 1000
        return String(format: "%02d:%02d:%02d.%03d", s / 3600, (s / 60) % 60, s % 60, ms % 1000)
    }
}
