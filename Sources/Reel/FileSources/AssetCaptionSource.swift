import Foundation
import ReelCaptions
import ReelComposition
import ReelCore
import ReelIO

/// The captions of one caption track of a file, read whole on first use and kept: a track of
/// a media file through `AssetReaderOutputCaptionAdaptor` (3GPP timed text, SubRip,
/// WebVTT, ASS, CEA-608), or a caption file (iTT, SCC, SRT, WebVTT, by extension), which is
/// one track numbered 1. CEA-608 captions (a `c608` track, an SCC file) are read from
/// channel CC`closedCaptionChannel`.
public actor AssetCaptionSource: CaptionSource {
    public let url: URL
    public let trackID: Int32
    /// The CEA-608 channel (1-4) read from a `c608` track or an SCC file.
    public let closedCaptionChannel: Int
    private var read: (captions: [Caption], language: String?)?

    public init(url: URL, trackID: Int32, closedCaptionChannel: Int = 1) {
        self.url = url
        self.trackID = trackID
        self.closedCaptionChannel = closedCaptionChannel
    }

    /// Whether `url` names a caption file rather than a media file, by its extension.
    public static func isCaptionFile(_ url: URL) -> Bool {
        CaptionFormat(fileExtension: url.pathExtension)?.isFileFormat == true
    }

    public func captions() async throws(ReelError) -> [Caption] {
        try await load().captions
    }

    /// The track's language (ISO 639-2 or BCP 47), when the file gives one.
    public func languageCode() async throws(ReelError) -> String? {
        try await load().language
    }

    private func load() async throws(ReelError) -> (captions: [Caption], language: String?) {
        if let read { return read }
        let loaded = Self.isCaptionFile(url) ? try captionFile() : try await mediaTrack()
        read = loaded
        return loaded
    }

    private func captionFile() throws(ReelError) -> (captions: [Caption], language: String?) {
        guard trackID == 1 else {
            throw ReelError(.invalidComposition, "a caption file has one track, 1; track \(trackID) was asked for", path: url.path, trackID: trackID)
        }
        return (try CaptionDocument(contentsOf: url, channel: closedCaptionChannel).captions, nil)
    }

    private func mediaTrack() async throws(ReelError) -> (captions: [Caption], language: String?) {
        let reader = try await AssetReader.open(url: url)
        guard let track = reader.track(withID: trackID) else {
            throw ReelError(.invalidComposition, "the source has no track \(trackID)", path: url.path, trackID: trackID)
        }
        let format = track.formatDescription
        let readable = CaptionSample.readableFormats.union(CEA608Stream.formats)
        guard readable.contains(format.format) || readable.contains(format.codecName) else {
            throw ReelError(.unsupportedFormat, "its source track holds \(format.codecName) captions, which Reel cannot read", path: url.path, trackID: trackID)
        }
        let output = AssetReaderTrackOutput(trackID: trackID, settings: .passthrough, bufferCapacity: 64)
        try reader.add(output)
        let adaptor = try AssetReaderOutputCaptionAdaptor(assetReaderTrackOutput: output, closedCaptionChannel: closedCaptionChannel)
        try reader.startReading()
        var captions: [Caption] = []
        while let caption = try await adaptor.next() { captions.append(caption) }
        let language = try await Asset(url: url).load(.tracks).first { $0.trackID == trackID }?.languageCode
        return (captions, language)
    }
}
