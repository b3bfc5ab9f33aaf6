import Foundation
import ReelCore
import ReelMetadata

/// What the writer thread is asked to do, with times relative to the session start.
enum WriterCommand: Sendable {
    case video(input: Int, buffer: PixelBuffer, time: MediaTime)
    case audio(input: Int, audio: DecodedAudio)
    case sample(input: Int, sample: SampleBuffer)
    /// A passthrough packet: decode time and keyframe flag kept, never dropped.
    case packet(input: Int, sample: SampleBuffer)

    /// The command with its time moved by `-offset`; nil when it lies before the session.
    func relative(to offset: MediaTime) -> WriterCommand? {
        switch self {
        case .video(let i, let b, let t):
            let r = t - offset
            return r < .zero ? nil : .video(input: i, buffer: b, time: r)
        case .audio(let i, var a):
            // Audio before the start is the track writer's to drop (or encode as a pre-roll).
            a.presentationTime = a.presentationTime - offset
            return .audio(input: i, audio: a)
        case .sample(let i, let s):
            let moved = Self.moved(s, back: offset)
            return moved.presentationTime < .zero ? nil : .sample(input: i, sample: moved)
        case .packet(let i, let s):
            return .packet(input: i, sample: Self.moved(s, back: offset))
        }
    }

    /// `sample` moved `offset` earlier; a GPMF payload's stream stamps (STMP) on the
    /// track's clock move with it, so readers still place its samples where they were.
    private static func moved(_ sample: SampleBuffer, back offset: MediaTime) -> SampleBuffer {
        var s = sample
        s.presentationTime = s.presentationTime - offset
        if s.decodeTime.isNumeric { s.decodeTime = s.decodeTime - offset }
        if s.metadataFormat == .gpmd, offset != .zero, let data = try? GPMF.restamped(s.data, spanning: sample.timeRange, by: { $0 - offset }) {
            s.data = data
        }
        return s
    }
}

/// The muxer and the track writers of one ``AssetWriter``, driven by its writer thread.
final class WriterCore: @unchecked Sendable {
    // @unchecked: made and set up (header written) by startWriting on the caller's thread,
    // then handed whole to the writer thread, which alone uses it from then on.
    let output: OutputFormatContext
    /// The FFmpeg track of each input; nil for the inputs `appended` writes.
    let tracks: [(any TrackWriter)?]
    /// The `mebx`/`camm` tracks added after FFmpeg's trailer (MP4/MOV only).
    let appended: AppendedMetadataTracks?

    /// Writes the header, then the cover picture's one packet when the file has an
    /// attached-picture stream.
    init(
        output: OutputFormatContext, tracks: [(any TrackWriter)?], appended: AppendedMetadataTracks?, options: [String: String],
        attachedPicture: (data: Data, streamIndex: Int32)? = nil
    ) throws(ReelError) {
        self.output = output
        self.tracks = tracks
        self.appended = appended
        try output.writeHeader(options: options)
        for track in tracks { track?.headerWritten(output) }
        if let attachedPicture { try output.writeAttachedPicture(attachedPicture.data, streamIndex: attachedPicture.streamIndex) }
    }

    func handle(_ command: WriterCommand) throws(ReelError) {
        switch command {
        case .video(let i, let buffer, let time):
            guard let track = tracks[i] as? VideoTrackWriter else { return }
            try track.write(buffer, at: time, into: output)
        case .audio(let i, let audio):
            guard let track = tracks[i] as? AudioTrackWriter else { return }
            try track.write(audio, at: audio.presentationTime, into: output)
        case .sample(let i, let sample) where appended?.handles(i) == true:
            try appended?.write(sample, input: i, at: sample.presentationTime)
        case .sample(let i, let sample), .packet(let i, let sample):
            guard let track = tracks[i] as? PacketTrackWriter else { return }
            try track.write(sample, at: sample.presentationTime, into: output)
        }
    }

    /// Drains every encoder and writes the trailer; then, for MP4/MOV, adds the `mebx`
    /// and `camm` tracks to `file` and links its data tracks to the video.
    func finish(file: URL) throws(ReelError) {
        for track in tracks { try track?.finish(output) }
        try output.finish()
        try appended?.finish(file: file)
    }
}
