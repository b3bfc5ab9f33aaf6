internal import CFFmpeg
import Foundation
import ReelCore

extension FormatDescription: Hashable {
    /// Two descriptions are equal when they describe the same kind of samples: media type,
    /// codec, sample entry, codec configuration (extradata), picture or audio layout,
    /// profile, level, time base and `mebx` keys (CMFormatDescriptionEqual). Bit rates,
    /// which the container only estimates, are left out.
    public static func == (lhs: FormatDescription, rhs: FormatDescription) -> Bool {
        lhs.parameters === rhs.parameters || (lhs.identity == rhs.identity && lhs.metadataKeys == rhs.metadataKeys)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
        hasher.combine(metadataKeys)
    }

    /// What equality compares, copied out of the codec parameters.
    private var identity: Identity {
        let par = parameters.pointer.pointee
        let extradata = par.extradata.map { Data(bytes: $0, count: Int(max(0, par.extradata_size))) } ?? Data()
        return Identity(
            type: par.codec_type.rawValue, codec: par.codec_id.rawValue, tag: par.codec_tag, extradata: extradata,
            format: par.format, width: par.width, height: par.height, sampleRate: par.sample_rate,
            channels: par.ch_layout.nb_channels, profile: par.profile, level: par.level,
            bitsPerCodedSample: par.bits_per_coded_sample, timeBase: [parameters.timeBase.num, parameters.timeBase.den])
    }

    private struct Identity: Hashable {
        var type: Int32, codec: UInt32, tag: UInt32, extradata: Data, format: Int32, width: Int32, height: Int32
        var sampleRate: Int32, channels: Int32, profile: Int32, level: Int32, bitsPerCodedSample: Int32
        var timeBase: [Int32]
    }
}
