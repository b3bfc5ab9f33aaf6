import Foundation
import Reel

extension CompositionFile {
    /// How the render is written: the container, the video encoder settings, and which
    /// metadata tracks are carried into the output, in which format.
    public struct Output: Sendable, Hashable, Codable {
        /// `mp4` (default), `mov`, `mkv` or `mpegts`; by default from the output file's extension.
        public var container: String?
        public var video: Video?
        /// The composition metadata tracks to write into the output; every metadata track
        /// when absent, none for `[]`.
        public var metadataTrackIDs: [Int32]?
        /// The format of the metadata tracks written: `auto` (default: each track's own where
        /// the container holds it, else the container's natural one), `gpmd`, `mebx`, `camm`
        /// or `klv` (see `MetadataOutputFormat`).
        public var metadataFormat: String?
        /// Whether the output has sound (the default); `false` writes no audio track, and a
        /// file without audio tracks then gets none of its first source's audio.
        public var audio: Bool?
        /// The audio codec: `aac` (default), `pcm` (16-bit), `pcm24` or `alac` (16-bit
        /// Apple Lossless); PCM goes into MOV or Matroska only, ALAC into MOV or MP4 (M4A)
        /// only (see `AudioEncoderSettings/Codec`).
        public var audioCodec: String?
        /// The sample rate of the output's sound, 8000 to 192000 Hz; the first audio
        /// track's by default.
        public var audioSampleRate: Int?
        /// The channel count of the output's sound, 1 to 8 (FFmpeg's standard layout for
        /// the count: 1 mono, 2 stereo, 6 5.1, 8 7.1); the first audio track's by default.
        public var audioChannels: Int?
        /// Whether the output keeps caption tracks (the default); `false` writes none (a
        /// compositor may still draw them), and a file without caption tracks then gets none
        /// of its first source's.
        public var captions: Bool?
        /// The output's chapters, in composition time (a render of a time range keeps those
        /// that start in it, moved with it); none when absent. MPEG-TS holds none.
        public var chapters: [Chapter]?

        public init(
            container: String? = nil, video: Video? = nil, metadataTrackIDs: [Int32]? = nil, metadataFormat: String? = nil,
            audio: Bool? = nil, audioCodec: String? = nil, audioSampleRate: Int? = nil, audioChannels: Int? = nil,
            captions: Bool? = nil, chapters: [Chapter]? = nil
        ) {
            self.captions = captions
            self.chapters = chapters
            self.container = container
            self.video = video
            self.metadataTrackIDs = metadataTrackIDs
            self.metadataFormat = metadataFormat
            self.audio = audio
            self.audioCodec = audioCodec
            self.audioSampleRate = audioSampleRate
            self.audioChannels = audioChannels
        }

        /// A chapter of the output: its title from `start`, for `duration` (when absent or
        /// zero, until the next chapter starts or the output ends).
        public struct Chapter: Sendable, Hashable, Codable {
            public var title: String
            public var start: MediaTime
            public var duration: MediaTime?

            public init(title: String, start: MediaTime, duration: MediaTime? = nil) {
                self.title = title
                self.start = start
                self.duration = duration
            }

            /// The chapter as `AssetExportSession.chapters` takes it: a group with its
            /// `common/title` item.
            public var group: TimedMetadataGroup {
                let length = duration ?? .zero
                return TimedMetadataGroup(
                    timeRange: TimeRange(start: start, duration: length),
                    items: [MetadataItem(identifier: .commonIdentifierTitle, value: .string(title), time: start, duration: length)])
            }
        }

        /// Video encoder settings.
        public struct Video: Sendable, Hashable, Codable {
            /// `h264` (default), `hevc`, `prores` or `ffv1`.
            public var codec: String?
            /// Constant rate factor for h264/hevc (23 by default).
            public var crf: Int?
            /// A constant quantizer (0...51) instead of `crf`: every frame coded with the same
            /// quantizer and no B-frames, so that `reel render --range` pieces decode to
            /// exactly the frames of the whole render.
            public var qp: Int?
            /// Average bits per second, instead of `crf`.
            public var bitRate: Int?
            /// x264/x265 preset (`veryfast` by default).
            public var preset: String?
            /// Frames between keyframes (the GOP size); 2 s worth by default. `reel render
            /// --range` and plans cut on multiples of it: their pieces (and renders with
            /// `independentGroups` or `qp`) have a keyframe exactly there and nowhere else;
            /// any other render lets the encoder add keyframes at scene cuts, as ffmpeg does.
            public var keyframeInterval: Int?
            /// Whether a whole render codes every group of pictures with an encoder of its
            /// own, as the pieces of `reel render --range` and `reel plan` always are: with
            /// `crf` or `bitRate`, the joined pieces then decode to exactly this render's
            /// frames. Off by default: one encoder codes the whole render, as the ffmpeg
            /// CLI does, and spends fewer bits for the same picture (docs/scale-out.md).
            public var independentGroups: Bool?
            /// `auto` copies the groups of pictures the composition leaves untouched and
            /// encodes only the frames it changes (docs/smart-render.md); `off` (the
            /// default) renders every frame. `reel render --smart-render` overrides it.
            public var smartRender: String?

