import ArgumentParser
import Foundation
import Reel
import ReelDocuments
import ReelText

/// `reel captions convert|validate`: caption files between iTT, SCC, SRT and WebVTT, and
/// what a format cannot hold.
struct CaptionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "captions",
        abstract: "Convert caption files (iTT, SCC, SRT, WebVTT), check them against a format, burn them into a video.",
        subcommands: [CaptionsConvertCommand.self, CaptionsValidateCommand.self, CaptionsBurnCommand.self]
    )

    /// The file formats, by the names `--format` takes.
    static let formatNames = "itt, scc, srt or vtt"

    /// The caption file format `name` names (`itt`, `scc`, `srt`, `vtt`/`webvtt`).
    static func format(named name: String) throws(ValidationError) -> CaptionFormat {
        guard let format = CaptionFormat(fileExtension: name), format.isFileFormat else {
            throw ValidationError("--format: \"\(name)\" is not a caption file format (\(formatNames))")
        }
        return format
    }

    /// Reads a caption file, in the format its extension names or, failing that, its content
    /// shows; or a media file's caption track (`track`, else its first); prints what the
    /// reader read past as warnings.
    static func read(_ path: String, channel: Int, track: Int32? = nil) async throws(ReelError) -> CaptionDocument {
        let url = CommandEnvironment.current.fileURL(path)
        let doc: CaptionDocument
        do throws(ReelError) {
            if isCaptionFile(url) {
                if let track, track != 1 {
                    throw ReelError(.invalidArgument, "a caption file has one track, 1; --track \(track) was given", field: "--track")
                }
                doc = try CaptionDocument(contentsOf: url, channel: channel)
            } else {
                doc = try await mediaTrack(url, track: track, channel: channel)
            }
        } catch {
            var e = error
            e.path = path
            throw e
        }
        for warning in doc.warnings { CLIOutput.line("warning: \(path): \(warning)") }
        return doc
    }

    /// Whether `url` is a caption file: by its extension, else by how it starts (a missing
    /// file is left to the caption reader, which names it).
    static func isCaptionFile(_ url: URL) -> Bool {
        if let format = CaptionFormat(fileExtension: url.pathExtension) { return format.isFileFormat }
        guard let handle = try? FileHandle(forReadingFrom: url) else { return true }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 512)) ?? Data()
        return CaptionFormat(sniffing: head) != nil
    }

    /// The captions of caption track `track` of a media file, or of its first caption track.
    static func mediaTrack(_ url: URL, track: Int32?, channel: Int) async throws(ReelError) -> CaptionDocument {
        let tracks = try await Asset(url: url).load(.tracks)
        let captionTracks = tracks.filter { $0.mediaType == .text || $0.mediaType == .subtitle }
        let chosen: Int32
        if let track {
            guard let found = tracks.first(where: { $0.trackID == track }) else {
                throw ReelError(
                    .invalidArgument,
                    "the file has no track \(track) (caption tracks: \(captionTracks.isEmpty ? "none" : captionTracks.map { String($0.trackID) }.joined(separator: ", ")))",
                    trackID: track, field: "--track")
            }
            guard captionTracks.contains(where: { $0.trackID == track }) else {
                throw ReelError(.invalidArgument, "track \(track) is a \(found.mediaType) track, not a caption track", trackID: track, field: "--track")
            }
            chosen = track
        } else {
            guard let first = captionTracks.first else {
                throw ReelError(.unsupportedFormat, "not a caption file Reel reads (itt, scc, srt or vtt), nor a media file with a caption track")
            }
            chosen = first.trackID
        }
        return CaptionDocument(captions: try await AssetCaptionSource(url: url, trackID: chosen, closedCaptionChannel: channel).captions())
    }
}

/// `reel captions convert IN -o OUT [--format itt|scc|srt|vtt]`.
struct CaptionsConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a caption file, or a media file's caption track, to iTT, SCC, SRT or WebVTT.",
        discussion: """
            The input is a caption file (by extension, else by content) or a media file, whose \
            first caption track (or --track N) is read. The output format is --format, else the output's extension. What the output format \
            cannot hold (styles, colours, overlapping captions, lines or characters CEA-608 lacks) \
            is listed on stderr, one warning a caption, before the file is written; the file is \
            written anyway, keeping what the format holds. Nothing is written when the input \
            cannot be read.
            """
    )

    @Argument(help: "The caption file to read (.itt, .ttml, .scc, .srt, .vtt), or a media file with a caption track.")
    var input: String

    @Option(name: [.short, .customLong("output")], help: "The caption file to write.")
    var output: String

    @Option(help: "The caption track of a media file input (default: its first caption track).")
    var track: Int32?

    @Option(help: "itt, scc, srt or vtt (default: from the output's extension).")
    var format: String?

    @Option(help: "The CEA-608 channel (1-4) to read from or write to an SCC file (or read from a c608 track).")
    var channel = 1

    @Option(help: "The language (BCP 47) an iTT file declares.")
    var language = "en"

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    func validate() throws {
        guard (1...4).contains(channel) else { throw ValidationError("--channel: \(channel) is not 1-4") }
        if let track, track < 0 { throw ValidationError("--track: \(track) is not a track ID") }
        if let format {
            _ = try CaptionsCommand.format(named: format)
        } else if CaptionFormat(fileExtension: URL(fileURLWithPath: output).pathExtension) == nil {
            throw ValidationError("--format: the output's extension names no caption format; give --format \(CaptionsCommand.formatNames)")
        }
    }

    func run() async throws {
        FFmpegLogging.setQuiet()
        let target = try format.map(CaptionsCommand.format(named:)) ?? CaptionFormat(fileExtension: URL(fileURLWithPath: output).pathExtension)!
        do {
            let doc = try await CaptionsCommand.read(input, channel: channel, track: track)
            for warning in CaptionConversionValidator(captions: doc.captions, format: target).validate() {
                CLIOutput.line("warning: \(input): \(warning)")
            }
            let written = target == .scc ? try SCC.write(doc.captions, channel: channel) : try target.write(doc.captions, language: language)
            for warning in written.warnings { CLIOutput.line("warning: \(output): \(warning)") }
            try CLIOutput.write(written.data, to: output, overwrite: overwrite)
        } catch {
            throw CLIOutput.report(error)
        }
    }
}

