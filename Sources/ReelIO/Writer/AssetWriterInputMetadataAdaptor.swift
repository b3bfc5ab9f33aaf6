import Foundation
import ReelCore

/// Appends ``TimedMetadataGroup``s to a metadata ``AssetWriterInput``
/// (AVAssetWriterInputMetadataAdaptor): each group becomes one sample, timed by the
/// group's time range, its bytes made by an encode function for the input's format.
public final class AssetWriterInputMetadataAdaptor: Sendable {
    /// Encodes one group into the bytes of one sample.
    public typealias Encode = @Sendable (TimedMetadataGroup) throws -> Data

    public let assetWriterInput: AssetWriterInput
    /// The sample format: `gpmd` or `klv`.
    public let format: String
    private let encode: Encode

    /// An adaptor over a `.metadata(format:)` input, encoding with `encode`, or, when nil,
    /// with ``defaultEncode(forFormat:)``.
    public init(assetWriterInput input: AssetWriterInput, encode: Encode? = nil) throws(ReelError) {
        guard case .metadata(let format) = input.settings else {
            throw ReelError(.invalidArgument, "a metadata adaptor needs an input with .metadata(format:) settings")
        }
        self.assetWriterInput = input
        self.format = format
        self.encode = encode ?? Self.defaultEncode(forFormat: format)
    }

    /// The encode function Reel uses for a sample format.
    ///
    /// Groups read by a reader without a decoder for their format hold the raw sample as
    /// a `reel/sample.<format>` data item: those bytes are written back unchanged. Other
    /// groups need an encode function for the format.
    public static func defaultEncode(forFormat format: String) -> Encode {
        { group in
            let raw = MetadataIdentifier(keySpace: "reel", key: "sample.\(format)")
            if let bytes = group.item(raw)?.dataValue { return bytes }
            throw ReelError(.metadataFormat, "no encoder for \(format) metadata: pass an encode function to the adaptor", time: group.timeRange.start)
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
        try await assetWriterInput.append(SampleBuffer(data: data, presentationTime: group.timeRange.start,
                                                       duration: group.timeRange.duration, format: format))
    }
}
