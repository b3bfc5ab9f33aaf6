import Foundation

/// CEA-608 as a media track carries it, decoded into captions for one channel: a `c608`
/// track in MOV (FFmpeg's `eia_608` packets, `cdat`/`cdt2` pairs given as cc_data
/// triplets), one pair of each field a frame at 29.97 fps from the sample's time.
///
/// Feed the samples in order with ``append(_:at:)``; a caption is known once the screen
/// changes again, so ``takeCaptions()`` gives those ended so far, and ``finish(at:)`` ends
/// the last. Pairs with a parity error are skipped with a warning.
public struct CEA608Stream: Sendable {
    /// The sample formats read this way.
    public static let formats: Set<String> = ["c608", "eia_608"]

    public let channel: Int
    private var decoder: CEA608Decoder
    private var taken = 0
    private var lastTime: MediaTime = .zero
    /// What was read past: pairs with a parity error, triplets cut short.
    public private(set) var warnings: [CaptionWarning] = []

    /// A stream decoding channel CC`channel` (1-4: CC1 and CC2 on field 1, CC3 and CC4 on field 2).
    public init(channel: Int = 1) throws(ReelError) {
        guard (1...4).contains(channel) else { throw ReelError(.invalidArgument, "CEA-608: channel \(channel) is not 1-4 (CC1-CC4)") }
        self.channel = channel
        // Field 2's pairs are fed as field 1's: its channels are told apart by data
        // channel, and its miscellaneous codes may use either first byte.
        decoder = CEA608Decoder(channel: CEA608.Channel(number: channel > 2 ? channel - 2 : channel))
    }

    /// Feeds one sample of cc_data triplets (valid flag and field in the first byte, then
    /// the pair) starting at `time`.
    public mutating func append(_ data: Data, at time: MediaTime) {
        let bytes = [UInt8](data)
        if bytes.count % 3 != 0 {
            warnings.append(CaptionWarning(.scc, "a CEA-608 sample of \(bytes.count) bytes is not whole triplets; the rest is skipped", time: time))
        }
        let field = channel > 2 ? 1 : 0
        var frame: Int64 = 0
        for k in stride(from: 0, to: bytes.count - 2, by: 3) where bytes[k] & 0x04 != 0 && Int(bytes[k] & 0x03) == field {
            let at = time + SCC.time(frame: frame)
            frame += 1
            let b1 = bytes[k + 1], b2 = bytes[k + 2]
            guard CEA608.hasOddParity(b1), CEA608.hasOddParity(b2) else {
                warnings.append(CaptionWarning(.scc, "a CEA-608 pair \(SCC.hex(UInt16(b1) << 8 | UInt16(b2))) has a parity error; skipped", time: at))
                continue
            }
            var first = b1 & 0x7F
            if field == 1, first & 0x77 == 0x15 { first &= ~0x01 }
            decoder.feed(first, b2 & 0x7F, at: at)
            lastTime = at + SCC.time(frame: 1)
        }
        decoder.flush()
    }

    /// The captions that ended since the last call, in order.
    public mutating func takeCaptions() -> [Caption] {
        let all = decoder.captions
        defer { taken = all.count }
        return Array(all[taken...])
    }

    /// Ends the caption showing at `time` (the end of the track), or after the last pair
    /// when `time` is earlier.
    public mutating func finish(at time: MediaTime) {
        decoder.finish(at: MediaTime.maximum(time, lastTime))
    }
}
