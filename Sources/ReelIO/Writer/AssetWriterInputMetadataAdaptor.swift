import Foundation
import ReelCore
import ReelMetadata

/// Appends `TimedMetadataGroup`s to a metadata ``AssetWriterInput``
/// (AVAssetWriterInputMetadataAdaptor): each group becomes one sample, timed by the
/// group's time range, its bytes made by an encode function for the input's format.
public final class AssetWriterInputMetadataAdaptor: Sendable {
    /// Encodes one group into the bytes of one sample.
    public typealias Encode = @Sendable (TimedMetadataGroup) throws -> Data

    public let assetWriterInput: AssetWriterInput
    /// The sample format: `gpmd`, `mebx`, `camm` or `klv`.
    public let format: MetadataFormat
    private let encode: Encode

    /// An adaptor over a `.metadata(format:)` input, encoding with `encode`, or, when nil,
    /// with `defaultEncode(forFormat:)`.
    public init(assetWriterInput input: AssetWriterInput, encode: Encode? = nil) throws(ReelError) {
        guard case .metadata(let format) = input.settings else {
            throw ReelError(.invalidArgument, "a metadata adaptor needs an input with .metadata(format:) settings")
        }
        self.assetWriterInput = input
        self.format = format
        self.encode = encode ?? Self.defaultEncode(forFormat: format, input: input)
    }

    /// The encode function Reel uses for a sample format.
    ///
    /// A group holding a raw `reel/sample.<format>` data item (what a reader's adaptor
    /// gives for samples it does not decode) is written back unchanged. Otherwise `gpmd`
    /// groups with a GPS fix or `gpmf/` items become a GPMF payload holding all of them
    /// (`GPMFWriter/payload(groups:timeRange:options:)`); `mebx` groups become the group's
    /// `mdta` items, a GPS fix as `mdta/com.apple.quicktime.location.ISO6709` (6 decimals),
    /// their keys added to `input`'s ``AssetWriterInput/metadataKeys``; `camm` groups become
    /// a CAMM GPS record (`CAMM/record(fix:)`); `klv` groups a MISB ST 0601 packet
    /// with its checksum (`MISB0601/encode(fix:version:)`). Other formats need an encode
    /// function.
    public static func defaultEncode(forFormat format: MetadataFormat, input: AssetWriterInput? = nil) -> Encode {
        { group in
            let raw = MetadataIdentifier(keySpace: "reel", key: "sample.\(format)")
            if let bytes = group.item(raw)?.dataValue { return bytes }
            switch format {
            case .gpmd:
                guard GPSFix(group) != nil || group.items.contains(where: { $0.keySpace == .gpmf }) else {
                    throw ReelError(.metadataFormat, "the group has no GPS fix or gpmf item to write as GPMF", time: group.timeRange.start)
                }
                return try GPMFWriter.payload(groups: [group], timeRange: group.timeRange)
            case .mebx:
                guard let input else {
                    throw ReelError(
                        .invalidArgument, "mebx samples need their input's key table: use defaultEncode(forFormat:input:)", time: group.timeRange.start)
                }
                return try input.withMetadataKeys { (keys) throws(ReelError) in try QuickTimeMetadataSample.encode(mebxItems(group), keys: &keys) }
            case .camm:
                guard let fix = GPSFix(group) else {
                    throw ReelError(.metadataFormat, "the group has no GPS fix to write as CAMM", time: group.timeRange.start)
                }
                return CAMM.encode([CAMM.record(fix: fix)])
            case .klv:
                guard let fix = GPSFix(group) else {
                    throw ReelError(.metadataFormat, "the group has no GPS fix to write as MISB ST 0601 KLV", time: group.timeRange.start)
                }
                do throws(ReelError) {
                    return try MISB0601.encode(fix: fix)
                } catch {
                    throw ReelError(error.code, error.message, time: group.timeRange.start)
                }
            default:
                throw ReelError(.metadataFormat, "no encoder for \(format) metadata: pass an encode function to the adaptor", time: group.timeRange.start)
            }
        }
    }

    /// The items a group's `mebx` sample holds: its `mdta` items, with a GPS fix's location
    /// written from the fix's full-precision coordinates.
    static func mebxItems(_ group: TimedMetadataGroup) -> [MetadataItem] {
        var items = group.items.filter { $0.identifier.keySpace == .quickTimeMetadata }
        if let fix = GPSFix(group) {
            let location = ISO6709.string(latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude, fractionDigits: 6)
            items.removeAll { $0.identifier == .quickTimeMetadataLocationISO6709 }
            items.insert(
                MetadataItem(
                    identifier: .quickTimeMetadataLocationISO6709, value: .string(location),
                    dataType: QuickTimeDataType.wellKnown(QuickTimeDataType.utf8).description), at: 0)
        }
        return items
    }

    /// Appends GPS groups as GoPro-style GPMF payloads, one sample per `payloadDuration`
    /// (1.001 s on GoPro cameras) holding every fix that starts in it
    /// (`GPMFWriter/payloads(for:payloadDuration:options:)`). For `gpmd` inputs only.
    public func appendGPS(
        _ groups: [TimedMetadataGroup], payloadDuration: MediaTime = MediaTime(value: 1001, timescale: 1000),
        options: GPMFWriter.Options = GPMFWriter.Options()
    ) async throws(ReelError) {
        guard format == .gpmd else {
            throw ReelError(.invalidArgument, "GPMF payloads go into gpmd tracks; this input writes \(format)")
        }
        for payload in try GPMFWriter.payloads(for: groups, payloadDuration: payloadDuration, options: options) {
            try await assetWriterInput.append(
                SampleBuffer(
                    data: payload.data, presentationTime: payload.timeRange.start,
                    duration: payload.timeRange.duration, format: format))
        }
    }

    /// Encodes `group` and appends it as one sample spanning `group.timeRange`. Groups
    /// must come in time order and have a valid, non-negative duration.
    public func append(_ group: TimedMetadataGroup) async throws(ReelError) {
        guard group.timeRange.isValid, group.timeRange.start.isNumeric, group.timeRange.duration.isNumeric else {
            throw ReelError(.invalidArgument, "a metadata group needs a valid, finite time range", time: group.timeRange.start)
        }
        let data: Data
        do {
            data = try encode(group)
        } catch let error as ReelError {
            throw error
        } catch {
            throw ReelError(.metadataFormat, "could not encode a \(format) sample", time: group.timeRange.start, underlying: error)
        }
        try await assetWriterInput.append(
            SampleBuffer(
                data: data, presentationTime: group.timeRange.start,
                duration: group.timeRange.duration, format: format))
    }
}
