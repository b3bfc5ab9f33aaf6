import Foundation

/// Reads a file's timed-metadata track and writes it as JSON, CSV or GPX: what
/// `reel metadata export` does.
///
/// ```swift
/// let exporter = MetadataExporter(url: clip)
/// let track = try await exporter.readTrack()          // the first GPS-bearing track
/// let csv = try exporter.document(track, format: .csv)
/// ```
///
/// Samples are decoded by ReelMetadata's ``TimedMetadataDecoder`` (`gpmd`: one group per
/// GPS fix, spread evenly across the sample's span; `mebx` with the keys of the track's
/// sample entry; `camm`; KLV, asynchronous packets timed by their own time stamps), other
/// formats by ``AssetReaderOutputMetadataAdaptor/defaultDecode(_:)`` (raw bytes). CSV and GPX are ReelMetadata's
/// ``TelemetryCSV`` and ``GPX`` documents.
public struct MetadataExporter: Sendable {
    /// The document to write.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// Every group with every item (docs/metadata-json.md).
        case json
        /// One row per fix: `time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time`.
        case csv
        /// GPX 1.1, one track point per fix.
        case gpx
    }

    /// The decoded timed metadata of one track.
    public struct Track: Sendable {
        public var trackID: Int32
        /// The sample format: `gpmd`, `mebx`, `camm`, `klv`, ...
        public var format: String
        /// Every group, in time order.
        public var groups: [TimedMetadataGroup]

        public init(trackID: Int32, format: String, groups: [TimedMetadataGroup]) {
            self.trackID = trackID
            self.format = format
            self.groups = groups
        }

        /// The GPS fixes among the groups, each at its group's start.
        public var fixes: [(time: MediaTime, fix: GPSFix)] {
            groups.compactMap { group in GPSFix(group).map { (group.timeRange.start, $0) } }
        }
    }

    /// The metadata formats that carry GPS, in the order a track is chosen by default.
    public static let gpsFormats = ["gpmd", "mebx", "camm", "klv"]

    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    /// Reads and decodes one track: `trackID`, or by default the first track holding GPS
    /// fixes (formats in ``gpsFormats`` order, then any other metadata track), or, when
    /// none has any, the first metadata track.
    ///
    /// - Throws: `.invalidArgument` when `trackID` is not a metadata track of the file,
    ///   `.unsupportedFormat` when the file has no metadata track, and the reader's
    ///   errors (missing file, not media, corrupt payloads).
    public func readTrack(trackID: Int32? = nil) async throws(ReelError) -> Track {
        let reader = try AssetReader(url: url)
        let metadata = reader.tracks(withMediaType: .metadata)
        let listed = metadata.isEmpty ? "none" : metadata.map { "\($0.trackID) (\($0.metadataFormat ?? "?"))" }.joined(separator: ", ")
        if let trackID {
            guard let track = reader.track(withID: trackID) else {
                let all = reader.tracks.map { String($0.trackID) }.joined(separator: ", ")
                throw ReelError(.invalidArgument, "no track \(trackID) in the file (tracks: \(all); metadata tracks: \(listed))", path: url.path)
            }
            guard track.mediaType == .metadata else {
                throw ReelError(.invalidArgument, "track \(trackID) is a \(track.mediaType) track, not a timed-metadata track (metadata tracks: \(listed))", path: url.path)
            }
            return try await read(track)
        }
        guard !metadata.isEmpty else {
            throw ReelError(.unsupportedFormat, "the file has no timed-metadata track (gpmd, mebx, camm or klv)", path: url.path)
        }
        let rank = { (t: AssetReader.Track) in Self.gpsFormats.firstIndex(of: t.metadataFormat ?? "") ?? Self.gpsFormats.count }
        let ordered = metadata.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
        var first: Track?
        for candidate in ordered {
            let track = try await read(candidate)
            if track.groups.contains(where: { GPSFix($0) != nil }) { return track }
            if first == nil { first = track }
        }
        guard let first else {
            throw ReelError(.unsupportedFormat, "the file has no timed-metadata track", path: url.path)
        }
        return first
    }

    private func read(_ track: AssetReader.Track) async throws(ReelError) -> Track {
        do throws(ReelError) {
            let reader = try AssetReader(url: url)
            let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 64)
            try reader.add(output)
            let format = track.metadataFormat ?? track.formatDescription.codecName
            var groups: [TimedMetadataGroup] = []
            if TimedMetadataDecoder.canDecode(format: format) {
                var decoder = TimedMetadataDecoder(format: format, keys: format == "mebx" ? try metadataKeys(trackID: track.trackID) : [])
                try reader.startReading()
                while let sample = try await output.next() {
                    guard let buffer = sample.sampleBuffer else { continue }
                    do throws(ReelError) {
                        groups += try decoder.groups(for: buffer)
                    } catch {
                        var located = error
                        if located.time == nil { located.time = buffer.presentationTime }
                        throw located
                    }
                }
            } else {
                let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output)
                try reader.startReading()
                while let group = try await adaptor.next() { groups.append(group) }
            }
            return Track(trackID: track.trackID, format: format, groups: groups)
        } catch {
            var located = error
            if located.path == nil { located.path = url.path }
            if located.trackID == nil { located.trackID = track.trackID }
            throw located
        }
    }

    /// The `mebx` keys of a track, from its sample entry (FFmpeg does not expose them).
    private func metadataKeys(trackID: Int32) throws(ReelError) -> [QuickTimeMetadataKey] {
        let tracks = try MP4File(contentsOf: url).tracks()
        return tracks.first { Int64($0.trackID) == Int64(trackID) }?.sampleEntries.first?.metadataKeys ?? []
    }

    /// The document for `track`. `name` labels it (the GPX track name, the JSON `file`);
    /// the file's name by default.
    ///
    /// - Throws: `.metadataFormat` for CSV and GPX when the track holds no GPS fix.
    public func document(_ track: Track, format: Format, name: String? = nil) throws(ReelError) -> String {
        let label = name ?? url.lastPathComponent
        switch format {
        case .json:
            return try MetadataJSONDocument(file: label, track: track).text()
        case .csv, .gpx:
            guard track.groups.contains(where: { GPSFix($0) != nil }) else {
                throw ReelError(.metadataFormat, "track \(track.trackID) (\(track.format)) holds no GPS fixes to write as \(format.rawValue.uppercased()); try --format json",
                                path: url.path)
            }
            if format == .csv { return TelemetryCSV.document(for: track.groups) }
            return String(decoding: GPX.document(for: track.groups, name: "\(label) track \(track.trackID)"), as: UTF8.self)
        }
    }

    /// Reads the track (``readTrack(trackID:)``) and returns its document.
    public func export(format: Format, trackID: Int32? = nil, name: String? = nil) async throws(ReelError) -> String {
        try document(try await readTrack(trackID: trackID), format: format, name: name)
    }
}
