internal import CFFmpeg
import Foundation
import ReelCore

extension FormatDescription {
    /// The decoder configuration the container stores beside the samples (FFmpeg's
    /// `extradata`: `avcC` for H.264, `hvcC` for HEVC, the AudioSpecificConfig for AAC);
    /// empty when there is none. Two streams whose configurations are equal decode each
    /// other's packets, which is what joining by stream copy needs.
    public var codecConfiguration: Data {
        let par = parameters.pointer.pointee
        guard let bytes = par.extradata, par.extradata_size > 0 else { return Data() }
        return Data(bytes: bytes, count: Int(par.extradata_size))
    }
}

extension FormatDescription {
    /// The same description with `configuration` as its decoder configuration (`avcC` for
    /// H.264): how a smart render's track declares the parameter sets of its re-encoded
    /// stretches beside the source's, in the one sample description an MP4 track holds.
    /// `codecTag` names the sample entry when given (`hev1`: parameter sets also in the
    /// samples); a copy written with it keeps it.
    public func replacingCodecConfiguration(_ configuration: Data, codecTag: String? = nil) throws(ReelError) -> FormatDescription {
        let copy: CodecParameters
        do {
            copy = try CodecParameters(copying: parameters.pointer, timeBase: parameters.timeBase, frameRate: parameters.frameRate)
        } catch {
            throw ReelError(.outputFailed, "could not copy a track's codec parameters", underlying: error)
        }
        let par = copy.pointer
        if let codecTag { par.pointee.codec_tag = fourCCTag(codecTag) ?? 0 }
        av_free(par.pointee.extradata)
        par.pointee.extradata = nil
        par.pointee.extradata_size = 0
        if !configuration.isEmpty {
            guard let bytes = av_mallocz(configuration.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else {
                throw ReelError(.outputFailed, "out of memory for a sample description")
            }
            configuration.withUnsafeBytes { bytes.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: configuration.count) }
            // The copied parameters own the block from here (avcodec_parameters_free frees it).
            par.pointee.extradata = bytes
            par.pointee.extradata_size = Int32(configuration.count)
        }
        var description = FormatDescription(parameters: copy)
        description.metadataKeys = metadataKeys
        return description
    }
}
