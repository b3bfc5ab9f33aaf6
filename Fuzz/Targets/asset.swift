import Foundation
import ReelMetadata

/// An asset's static metadata read from the boxes of an MP4/QuickTime `moov`: QuickTime
/// user-data texts, ISO and 3GPP user data, `meta` with its handler, `keys` and `ilst`
/// (iTunes and QuickTime metadata), values decoded by their well-known types. Every
/// item's identifier must survive its `keySpace/key` spelling.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](FuzzInput.data(start, count))
    guard let items = FuzzInput.run("MP4MovieMetadata.items", { () throws(ReelError) in try MP4MovieMetadata.items(moov: bytes) })
    else { return 0 }
    for item in items {
        FuzzInput.require(
            MetadataIdentifier(rawValue: item.identifier.rawValue) == item.identifier,
            "identifier \(item.identifier.rawValue) does not read back")
        _ = (item.stringValue, item.numberValue, item.dateValue, item.dataValue)
    }
    return 0
}
