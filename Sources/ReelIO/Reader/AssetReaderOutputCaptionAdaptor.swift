import Foundation
import ReelCaptions
import ReelCore

/// Turns the raw samples of a caption track output into `Caption`s and
/// `CaptionGroup`s (AVAssetReaderOutputCaptionAdaptor).
///
/// The output must use `.passthrough` settings. Each sample is decoded by its format
/// through a `CaptionSampleDecoder` made with the track's header: 3GPP timed text (`tx3g`,
/// mov_text) from MP4/MOV, and SubRip, WebVTT and ASS text from Matroska, each caption with
/// the region and alignment its sample, cue settings or track header give. A sample is one
/// caption timed by the sample's time range; an empty sample (a gap) gives none. A sample
/// that does not decode is skipped and a `CaptionWarning` naming its time is added to
/// ``warnings``.
///
/// CEA-608 tracks (`c608` in MOV) are a stream of byte pairs, decoded by a
/// `CEA608Stream` for one channel, ``closedCaptionChannel`` (CC1 unless chosen): a
/// caption each time the screen changes, given once it ends. Over a video track output
/// (`.video` settings), the adaptor reads the CEA-608 captions the pictures carry (EIA-608
/// in H.264 SEI, `VideoFrame/closedCaptions`) the same way; ask for a small picture, the
/// frames are decoded only for their captions.
public final class AssetReaderOutputCaptionAdaptor: AsyncSequence, Sendable {
    public typealias Element = Caption
    public typealias Failure = ReelError

    public let assetReaderTrackOutput: AssetReaderTrackOutput
    /// The CEA-608 channel read from a `c608` track or from the captions in the pictures:
    /// 1-4 for CC1-CC4 (CC1 and CC2 on field 1, CC3 and CC4 on field 2). AVFoundation's
    /// adaptor has no such choice (it reads CC1); other tracks ignore it.
    public let closedCaptionChannel: Int
    private let warningsStore = Lock([CaptionWarning]())
    /// The decoder of a text track's samples, made at its first sample.
    private let sampleDecoder = Lock<CaptionSampleDecoder?>(nil)
    /// The CEA-608 decoder, made at the first 608 sample, and the captions it has ended
    /// that were not given yet.
    private let stream = Lock<(decoder: CEA608Stream?, pending: [Caption], end: MediaTime)>((nil, [], .zero))

    /// An adaptor over `output`, reading CEA-608 channel CC`closedCaptionChannel` (1-4)
    /// where the track holds CEA-608.
    /// - Throws: `.invalidArgument` for an output without `.passthrough` or `.video`
    ///   settings, or a channel outside 1-4.
    public init(assetReaderTrackOutput output: AssetReaderTrackOutput, closedCaptionChannel: Int = 1) throws(ReelError) {
        switch output.settings {
        case .passthrough, .video: break
        default:
            throw ReelError(
                .invalidArgument, "a caption adaptor needs an output with .passthrough settings, or .video for the captions in the pictures",
                trackID: output.trackID)
        }
        guard (1...4).contains(closedCaptionChannel) else {
            throw ReelError(
                .invalidArgument, "CEA-608 channel \(closedCaptionChannel) is not 1-4 (CC1-CC4)", trackID: output.trackID, field: "closedCaptionChannel")
        }
        self.assetReaderTrackOutput = output
        self.closedCaptionChannel = closedCaptionChannel
    }

    /// The samples skipped so far because they did not decode, in track order.
    public var warnings: [CaptionWarning] { warningsStore.withLock { $0 } }

    /// The caption of one sample; nil for a gap or a sample that does not decode.
    private func caption(of sample: SampleBuffer) -> Caption? {
        do {
            let decoder = try sampleDecoder.withLock { (d) throws(ReelError) -> CaptionSampleDecoder in
                if let d, d.format == sample.format { return d }
                let made = try CaptionSampleDecoder(
                    format: sample.format,
                    trackHeader: assetReaderTrackOutput.formatDescription?.codecConfiguration ?? Data())
                d = made
                return made
            }
            let duration = sample.duration.isNumeric ? sample.duration : .zero
            return try decoder.caption(sample.data, timeRange: TimeRange(start: sample.presentationTime, duration: duration), cueSettings: sample.cueSettings)
        } catch {
            let warning = CaptionWarning(
                .movText, "track \(assetReaderTrackOutput.trackID): could not decode the \(sample.format) sample: \(error.message)",
                time: sample.presentationTime)
            warningsStore.withLock { $0.append(warning) }
            return nil
        }
    }

