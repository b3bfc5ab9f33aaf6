import Foundation
import Reel

/// Reference frames decoded straight through ``AssetReader``, and pixel comparisons.
enum TestFrames {
    /// Every frame of video track `trackID` (the first video track when nil), yuv420p.
    static func decodeAll(_ url: URL, trackID: Int32? = nil, timeRange: TimeRange? = nil) async throws -> [VideoFrame] {
        let reader = try await AssetReader.open(url: url)
        guard let id = trackID ?? reader.tracks(withMediaType: .video).first?.trackID else { return [] }
        let output = AssetReaderTrackOutput(trackID: id, settings: .video(pixelFormat: .yuv420p), bufferCapacity: 4)
        try reader.add(output)
        if let timeRange { reader.timeRange = timeRange }
        try reader.startReading()
        var frames: [VideoFrame] = []
        for try await frame in output.frames { frames.append(frame) }
        return frames
    }

    /// The index of the frame showing at `time` in `frames` (each frame until the next one
    /// starts; the last for its duration).
    static func index(in frames: [VideoFrame], at time: MediaTime) -> Int? {
        guard let i = frames.lastIndex(where: { !(time < $0.presentationTime) }) else { return nil }
        if i == frames.count - 1, frames[i].duration.isNumeric, !(time < frames[i].presentationTime + frames[i].duration) { return nil }
        return i
    }

    /// The largest sample difference over all planes of two same-shaped yuv420p frames.
    static func maximumDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        precondition(a.width == b.width && a.height == b.height && a.format == b.format)
        var worst = 0
        for p in 0..<a.planeCount {
            let (w, h) = a.planeSize(p)
            let strideA = a.bytesPerRow[p], strideB = b.bytesPerRow[p]
            a.withUnsafeBytes(plane: p) { pa in
                b.withUnsafeBytes(plane: p) { pb in
                    for y in 0..<h {
                        for x in 0..<w {
                            let d = abs(Int(pa[y * strideA + x]) - Int(pb[y * strideB + x]))
                            if d > worst { worst = d }
                        }
                    }
                }
            }
        }
        return worst
    }

    /// A limited-range copy of a frame whose colour properties say full range (a JPEG read
    /// back); the frame itself otherwise.
    static func limitedRange(_ frame: PixelBuffer) -> PixelBuffer {
        guard frame.colorProperties.fullRange, frame.format == .yuv420p else { return frame }
        let out = PixelBuffer(width: frame.width, height: frame.height, format: frame.format)
        for p in 0..<3 {
            let (w, h) = frame.planeSize(p)
            frame.withUnsafeBytes(plane: p) { s in
                out.withUnsafeMutableBytes(plane: p) { o in
                    for y in 0..<h {
                        for x in 0..<w {
                            let v = Int(s[y * frame.bytesPerRow[p] + x])
                            o[y * out.bytesPerRow[p] + x] = UInt8(p == 0 ? 16 + (v * 219 + 127) / 255 : 128 + ((v - 128) * 224 + (v >= 128 ? 127 : -127)) / 255)
                        }
                    }
                }
            }
        }
        return out
    }

    /// Peak signal-to-noise ratio of the luma planes, in dB (infinity when identical).
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let (w, h) = a.planeSize(0)
        var sum = 0.0
        a.withUnsafeBytes(plane: 0) { pa in
            b.withUnsafeBytes(plane: 0) { pb in
                for y in 0..<h {
                    for x in 0..<w {
                        let d = Double(Int(pa[y * a.bytesPerRow[0] + x]) - Int(pb[y * b.bytesPerRow[0] + x]))
                        sum += d * d
                    }
                }
            }
        }
        let mse = sum / Double(w * h)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// The index of the reference frame closest to `frame` by luma PSNR.
    static func closest(_ frame: PixelBuffer, in references: [VideoFrame]) -> (index: Int, psnr: Double) {
        var best = (index: -1, psnr: -Double.infinity)
        for (i, r) in references.enumerated() {
            let p = psnr(frame, r.pixelBuffer)
            if p > best.psnr { best = (i, p) }
        }
        return best
    }
}

extension MediaTime {
    /// `numerator / denominator` seconds.
    static func ratio(_ numerator: Int64, _ denominator: Int32) -> MediaTime { MediaTime(value: numerator, timescale: denominator) }
}
