import Foundation

extension CaptionFormat {
    /// Whether the format is a file of its own (iTT, SCC, SRT, WebVTT) rather than a track
    /// inside a media file.
    public var isFileFormat: Bool { self != .movText }

    /// The captions of a file in this format (SCC: channel CC1).
    /// - Throws: `.captionFormat` naming the line of what is malformed;
    ///   `.unsupportedFormat` for a track format.
    public func read(_ data: Data) throws(ReelError) -> CaptionDocument {
        switch self {
        case .itt: try ITT.read(data)
        case .scc: try SCC.read(data)
        case .srt: try SRT.read(data)
        case .webVTT: try WebVTT.read(data)
        case .movText: throw ReelError(.unsupportedFormat, "\(self) is a track inside an MP4 or MOV file, not a file of its own")
        }
    }

    /// A file in this format holding `captions`, and what the format could not hold as asked
    /// (SCC's late or cut captions). `language` is the BCP 47 tag iTT writes.
    /// - Throws: as the format's writer does; `.unsupportedFormat` for a track format.
    public func write(_ captions: [Caption], language: String = "en") throws(ReelError) -> (data: Data, warnings: [CaptionWarning]) {
        switch self {
        case .itt: (ITT.write(captions, language: language), [])
        case .scc: try SCC.write(captions)
        case .srt: (SRT.write(captions), [])
        case .webVTT: (WebVTT.write(captions), [])
        case .movText: throw ReelError(.unsupportedFormat, "\(self) is a track inside an MP4 or MOV file, not a file of its own")
        }
    }
}

extension CaptionFormat {
    /// The file format `data` is in, from how it starts: `WEBVTT`, `Scenarist_SCC`, an XML
    /// document, or a SubRip cue (a number or a timing line). Nil for anything else.
    public init?(sniffing data: Data) {
        let head = String(decoding: data.prefix(512), as: UTF8.self)
        let text = head.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        if text.hasPrefix("WEBVTT") {
            self = .webVTT
        } else if text.hasPrefix("Scenarist_SCC") {
            self = .scc
        } else if text.hasPrefix("<") {
            self = .itt
        } else if let line = text.split(whereSeparator: \.isNewline).first,
            line.allSatisfy(\.isASCIIDigit) || line.contains("-->")
        {
            self = .srt
        } else {
            return nil
        }
    }
}

extension CaptionDocument {
    /// The caption file at `url` (iTT, SCC, SRT or WebVTT, by extension, else by content);
    /// an SCC file's CEA-608 `channel` (1-4).
    /// - Throws: `.fileNotFound` or `.unreadable`; `.unsupportedFormat` for a file in none of
    ///   the four formats; `.captionFormat` naming the line of what is malformed. Each error's
    ///   `path` is the file's.
    public init(contentsOf url: URL, channel: Int = 1) throws(ReelError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw ReelError(exists ? .unreadable : .fileNotFound, exists ? "could not read the file" : "no such file", path: url.path)
        }
        guard let format = CaptionFormat(fileExtension: url.pathExtension) ?? CaptionFormat(sniffing: data) else {
            throw ReelError(.unsupportedFormat, "not a caption file Reel reads (itt, scc, srt or vtt)", path: url.path)
        }
        do {
            self = format == .scc ? try SCC.read(data, channel: channel) : try format.read(data)
        } catch {
            var e = error
            e.path = url.path
            throw e
        }
    }
}
