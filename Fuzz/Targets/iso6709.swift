import Foundation
import ReelMetadata

/// ISO 6709 location strings (degrees, degrees-minutes, degrees-minutes-seconds,
/// altitude, CRS), as QuickTime stores them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: FuzzInput.data(start, count), as: UTF8.self)
    if let location = FuzzInput.run("ISO6709.parse", { () throws(ReelError) in try ISO6709.parse(text) }) {
        let written = ISO6709.string(latitude: location.latitude, longitude: location.longitude, altitude: location.altitude)
        FuzzInput.require(
            FuzzInput.run("ISO6709.parse of its own string", { () throws(ReelError) in try ISO6709.parse(written) }) != nil,
            "ISO6709 cannot read back \"\(written)\"")
    }
    return 0
}
