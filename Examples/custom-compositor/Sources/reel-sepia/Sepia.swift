import Reel
import ReelCommandLine

/// Tones the video sepia: `"compositor": {"name": "sepia", "parameters": {"amount": 0.8}}`.
struct Sepia: AsyncVideoCompositing {
    var amount: Double
    var sourcePixelBufferAttributes: PixelBufferAttributes? { .bgra }
    var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { .bgra }

    func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
        let out = request.renderContext.newPixelBuffer()
        guard let id = request.sourceTrackIDs.first, let src = request.sourceFrame(byTrackID: id) else { return out }
        let k = Int(amount * 256), w = min(src.width, out.width), h = min(src.height, out.height)
        src.withUnsafeBytes(plane: 0) { s in
            out.withUnsafeMutableBytes(plane: 0) { d in
                for y in 0..<h {
                    for x in 0..<w {
                        let i = y * src.bytesPerRow[0] + x * 4, o = y * out.bytesPerRow[0] + x * 4
                        let (b, g, r) = (Int(s[i]), Int(s[i + 1]), Int(s[i + 2]))
                        let tone = [(r * 70 + g * 137 + b * 34) >> 8, (r * 62 + g * 122 + b * 30) >> 8, (r * 49 + g * 95 + b * 24) >> 8]
                        for (c, v) in [b, g, r].enumerated() { d[o + c] = UInt8(min(255, (v * (256 - k) + tone[2 - c] * k) >> 8)) }
                        d[o + 3] = 255
                    }
                }
            }
        }
        return out
    }

    static let registration = CompositorRegistry.Registration(name: "sepia", summary: "tones the video sepia") { config throws(ReelError) in
        struct Parameters: Decodable { var amount: Double? }
        return AsyncVideoCompositorAdapter(Sepia(amount: min(max(try config.parameters.decode(Parameters.self).amount ?? 1, 0), 1)))
    }
}

/// This package's `reel`: every `reel render` feature, plus the sepia compositor.
@main enum Main {
    static func main() async { await ReelCLI.main(registering: [Sepia.registration]) }
}
