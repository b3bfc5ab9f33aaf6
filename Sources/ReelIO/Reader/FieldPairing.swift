internal import CFFmpeg

/// Tells which packets of an H.264 stream coded as separate fields (field pictures, as in
/// 1080i broadcast and AVCHD camcorders) are the second field of a frame. Each field is a
/// packet of its own with a presentation time of its own, half a frame after the first
/// one's, but the decoder gives out one frame for the two, at the first field's time. A
/// reader that took the second field's time for a frame's would look for a frame that
/// never comes out, and would take the frame for half as long as it shows.
///
/// FFmpeg's own H.264 parser reads each packet's slice header, fed the packet whole
/// (`PARSER_FLAG_COMPLETE_FRAMES`) on a codec context of its own: it reports a field
/// picture (`picture_structure`) and, for the second field of a pair, the pair's field order
/// (`field_order`), from the rule of ITU-T H.264 7.4.1.2.4 (a field that follows the
/// opposite field with the same `frame_num` completes its frame).
final class FieldPairing {
    private var parser: UnsafeMutablePointer<AVCodecParserContext>
    private let context: UnsafeMutablePointer<AVCodecContext>
    /// The time of the last packet, when it was the first field of a pair.
    private var firstField: Int64?
    /// Where the frames whose second field came last end (that field's end), by the
    /// frame's time: the decoder gives a frame the first field's duration, half its own.
    private var frameEnds: [(pts: Int64, end: Int64)] = []
    private static let frameEndsKept = 64

    /// Pairing for `stream`, or nil when it cannot hold field pictures: not H.264, or
    /// said to be progressive.
    init?(_ stream: UnsafeMutablePointer<AVStream>) {
        guard let parameters = stream.pointee.codecpar, parameters.pointee.codec_id == AV_CODEC_ID_H264,
            parameters.pointee.field_order != AV_FIELD_PROGRESSIVE,
            let parser = Self.makeParser()
        else { return nil }
        guard let context = avcodec_alloc_context3(nil) else {
            av_parser_close(parser)
            return nil
        }
        guard avcodec_parameters_to_context(context, parameters) >= 0 else {
            av_parser_close(parser)
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            return nil
        }
        self.parser = parser
        self.context = context
    }

    deinit {
        av_parser_close(parser)
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    private static func makeParser() -> UnsafeMutablePointer<AVCodecParserContext>? {
        guard let parser = av_parser_init(Int32(AV_CODEC_ID_H264.rawValue)) else { return nil }
        parser.pointee.flags |= PARSER_FLAG_COMPLETE_FRAMES
        return parser
    }

    /// Starts afresh after a seek: the next packet pairs with none before it. (The parser
    /// is made again: it remembers the last field it read.)
    func reset() {
        firstField = nil
        if let fresh = Self.makeParser() {
            av_parser_close(parser)
            parser = fresh
        }
    }

    /// Where the frame at `pts` ends, when its two fields were among the last packets marked.
    func end(ofFrameAt pts: Int64) -> Int64? { frameEnds.last { $0.pts == pts }?.end }

    /// Sets `packet.secondFieldOf` and `packet.isFirstField` for the stream's next packet
    /// in decoding order.
    func mark(_ packet: Packet) {
        packet.secondFieldOf = nil
        packet.isFirstField = false
        let first = firstField
        firstField = nil
        guard let data = packet.pointer.pointee.data, packet.pointer.pointee.size > 0 else { return }
        var out: UnsafeMutablePointer<UInt8>?
        var outSize: Int32 = 0
        _ = av_parser_parse2(
            parser, context, &out, &outSize, data, packet.pointer.pointee.size,
            reel_nopts_value(), reel_nopts_value(), -1)
        let structure = parser.pointee.picture_structure
        guard structure == AV_PICTURE_STRUCTURE_TOP_FIELD || structure == AV_PICTURE_STRUCTURE_BOTTOM_FIELD else { return }
        let order = parser.pointee.field_order
        if let first, order == AV_FIELD_TT || order == AV_FIELD_BB {
            packet.secondFieldOf = first
            let none = reel_nopts_value()
            if first != none, packet.pts != none, packet.duration > 0 {
                frameEnds.append((first, packet.pts + packet.duration))
                if frameEnds.count > Self.frameEndsKept { frameEnds.removeFirst() }
            }
        } else {
            packet.isFirstField = true
            firstField = packet.pts
        }
    }
}
