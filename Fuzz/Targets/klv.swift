import Foundation
import ReelMetadata

/// KLV: packets with BER lengths, MISB ST 0601 local sets (tags, checksum, scaled
/// values) and EG 0104 universal sets, and the groups timed from their time stamps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    if let packets = FuzzInput.run("KLV.packets", { () throws(ReelError) in try KLV.packets(in: data) }) {
        for packet in packets.prefix(64) {
            if let set = FuzzInput.run("MISB0601.decode", { () throws(ReelError) in try MISB0601.decode(packet) }) {
                _ = set.metadataItems(time: .zero, duration: .zero)
                // The fix with its attitude, course and velocity encodes (or is refused) and decodes again.
                if let fix = set.sensorFix, let packet = FuzzInput.run("MISB0601.encode(fix:)", { () throws(ReelError) in try MISB0601.encode(fix: fix) }) {
                    _ = FuzzInput.run("MISB0601.decode of an encoded fix", { () throws(ReelError) in try MISB0601.decode(packet) })
                }
            }
            if let set = FuzzInput.run("EG0104.decode", { () throws(ReelError) in try EG0104.decode(packet) }) {
                _ = set.metadataItems(time: .zero, duration: .zero)
                _ = set.deviceFix
            }
        }
    }
    _ = FuzzInput.run("MISB0601.decode(data)", { () throws(ReelError) in try MISB0601.decode(data) })
    _ = FuzzInput.run("EG0104.decode(data)", { () throws(ReelError) in try EG0104.decode(data) })
    // Once with a time and once asynchronous (no time), as transport streams deliver them.
    let timed: [(data: Data, presentationTime: MediaTime?)] = [(data, MediaTime(value: 1, timescale: 30)), (data, nil)]
    _ = FuzzInput.run("KLV.groups", { () throws(ReelError) in try KLV.groups(packets: timed) })
    return 0
}