    /// Feeds a CEA-608 sample to the stream decoder; false for a sample of another format.
    private func feed608(_ sample: SampleBuffer) -> Bool {
        guard CEA608Stream.formats.contains(sample.format) else { return false }
        feed608(sample.data, at: sample.presentationTime, duration: sample.duration)
        return true
    }

    private func feed608(_ data: Data, at time: MediaTime, duration: MediaTime) {
        stream.withLock { s in
            var decoder = s.decoder ?? (try? CEA608Stream(channel: closedCaptionChannel))
            decoder?.append(data, at: time)
            s.pending += decoder?.takeCaptions() ?? []
            if duration.isNumeric { s.end = MediaTime.maximum(s.end, time + duration) }
            s.decoder = decoder
        }
    }

    /// The next caption the CEA-608 decoder has ended; at the end of the track (`ended`),
    /// the one still showing.
    private func pending608(ended: Bool) -> Caption? {
        let (caption, newWarnings) = stream.withLock { s -> (Caption?, [CaptionWarning]) in
            var found: [CaptionWarning] = []
            if ended, var decoder = s.decoder {
                decoder.finish(at: s.end)
                s.pending += decoder.takeCaptions()
                found = decoder.warnings
                s.decoder = nil
            }
            return (s.pending.isEmpty ? nil : s.pending.removeFirst(), found)
        }
        if !newWarnings.isEmpty { warningsStore.withLock { $0 += newWarnings } }
        return caption
    }

    /// The caption of one sample read, or the next the 608 decoder ended.
    private func take(_ sample: AssetReaderSample) -> Caption? {
        if let frame = sample.videoFrame {
            feed608(frame.closedCaptions ?? Data(), at: frame.presentationTime, duration: frame.duration)
            return pending608(ended: false)
        }
        guard let buffer = sample.sampleBuffer else { return nil }
        if feed608(buffer) { return pending608(ended: false) }
        return caption(of: buffer)
    }

    /// The next caption, blocking the calling thread; nil at the end of the track.
    @available(*, noasync, message: "blocks the thread: iterate the adaptor with for try await instead")
    public func nextCaption() throws(ReelError) -> Caption? {
        if let caption = pending608(ended: false) { return caption }
        while let sample = try assetReaderTrackOutput.nextSample() {
            if let caption = take(sample) { return caption }
        }
        return pending608(ended: true)
    }

    /// The next caption, suspending until it is read; nil at the end of the track.
    public func next(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> Caption? {
        if let caption = pending608(ended: false) { return caption }
        while let sample = try await assetReaderTrackOutput.next(isolation: actor) {
            if let caption = take(sample) { return caption }
        }
        return pending608(ended: true)
    }

    /// Every remaining caption, cut into the groups of captions showing together
    /// (`CaptionGroup/groups(for:)`).
    public func captionGroups(isolation actor: isolated (any Actor)? = #isolation) async throws(ReelError) -> [CaptionGroup] {
        var captions: [Caption] = []
        while let caption = try await next(isolation: actor) { captions.append(caption) }
        return CaptionGroup.groups(for: captions)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let adaptor: AssetReaderOutputCaptionAdaptor

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ReelError) -> Caption? {
            try await adaptor.next(isolation: actor)
        }

        public mutating func next() async throws(ReelError) -> Caption? {
            try await adaptor.next(isolation: nil)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(adaptor: self) }

    /// The codecs whose pictures may carry CEA-608 in their user data (H.264 and HEVC SEI,
    /// MPEG-2 user data), as FFmpeg names them.
    public static let closedCaptionVideoCodecs: Set<String> = ["h264", "hevc", "mpeg2video"]

    /// Whether the pictures of video track `trackID` of `url` carry closed captions, from
    /// the frames of its first `duration` (decoded small, for their captions only).
    public static func videoCarriesClosedCaptions(
        url: URL, trackID: Int32,
        within duration: MediaTime = MediaTime(value: 2, timescale: 1)
    ) async throws(ReelError) -> Bool {
        let reader = try await AssetReader.open(url: url)
        guard let track = reader.track(withID: trackID), closedCaptionVideoCodecs.contains(track.formatDescription.codecName) else { return false }
        let output = AssetReaderTrackOutput(trackID: trackID, settings: .video(pixelFormat: .yuv420p, width: 16, height: 16), bufferCapacity: 4)
        try reader.add(output)
        try reader.startReading()
        defer { reader.cancelReading() }
        var first: MediaTime?
        while let frame = try await output.next(isolation: nil)?.videoFrame {
            if frame.closedCaptions?.isEmpty == false { return true }
            let start = first ?? frame.presentationTime
            first = start
            if frame.presentationTime - start >= duration { break }
        }
        return false
    }
}