/// `reel captions validate IN --format scc`.
struct CaptionsValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "List what a format cannot hold of a caption file's captions.",
        discussion: """
            Prints one line a problem on stdout: the caption's number, time and text, and the \
            reason (too many lines or characters for CEA-608, a style or colour the format lacks, \
            overlapping captions in a format that shows one at a time, characters outside the \
            CEA-608 set). Exits 0 when there is none, 1 when there is one or more.
            """
    )

    @Argument(help: "The caption file to check (.itt, .ttml, .scc, .srt, .vtt), or a media file (its first caption track).")
    var input: String

    @Option(help: "The format to check against: itt, scc, srt or vtt.")
    var format: String

    @Option(help: "The CEA-608 channel (1-4) to read from an SCC input.")
    var channel = 1

    func validate() throws {
        guard (1...4).contains(channel) else { throw ValidationError("--channel: \(channel) is not 1-4") }
        _ = try CaptionsCommand.format(named: format)
    }

    func run() async throws {
        let target = try CaptionsCommand.format(named: format)
        let warnings: [CaptionConversionWarning]
        do {
            let doc = try await CaptionsCommand.read(input, channel: channel)
            warnings = CaptionConversionValidator(captions: doc.captions, format: target).validate()
        } catch {
            throw CLIOutput.report(error)
        }
        for warning in warnings { CLIOutput.print(warning.description) }
        guard warnings.isEmpty else {
            CLIOutput.line("\(input): \(warnings.count) problem\(warnings.count == 1 ? "" : "s") for \(target)")
            throw ExitStatus.failure
        }
    }
}

/// `reel captions burn VIDEO --captions FILE -o OUT`.
struct CaptionsBurnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "burn",
        abstract: "Draw a caption file's captions into a video's picture.",
        discussion: """
            The video is re-encoded (H.264) with each caption drawn in its region and styles \
            (the captions compositor) on the picture as it is shown (phone footage upright); \
            sound, timed metadata and caption tracks are kept as an export keeps them. The \
            output's container is its extension (.mp4, .mov, .mkv, .ts).
            """
    )

    @Argument(help: "The video to draw into.")
    var video: String

    @Option(help: "The caption file (.itt, .ttml, .scc, .srt, .vtt), or a media file (its first caption track).")
    var captions: String

    @Option(name: [.short, .customLong("output")], help: "The video to write.")
    var output: String

    @Option(help: "The CEA-608 channel (1-4) to read from an SCC file.")
    var channel = 1

    @Flag(help: "Replace the output file if it exists.")
    var overwrite = false

    func run() async throws {
        FFmpegLogging.setQuiet()
        let outURL = CommandEnvironment.current.fileURL(output)
        let ext = outURL.pathExtension.lowercased()
        let fileType: AssetWriter.FileType = ext == "mov" ? .mov : ext == "mkv" ? .mkv : ext == "ts" ? .mpegts : .mp4
        do {
            let doc = try await CaptionsCommand.read(captions, channel: channel)
            let asset = Asset(url: CommandEnvironment.current.fileURL(video))
            let source = try await Composition(asset: asset)
            // The captions as a caption track held in memory, off (not written as a soft
            // track), that every instruction hands to the `captions` compositor.
            let identifier = CLIInput.path(captions)
            let whole = TimeRange(start: .zero, end: source.duration)
            let trackID = (source.tracks.map(\.trackID).max() ?? 0) + 1
            var mutable = source.mutableCopy()
            try mutable.addTrack(
                CompositionTrack(
                    trackID: trackID, mediaType: .subtitle,
                    segments: [
                        CompositionTrackSegment(
                            sourceTrack: SourceTrackReference(sourceIdentifier: identifier, trackID: 1),
                            timeMapping: TimeMapping(source: whole, target: whole))
                    ],
                    isEnabled: false))
            let composition = mutable
            var videoComposition = VideoComposition(propertiesOf: composition)
            videoComposition.turnUpright(for: composition)
            videoComposition.instructions = videoComposition.instructions.map { instruction in
                guard var standard = instruction as? VideoCompositionInstruction else { return instruction }
                standard.requiredSourceCaptionTrackIDs = [trackID]
                return standard
            }
            let compositor = try CaptionBurnInCompositor()
            videoComposition.customVideoCompositor = { AsyncVideoCompositorAdapter(compositor) }
            let session = AssetExportSession(
                composition: composition, preset: .h264(crf: 18, preset: "medium"),
                sources: AssetRenderSources(videoOptions: .export, captions: [identifier: doc.captions]))
            session.videoComposition = videoComposition
            // The GPS and other metadata tracks, tags and chapters, as an export keeps them.
            try await session.carryOver(from: asset)
            session.overwrite = overwrite
            try await session.export(to: outURL, as: fileType)
        } catch {
            throw CLIOutput.report(error, userPath: video, resolvedPath: CLIInput.path(video))
        }
    }
}
