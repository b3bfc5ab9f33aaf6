import Foundation
import ReelMetadata

/// The keys a QuickTime `mebx` track might declare: every well-known type code, a
/// reverse-DNS group (whose value holds nested items) and the ISO 6709 location.
let keys: [QuickTimeMetadataKey] = {
    let codes: [UInt32] = [0, 1, 2, 3, 4, 5, 12, 13, 14, 21, 22, 23, 24, 27, 28, 65, 66, 67, 70, 71, 72, 74, 75, 76, 77, 78, 79]
    var keys = codes.enumerated().map { i, code in
        QuickTimeMetadataKey(localID: UInt32(i + 1), key: "com.example.type-\(code)", dataType: .wellKnown(code))
    }
    keys.append(
        QuickTimeMetadataKey(
            localID: 100, key: "com.apple.quicktime.detected-face",
            dataType: .reverseDNS("com.apple.quicktime.detected-face")))
    keys.append(QuickTimeMetadataKey(localID: 101, key: "com.apple.quicktime.location.ISO6709", dataType: .wellKnown(1)))
    keys.append(QuickTimeMetadataKey(localID: 102, key: "com.apple.quicktime.video-orientation", dataType: .wellKnown(22)))
    keys.append(QuickTimeMetadataKey(localID: 103, key: "com.example.untyped"))
    return keys
}()

/// QuickTime timed-metadata (`mebx`) samples: sized items, values decoded by type,
/// nested groups, locations.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    _ = FuzzInput.run("QuickTimeMetadataSample.rawItems", { () throws(ReelError) in try QuickTimeMetadataSample.rawItems(data) })
    _ = FuzzInput.run(
        "QuickTimeMetadataSample.items",
        { () throws(ReelError) in
            try QuickTimeMetadataSample.items(sample: data, keys: keys, timeRange: FuzzInput.oneSecond)
        })
    return 0
}
