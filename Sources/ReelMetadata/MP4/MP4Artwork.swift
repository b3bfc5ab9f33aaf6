/// A cover picture written into a finished MP4 or QuickTime movie as the QuickTime
/// metadata key `com.apple.quicktime.artwork` (namespace `mdta`), where AVFoundation keeps
/// a movie's artwork: an entry added to the `keys` box of `moov/udta/meta` (handler
/// `mdta`) and an item of that index in its `ilst`, a `data` box of well-known type 13
/// (JPEG) or 14 (PNG). A movie without such a `meta` gets one (`hdlr`, `keys`, `ilst`),
/// so that the file keeps a single `keys` box.
///
/// FFmpeg 5.1's MOV muxer writes no cover at all, and its MP4 muxer writes none when it
/// writes metadata keys (`movflags use_metadata_tags`): ``MP4TrackAppender`` adds this one
/// in its pass over the file.
public struct MP4Artwork: Sendable, Equatable {
    /// The picture's bytes.
    public var bytes: [UInt8]
    /// The well-known data type of the `data` box (``QuickTimeDataType/jpeg``, ``QuickTimeDataType/png``).
    public var dataType: UInt32

    public static let key = "com.apple.quicktime.artwork"

    public init(bytes: [UInt8], dataType: UInt32) {
        self.bytes = bytes
        self.dataType = dataType
    }

    /// The payload of `moov/udta` (`udta`, nil when the movie has none) with the artwork
    /// added to its QuickTime metadata.
    func userData(adding udta: [UInt8]?) throws(ReelError) -> [UInt8] {
        let bytes = udta ?? []
        let children = try MP4Box.parse(bytes, range: 0..<bytes.count, base: 0, parent: "moov/udta")
        var out: [UInt8] = []
        var added = false
        for child in children {
            let raw = Array(bytes[Int(child.offset)..<Int(child.end)])
            if !added, child.type == "meta", let meta = try rewritten(meta: child, in: bytes) {
                out += meta
                added = true
            } else {
                out += raw
            }
        }
        if !added {
            let keys = MP4BoxNode.full("keys", [0, 0, 0, 0])
            let meta = Self.meta(full: true, hdlr: Self.metadataHandler, keys: keys.payload!, ilst: [])
            out += try appending(toMeta: meta)
        }
        return out
    }

    /// The `hdlr` payload of QuickTime metadata: version and flags, pre-defined, `mdta`,
    /// three reserved words and an empty name.
    static let metadataHandler: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0] + FourCC("mdta").bytes + [UInt8](repeating: 0, count: 12) + [0]

    /// A `meta` box's parts, to rebuild it with one more key.
    private struct Meta {
        var full: Bool
        var before: [UInt8] = []
        var keys: [UInt8]?
        var ilst: [UInt8]?
        var after: [UInt8] = []
    }

    /// `meta` rebuilt with the artwork added, or nil when its handler is not `mdta`.
    private func rewritten(meta box: MP4Box, in bytes: [UInt8]) throws(ReelError) -> [UInt8]? {
        let payload = Int(box.payloadRange.lowerBound)..<Int(box.payloadRange.upperBound)
        // Full box in MP4, plain in QuickTime: told apart by where the `hdlr` header lies.
        let plain = payload.count >= 8 && FourCC(bytes: bytes[(payload.lowerBound + 4)..<(payload.lowerBound + 8)]) == "hdlr"
        guard plain || payload.count >= 4 else { return nil }
        let children = try MP4Box.parse(
            bytes, range: (payload.lowerBound + (plain ? 0 : 4))..<payload.upperBound, base: 0,
            parent: "moov/udta/meta")
        guard let hdlr = children.first(where: { $0.type == "hdlr" }), hdlr.payloadRange.count >= 12,
            FourCC(bytes: bytes[Int(hdlr.payloadRange.lowerBound + 8)..<Int(hdlr.payloadRange.lowerBound + 12)]) == "mdta"
        else { return nil }
        var parts = Meta(full: !plain)
        for child in children {
            let raw = Array(bytes[Int(child.offset)..<Int(child.end)])
            let inner = Array(bytes[Int(child.payloadRange.lowerBound)..<Int(child.payloadRange.upperBound)])
            switch child.type {
            case "keys" where parts.keys == nil: parts.keys = inner
            case "ilst" where parts.ilst == nil: parts.ilst = inner
            default:
                if parts.keys == nil && parts.ilst == nil { parts.before += raw } else { parts.after += raw }
            }
        }
        return try appending(toMeta: parts)
    }

    private static func meta(full: Bool, hdlr: [UInt8], keys: [UInt8], ilst: [UInt8]) -> Meta {
        Meta(full: full, before: MP4BoxNode.header("hdlr", payloadSize: hdlr.count) + hdlr, keys: keys, ilst: ilst)
    }

    /// The `meta` box of `parts` with one more key, the artwork, and its item.
    private func appending(toMeta parts: Meta) throws(ReelError) -> [UInt8] {
        var keys = parts.keys ?? [0, 0, 0, 0, 0, 0, 0, 0]
        guard keys.count >= 8 else {
            throw ReelError.corrupt("MP4", "moov/udta/meta/keys is \(keys.count) bytes, too short for its count")
        }
        let count = UInt32(keys[4]) << 24 | UInt32(keys[5]) << 16 | UInt32(keys[6]) << 8 | UInt32(keys[7])
        guard count < UInt32.max else { throw ReelError.corrupt("MP4", "moov/udta/meta/keys has no room for another key") }
        let index = count + 1
        keys.replaceSubrange(4..<8, with: [UInt8(index >> 24), UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF)])
        let name = Array(Self.key.utf8)
        var entry = ByteWriter()
        entry.u32be(UInt32(8 + name.count))
        entry.append(contentsOf: FourCC("mdta").bytes)
        entry.append(contentsOf: name)
        keys += entry.bytes
        var data = ByteWriter()
        data.u32be(dataType)
        data.u32be(0)  // country and language: none
        data.append(contentsOf: bytes)
        let dataBox = MP4BoxNode.header("data", payloadSize: data.bytes.count) + data.bytes
        var ilst = parts.ilst ?? []
        ilst += MP4BoxNode.header(FourCC(rawValue: index), payloadSize: dataBox.count) + dataBox
        var payload: [UInt8] = parts.full ? [0, 0, 0, 0] : []
        payload += parts.before
        payload += MP4BoxNode.header("keys", payloadSize: keys.count) + keys
        payload += MP4BoxNode.header("ilst", payloadSize: ilst.count) + ilst
        payload += parts.after
        return MP4BoxNode.header("meta", payloadSize: payload.count) + payload
    }
}
