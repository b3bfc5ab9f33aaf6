internal import CFFmpeg
import Foundation

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
