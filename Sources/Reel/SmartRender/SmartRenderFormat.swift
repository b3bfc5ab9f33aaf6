import Foundation

/// What a smart render copies: H.264 or HEVC samples with 4-byte NAL lengths, and the
/// source's sample description.
enum SmartRenderFormat: Sendable, Hashable {
    case avc(AVCConfiguration)
    case hevc(HEVCConfiguration)

    var lengthSize: Int {
        switch self {
        case .avc(let c): c.lengthSize
        case .hevc(let c): c.lengthSize
        }
    }

    /// Bits per sample: 8, or 10 for H.264 High 10 and HEVC Main 10.
    var bitDepth: Int {
        switch self {
        case .avc(let c): c.sampling?.bitDepth ?? 8
        case .hevc(let c): c.lumaBitDepth
        }
    }

    var pictureParameterSetIDs: Set<Int> {
        switch self {
        case .avc(let c): Set(c.pictureParameterSetIDs)
        case .hevc(let c): Set(c.pictureParameterSetIDs)
        }
    }

    /// Whether `sample` starts a group of pictures a copy can start at: an H.264 IDR
    /// picture; an HEVC random access point (IDR, CRA or BLA).
    func startsGroup(_ sample: Data) -> Bool {
        switch self {
        case .avc: AVCConfiguration.isIDR(sample, lengthSize: 4)
        case .hevc: HEVCNAL.picture(in: sample, lengthSize: 4).isRandomAccessPoint
        }
    }

    /// Whether `sample` is a picture that refers to the group of pictures before its own
    /// (an HEVC RASL picture of an open group): it cannot follow a cut.
    func refersToTheGroupBefore(_ sample: Data) -> Bool {
        switch self {
        case .avc: false
        case .hevc: HEVCNAL.picture(in: sample, lengthSize: 4).isSkippedLeading
        }
    }

    /// What is wrong with `sample`'s structure, or nil.
    func damage(in sample: Data) -> String? {
        switch self {
        case .avc(let c): AVCConfiguration.damage(in: sample, lengthSize: 4, pictureParameterSetIDs: Set(c.pictureParameterSetIDs))
        case .hevc(let c): HEVCNAL.damage(in: sample, lengthSize: 4, pictureParameterSetIDs: Set(c.pictureParameterSetIDs))
        }
    }

    /// What a stretch's first sample carries before its picture: nothing for H.264 (every
    /// parameter set is in the sample description, under IDs of its own); HEVC's parameter
    /// sets, which x265 numbers as the sources do.
    var stretchPrefix: Data {
        switch self {
        case .avc: Data()
        case .hevc(let c): c.parameterSetSample
        }
    }
}
