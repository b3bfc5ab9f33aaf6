import Foundation

/// Smart render's checks of the H.264 bytes it copies (`AVCConfiguration`): an `avcC`
/// sample description (its first SPS's sampling read too), and a packet's structure (`AVCConfiguration.damage`, length-prefixed
/// NAL units) against its picture parameter sets. Any bytes give an answer, never a crash;
/// a description that parses writes back to bytes that parse to it again. The first byte
/// splits the input: that many bytes of `avcC`, the rest a packet.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    guard let first = data.first else { return 0 }
    let split = min(1 + Int(first), data.count)
    let description = data.subdata(in: 1..<split), packet = data.subdata(in: split..<data.count)
    var ids: Set<Int> = [0]
    if let c = AVCConfiguration(description) {
        FuzzInput.require(AVCConfiguration(c.data) == c, "an avcC that does not read back as itself")
        ids = Set(c.pictureParameterSetIDs)
        _ = c.sequenceParameterSetIDs
        if let sampling = c.sampling {
            FuzzInput.require(sampling.chromaFormat >= 0 && sampling.bitDepth >= 8, "a negative chroma format or bit depth")
        }
        _ = c.x264Profile
    }
    for lengthSize in [1, 2, 4] {
        let damage = AVCConfiguration.damage(in: packet, lengthSize: lengthSize, pictureParameterSetIDs: ids)
        FuzzInput.require(damage.map { !$0.isEmpty && !$0.contains("\n") } ?? true, "an empty or multi-line reason")
        _ = AVCConfiguration.isIDR(packet, lengthSize: lengthSize)
    }
    return 0
}
