/// The format of a timed-metadata track's samples, named by its sample-entry code
/// (`gpmd`, `mebx`, `camm`) or, for KLV, `klv`.
///
/// A struct rather than an enum so that a file's other metadata formats still have a
/// value: `MetadataFormat(rawValue: "tx3g")`. The format has one spelling: the MP4 sample
/// entry `KLVA` (the MPEG-TS registration of SMPTE KLV) is the same format as `klv`, and
/// `init(rawValue:)` turns it into ``klv``, so a format read from a file, a setting or a
/// JSON document compares equal to the statics here.
public struct MetadataFormat: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String

    /// The format `rawValue` names; `KLVA` is read as ``klv``.
    public init(rawValue: String) { self.rawValue = rawValue == "KLVA" ? "klv" : rawValue }

    /// GoPro GPMF (`gpmd`): GPS and other sensor streams in nested KLVs.
    public static let gpmd = MetadataFormat(rawValue: "gpmd")
    /// QuickTime metadata, boxed (`mebx`): items named by the keys of the sample entry.
    public static let mebx = MetadataFormat(rawValue: "mebx")
    /// Camera motion metadata (`camm`): one GPS, IMU or pose record per sample.
    public static let camm = MetadataFormat(rawValue: "camm")
    /// SMPTE KLV (`klv`; the MP4 sample entry `KLVA`): MISB ST 0601 and EG 0104 sets.
    public static let klv = MetadataFormat(rawValue: "klv")

    /// The timed-metadata formats Reel decodes and writes.
    public static let known: [MetadataFormat] = [.gpmd, .mebx, .camm, .klv]

    /// The format a sample's codec code names when it is one of ``known``; nil for any
    /// other code (video, audio and caption codecs, other metadata).
    public init?(knownCode code: String) {
        let format = MetadataFormat(rawValue: code)
        guard Self.known.contains(format) else { return nil }
        self = format
    }

    /// The code itself (`gpmd`, `klv`), as files and settings spell it.
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
