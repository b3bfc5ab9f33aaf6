import Foundation
import Hummingbird
import NIOCore
import Reel

/// The document's sound as the page plays it (`GET /sound.wav`): the composition's audio
/// tracks through its audio mix, mixed by the export's mixer (``AssetSoundSource``), as a
/// 16-bit PCM WAV at 48 kHz in stereo, made as it is read (nothing is written to disk).
///
/// The WAV starts at the document's first frame: its time t is the page's frame
/// t × frames per second, which is how the page's clock follows the sound. Range requests
/// are honoured, so the browser seeks in it as in a file; each request mixes from where its
/// range starts, with a mixer of its own.
struct PreviewSound: Sendable {
    static let sampleRate = 48000
    static let channelCount = 2
    static let bytesPerFrame = 2 * channelCount
    static let headerSize = 44
    /// The most sample frames a WAV's 32-bit sizes can describe (about 6.2 hours).
    static let maximumFrameCount = (Int(UInt32.max) - headerSize) / bytesPerFrame
    /// Sample frames mixed at a time: a fifth of a second.
    static let blockFrames = 9600

    let state: PreviewDocument.State
    /// Sample frames in the WAV.
    let frameCount: Int

    /// Nil when the document has no sound: no enabled audio track with a segment, or none
    /// its render would keep (a composition file's `output.audio` is `false`).
    init?(_ state: PreviewDocument.State) {
        guard state.audioMix != nil, Self.source(for: state) != nil, state.range.duration.isNumeric, state.range.duration > .zero else { return nil }
        self.state = state
        let frames = (state.range.duration.seconds * Double(Self.sampleRate)).rounded()
        self.frameCount = min(Int(frames), Self.maximumFrameCount)
    }

    /// The WAV's length in bytes.
    var byteCount: Int { Self.headerSize + frameCount * Self.bytesPerFrame }

    /// A mixer of the document's sound, positioned by the first read.
    static func source(for state: PreviewDocument.State) -> AssetSoundSource? {
        AssetSoundSource(
            composition: state.composition, audioMix: state.audioMix, sources: state.sources,
            sampleRate: sampleRate, channelCount: channelCount)
    }

    /// The RIFF header of a canonical PCM WAV (`fmt ` then `data`, little-endian).
    var header: [UInt8] {
        var bytes: [UInt8] = []
        func text(_ s: String) { bytes += Array(s.utf8) }
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { bytes += $0 } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { bytes += $0 } }
        let dataBytes = frameCount * Self.bytesPerFrame
        text("RIFF")
        u32(Self.headerSize - 8 + dataBytes)
        text("WAVE")
        text("fmt ")
        u32(16)
        u16(1)  // PCM
        u16(Self.channelCount)
        u32(Self.sampleRate)
        u32(Self.sampleRate * Self.bytesPerFrame)
        u16(Self.bytesPerFrame)
        u16(16)
        text("data")
        u32(dataBytes)
        return bytes
    }

    /// The response to a request with `range` (its `Range` header, nil when none). The
    /// first block of sound asked for is mixed before anything is sent, so a source that
    /// cannot be read (gone, damaged) is an error response with its one line, not a body
    /// cut short.
    func response(range: String?) async throws -> Response {
        var headers: HTTPFields = [.contentType: "audio/wav", .acceptRanges: "bytes", .cacheControl: "no-store"]
        let bytes: ClosedRange<Int>
        let status: HTTPResponse.Status
        switch ByteRangeRequest.parse(range, length: byteCount) {
        case .whole:
            bytes = 0...(byteCount - 1)
            status = .ok
        case .part(let part):
            bytes = part
            status = .partialContent
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(byteCount)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(byteCount)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        headers[.contentLength] = String(bytes.count)
        guard let source = Self.source(for: state) else { throw HTTPError(.notFound, message: "the document has no sound") }
        let mix = Mix(bytes: bytes, source: source, start: state.range.start)
        var firstBlock: [UInt8]?
        if !mix.frames.isEmpty {
            do throws(ReelError) {
                firstBlock = try await mix.block(at: mix.frames.lowerBound)
            } catch {
                throw HTTPError(.internalServerError, message: "the sound could not be mixed: \(error.description)")
            }
        }
        let first = firstBlock
        let head = bytes.lowerBound < Self.headerSize ? Array(header[bytes.lowerBound...min(bytes.upperBound, Self.headerSize - 1)]) : []
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: bytes.count) { writer in
                if !head.isEmpty { try await writer.write(ByteBuffer(bytes: head)) }
                var frame = mix.frames.lowerBound
                var block = first
                while frame < mix.frames.upperBound {
                    let bytes: [UInt8]
                    if let block { bytes = block } else { bytes = try await mix.block(at: frame) }
                    try await writer.write(ByteBuffer(bytes: bytes))
                    frame += Self.blockFrames
                    block = nil
                }
                try await writer.finish(nil)
            })
    }

    /// The sample bytes of one range of the WAV, mixed a block at a time. A block starts at
    /// a multiple of ``blockFrames`` after the range's first frame; the first and last may
    /// begin or end inside a sample frame. The body's writes fail when the page has gone
    /// (the browser closes a read it no longer needs), which ends the mixing.
    struct Mix: Sendable {
        /// The sample frames the range touches, from the start of the data chunk (none for a
        /// range inside the header).
        let frames: Range<Int>
        /// The bytes asked for, from the start of the data chunk.
        let first: Int, last: Int
        let source: AssetSoundSource
        let start: MediaTime

        init(bytes: ClosedRange<Int>, source: AssetSoundSource, start: MediaTime) {
            first = max(bytes.lowerBound, PreviewSound.headerSize) - PreviewSound.headerSize
            last = bytes.upperBound - PreviewSound.headerSize
            let low = first / PreviewSound.bytesPerFrame
            frames = low..<(last < 0 ? low : last / PreviewSound.bytesPerFrame + 1)
            self.source = source
            self.start = start
        }

        /// The bytes of the block starting at sample frame `frame`.
        func block(at frame: Int) async throws(ReelError) -> [UInt8] {
            let count = min(PreviewSound.blockFrames, frames.upperBound - frame)
            let time = start + MediaTime(value: Int64(frame), timescale: Int32(PreviewSound.sampleRate))
            let block = PreviewSound.pcm16(try await source.samples(from: time, frameCount: count))
            let blockStart = frame * PreviewSound.bytesPerFrame
            let drop = max(0, first - blockStart), keep = min(block.count, last - blockStart + 1)
            return drop > 0 || keep < block.count ? Array(block[drop..<keep]) : block
        }
    }

    /// Float samples as 16-bit little-endian PCM: clipped to [-1, 1], scaled by 32767 and
    /// rounded; what is not a number is silence.
    static func pcm16(_ samples: [Float]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: samples.count * 2)
        for (i, sample) in samples.enumerated() {
            let clipped = sample.isNaN ? 0 : min(max(sample, -1), 1)
            let value = UInt16(bitPattern: Int16((clipped * 32767).rounded()))
            out[2 * i] = UInt8(value & 0xFF)
            out[2 * i + 1] = UInt8(value >> 8)
        }
        return out
    }
}