            public init(
                codec: String? = nil, crf: Int? = nil, qp: Int? = nil, bitRate: Int? = nil, preset: String? = nil,
                keyframeInterval: Int? = nil, independentGroups: Bool? = nil, smartRender: String? = nil
            ) {
                self.smartRender = smartRender
                self.codec = codec
                self.crf = crf
                self.qp = qp
                self.bitRate = bitRate
                self.preset = preset
                self.keyframeInterval = keyframeInterval
                self.independentGroups = independentGroups
            }
        }
    }
}

extension CompositionFile.Output {
    /// The container for an output path: this setting, else the extension (`.mov`, `.mkv`,
    /// `.ts`), else MP4.
    public func fileType(forOutputPath path: String) throws(ReelError) -> AssetWriter.FileType {
        if let name = container {
            guard let t = AssetWriter.FileType(rawValue: name.lowercased()) else {
                throw ReelError(.invalidComposition, "is \"\(name)\": expected one of mp4, mov, mkv, mpegts", field: "output.container")
            }
            return t
        }
        return AssetWriter.FileType(pathExtension: URL(fileURLWithPath: path).pathExtension) ?? .mp4
    }

    /// The smart render asked for: `output.video.smartRender` parsed, `off` when absent.
    public func smartRendering() throws(ReelError) -> SmartRendering {
        guard let name = video?.smartRender else { return .off }
        guard let mode = SmartRendering(rawValue: name.lowercased()) else {
            throw ReelError(.invalidComposition, "is \"\(name)\": expected auto or off", field: "output.video.smartRender")
        }
        return mode
    }

    /// The metadata format asked for: ``metadataFormat`` parsed, `auto` when absent.
    public func metadataOutputFormat() throws(ReelError) -> MetadataOutputFormat {
        guard let name = metadataFormat else { return .auto }
        guard let format = MetadataOutputFormat(rawValue: name.lowercased()) else {
            let names = MetadataOutputFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw ReelError(.invalidComposition, "is \"\(name)\": expected one of \(names)", field: "output.metadataFormat")
        }
        return format
    }

    /// The audio codec asked for (``audioCodec`` parsed, AAC when absent), checked against
    /// the container `fileType` (PCM goes into MOV or Matroska only, ALAC into MOV or
    /// MP4), with ``audioSampleRate`` and ``audioChannels`` checked too.
    public func audioEncoderCodec(for fileType: AssetWriter.FileType) throws(ReelError) -> AudioEncoderSettings.Codec {
        let codec: AudioEncoderSettings.Codec
        switch (audioCodec ?? "aac").lowercased() {
        case "aac": codec = .aac
        case "pcm": codec = .pcm16
        case "pcm24": codec = .pcm24
        case "alac": codec = .alac
        case let other:
            throw ReelError(.invalidComposition, "is \"\(other)\": expected aac, pcm (16-bit), pcm24 or alac", field: "output.audioCodec")
        }
        if codec == .alac, fileType != .mov, fileType != .mp4 {
            throw ReelError(
                .invalidComposition,
                "is \"alac\": ALAC goes into MOV or MP4 (M4A), and the output is \(fileType.rawValue) (write to .mov or .m4a, or use aac or pcm)",
                field: "output.audioCodec")
        }
        if let rate = audioSampleRate, !(8000...192_000).contains(rate) {
            throw ReelError(.invalidComposition, "is \(rate): expected 8000 to 192000 (Hz)", field: "output.audioSampleRate")
        }
        if let channels = audioChannels, !(1...8).contains(channels) {
            throw ReelError(.invalidComposition, "is \(channels): expected 1 to 8", field: "output.audioChannels")
        }
        if codec.isPCM, fileType != .mov, fileType != .mkv {
            throw ReelError(
                .invalidComposition,
                "is \"\(audioCodec ?? "")\": PCM goes into MOV or Matroska, and the output is \(fileType.rawValue) (write to .mov or .mkv, or use aac)",
                field: "output.audioCodec")
        }
        return codec
    }

