import Foundation

/// Smart render's checks of the HEVC bytes it copies (`HEVCConfiguration`, `HEVCNAL`): an
/// `hvcC` sample description, and a packet's structure (`HEVCNAL.damage`, length-prefixed
/// NAL units) against its picture parameter sets. Any bytes give an answer, never a crash;
/// a description that parses writes back to bytes that parse to the same. The first two
/// bytes split the input: that many bytes of `hvcC` (big-endian), the rest a packet.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    guard data.count >= 2 else { return 0 }
    let split = min(2 + (Int(data[data.startIndex]) << 8 | Int(data[data.startIndex + 1])), data.count)
    let description = data.subdata(in: 2..<split), packet = data.subdata(in: split..<data.count)
    var ids: Set<Int> = [0]
    if let c = HEVCConfiguration(description) {
        let again = HEVCConfiguration(c.data)
        FuzzInput.require(again == c && again?.data == c.data, "an hvcC that does not read back as itself")
        ids = Set(c.pictureParameterSetIDs)
        _ = (c.x265Level, c.lengthSize, c.isMainCompatible, c.parameterSetSample)
    }
    for lengthSize in [1, 2, 4] {
        let damage = HEVCNAL.damage(in: packet, lengthSize: lengthSize, pictureParameterSetIDs: ids)
        FuzzInput.require(damage.map { !$0.isEmpty && !$0.contains("\n") } ?? true, "an empty or multi-line reason")
        _ = HEVCNAL.picture(in: packet, lengthSize: lengthSize)
    }
    return 0
}