    /// The encoder settings for frames of `width` x `height` every `frameDuration`; for a
    /// piece of a render (`reel render --range`, `reel plan`) when `piece` is true, whose
    /// groups of pictures are then coded independently.
    public func videoSettings(width: Int, height: Int, frameDuration: MediaTime, piece: Bool = false) throws(ReelError) -> VideoEncoderSettings {
        let v = video ?? Video()
        let codec: VideoEncoderSettings.Codec
        switch (v.codec ?? "h264").lowercased() {
        case "h264", "avc", "libx264": codec = .h264
        case "hevc", "h265", "libx265": codec = .hevc
        case "prores": codec = .proRes(.standard)
        case "ffv1": codec = .ffv1
        case let other:
            throw ReelError(.invalidComposition, "is \"\(other)\": expected one of h264, hevc, prores, ffv1", field: "output.video.codec")
        }
        if let crf = v.crf, !(0...51).contains(crf) {
            throw ReelError(.invalidComposition, "is \(crf): expected 0 to 51", field: "output.video.crf")
        }
        if let qp = v.qp, !(0...51).contains(qp) {
            throw ReelError(.invalidComposition, "is \(qp): expected 0 to 51", field: "output.video.qp")
        }
        if v.qp != nil, codec != .h264 {
            throw ReelError(.invalidComposition, "applies to h264 only", field: "output.video.qp")
        }
        if let rate = v.bitRate, rate <= 0 {
            throw ReelError(.invalidComposition, "is \(rate): expected a positive number of bits per second", field: "output.video.bitRate")
        }
        if let gop = v.keyframeInterval, gop < 1 {
            throw ReelError(.invalidComposition, "is \(gop): expected 1 or more frames", field: "output.video.keyframeInterval")
        }
        let quality: VideoEncoderSettings.Quality? = v.bitRate.map { .bitRate($0) } ?? ((codec == .h264 || codec == .hevc) ? .crf(v.crf ?? 23) : nil)
        let fps = frameDuration.isNumeric && frameDuration > .zero ? 1 / frameDuration.seconds : 30
        let gop = v.keyframeInterval ?? max(Int((2 * fps).rounded()), 1)
        var settings = VideoEncoderSettings(
            codec: codec, width: width, height: height, pixelFormat: .yuv420p,
            quality: v.qp == nil ? quality : nil,
            preset: (codec == .h264 || codec == .hevc) ? (v.preset ?? "veryfast") : nil,
            frameDuration: frameDuration, timescale: Self.timescale(for: frameDuration),
            keyframeInterval: gop)
        // Keyframes exactly every `gop` frames and nowhere else: what --range cuts on. With
        // crf or bitRate, a piece codes each group afresh, and so does a whole render that
        // asks to: a keyframe-aligned piece then codes to the same pictures as the whole
        // render (docs/scale-out.md). A whole render otherwise codes on with one encoder.
        settings.codesGroupsIndependently = settings.quality != nil && (piece || v.independentGroups == true)
        // Pieces, and the renders they are to equal, put their keyframes exactly every `gop`
        // frames (where --range and plans cut). Any other render keeps the encoder's own
        // placement, as the ffmpeg CLI does: at most `gop` frames apart, and at scene cuts.
        let fixedGroups = piece || v.independentGroups == true || v.qp != nil
        let groups = fixedGroups ? "keyint=\(gop):min-keyint=\(gop):scenecut=0" : "keyint=\(gop)"
        switch codec {
        case .h264:
            var params = groups
            if let qp = v.qp { params += ":bframes=0:qp=\(qp)" }
            settings.encoderOptions["x264-params"] = params
        case .hevc:
            settings.encoderOptions["x265-params"] = groups + ":open-gop=0"
        default:
            break
        }
        return settings
    }

    /// A timescale in which every frame time is exact: the frame duration's own (30000 for
    /// 1001/30000), at least 1000.
    static func timescale(for frameDuration: MediaTime) -> Int32 {
        guard frameDuration.isNumeric, frameDuration.timescale > 0 else { return 90000 }
        var t = frameDuration.timescale
        while t < 1000, t <= Int32.max / 10 { t *= 10 }
        return t
    }
}
