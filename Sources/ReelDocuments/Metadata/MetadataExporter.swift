import Foundation
import Reel

/// Reads a file's timed-metadata track and writes it as JSON, CSV or GPX: what
/// `reel metadata export` does.
///
/// ```swift
/// let exporter = MetadataExporter(url: clip)
/// let track = try await exporter.readTrack()          // the first GPS-bearing track
/// let csv = try exporter.document(track, format: .csv)
/// ```
///
/// Samples are read through an `AssetReaderOutputMetadataAdaptor`: ReelMetadata's
/// `TimedMetadataDecoder` (`gpmd`: one group per GPS fix, spread evenly across the
/// sample's span; `mebx` with the keys of the track's sample entry; `camm`; KLV,
/// asynchronous packets timed by their own time stamps), raw bytes for other formats.
/// A sample that does not decode is skipped and listed in ``Track/warnings``. A file
/// whose only location is the movie's static one (`udta/©xyz`,
/// `mdta/com.apple.quicktime.location.ISO6709`) exports that one point. CSV and GPX are
/// ReelMetadata's `TelemetryCSV` and `GPX` documents.
public struct MetadataExporter: Sendable {
    /// The document to write.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// Every group with every item (docs/metadata-json.md).
        case json
        /// One row per fix: `time,latitude,longitude,altitude,speed2d,speed3d,fix,dop,gps_time`,
        /// then the fields fewer sources give (`TelemetryCSV/header`).
        case csv
        /// GPX 1.1, one track point per fix.
        case gpx
    }

    /// The decoded timed metadata of one track.
    public struct Track: Sendable {
        /// The track read; 0 when the file has no timed-metadata track and the groups hold
        /// its ``staticLocation``.
        public var trackID: Int32
        /// The sample format: `gpmd`, `mebx`, `camm`, `klv`, ...; ``staticLocationFormat``
        /// for the movie's static location.
        public var format: String
        /// Every group, in time order.
        public var groups: [TimedMetadataGroup]
        /// The samples skipped because they did not decode.
        public var warnings: [MetadataReadWarning]
        /// The movie's own location (`udta/©xyz`, `mdta/com.apple.quicktime.location.ISO6709`),
        /// when it has one.
        public var staticLocation: GPSFix?

        public init(
            trackID: Int32, format: String, groups: [TimedMetadataGroup], warnings: [MetadataReadWarning] = [],
            staticLocation: GPSFix? = nil
        ) {
            self.trackID = trackID
            self.format = format
            self.groups = groups
            self.warnings = warnings
            self.staticLocation = staticLocation
        }

        /// The movie's static location as a track of one point at zero.
        static func staticLocation(_ fix: GPSFix) -> Track {
            Track(trackID: 0, format: MetadataExporter.staticLocationFormat, groups: [locationGroup(fix)], staticLocation: fix)
        }

        /// Whether the only GPS is the movie's static location: this is the static-location
        /// track, or no group holds a fix and the movie has a location.
        public var usesStaticLocation: Bool {
            format == MetadataExporter.staticLocationFormat || (staticLocation != nil && !groups.contains { GPSFix($0) != nil })
        }

        /// The groups holding GPS: the groups, or the static location as one point at zero.
        var gpsGroups: [TimedMetadataGroup] {
            guard usesStaticLocation, let staticLocation, !groups.contains(where: { GPSFix($0) != nil }) else { return groups }
            return [Self.locationGroup(staticLocation)]
        }

        private static func locationGroup(_ fix: GPSFix) -> TimedMetadataGroup {
            TimedMetadataGroup(timeRange: TimeRange(start: .zero, duration: .zero), items: fix.metadataItems(time: .zero, duration: .zero))
        }

        /// The GPS fixes among the groups, each at its group's start.
        public var fixes: [(time: MediaTime, fix: GPSFix)] {
            groups.compactMap { group in GPSFix(group).map { (group.timeRange.start, $0) } }
        }
    }

    /// The metadata formats that carry GPS, in the order a track is chosen by default.
    public static let gpsFormats: [MetadataFormat] = [.gpmd, .mebx, .camm, .klv]

    /// The ``Track/format`` of the movie's static location.
    public static let staticLocationFormat = "location"

    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    /// Reads and decodes one track: `trackID`, or by default the first track holding GPS
    /// fixes (formats in ``gpsFormats`` order, then any other metadata track), or, when
    /// none has any, the first metadata track holding items (else the first); with no metadata track at all, the movie's
    /// static location as one point (track 0, format ``staticLocationFormat``).
    ///
    /// - Throws: `.invalidArgument` when `trackID` is not a metadata track of the file,
    ///   `.unsupportedFormat` when the file has neither a metadata track nor a static
    ///   location, and the reader's errors (missing file, not media). Samples that do not
    ///   decode are skipped and listed in ``Track/warnings``.
    public func readTrack(trackID: Int32? = nil) async throws(ReelError) -> Track {
        let reader = try await AssetReader.open(url: url)
        let staticLocation = await self.staticLocation()
        let metadata = reader.tracks(withMediaType: .metadata)
        let listed = metadata.isEmpty ? "none" : metadata.map { "\($0.trackID) (\($0.metadataFormat?.rawValue ?? "?"))" }.joined(separator: ", ")
        if let trackID {
            guard let track = reader.track(withID: trackID) else {
                let all = reader.tracks.map { String($0.trackID) }.joined(separator: ", ")
                throw ReelError(.invalidArgument, "no track \(trackID) in the file (tracks: \(all); metadata tracks: \(listed))", path: url.path)
            }
            guard track.mediaType == .metadata else {
                throw ReelError(
                    .invalidArgument, "track \(trackID) is a \(track.mediaType) track, not a timed-metadata track (metadata tracks: \(listed))", path: url.path)
            }
            return try await read(track, staticLocation: staticLocation)
        }
        guard !metadata.isEmpty else {
            if let staticLocation { return Track.staticLocation(staticLocation) }
            throw ReelError(.unsupportedFormat, "the file has no timed-metadata track (gpmd, mebx, camm or klv) and no static location", path: url.path)
        }
        guard let track = try await preferredTrack(among: metadata, staticLocation: staticLocation) else {
            throw ReelError(.unsupportedFormat, "the file has no timed-metadata track", path: url.path)
        }
        return track
    }

    /// The track ``readTrack(trackID:)`` reads by default, read; nil when the file has no
    /// metadata track.
    public func defaultTrack() async throws(ReelError) -> Track? {
        let reader = try await AssetReader.open(url: url)
        return try await preferredTrack(among: reader.tracks(withMediaType: .metadata), staticLocation: nil)
    }

    /// The first of `metadata` holding GPS fixes (formats in ``gpsFormats`` order, then
    /// the others), else the first holding items, else the first.
    private func preferredTrack(among metadata: [AssetReader.Track], staticLocation: GPSFix?) async throws(ReelError) -> Track? {
        let rank = { (t: AssetReader.Track) in t.metadataFormat.flatMap { Self.gpsFormats.firstIndex(of: $0) } ?? Self.gpsFormats.count }
        let ordered = metadata.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
        var first: Track?
        for candidate in ordered {
            let track = try await read(candidate, staticLocation: staticLocation)
            if track.groups.contains(where: { GPSFix($0) != nil }) { return track }
            if first == nil || (first?.groups.allSatisfy(\.items.isEmpty) == true && track.groups.contains { !$0.items.isEmpty }) {
                first = track
            }
        }
        return first
    }

    private func read(_ track: AssetReader.Track, staticLocation: GPSFix?) async throws(ReelError) -> Track {
        do throws(ReelError) {
            let reader = try await AssetReader.open(url: url)
            let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough, bufferCapacity: 64)
            try reader.add(output)
            let adaptor = try AssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output)
            try reader.startReading()
            var groups: [TimedMetadataGroup] = []
            while let group = try await adaptor.next() { groups.append(group) }
            return Track(
                trackID: track.trackID, format: track.metadataFormat?.rawValue ?? track.formatDescription.codecName, groups: groups,
                warnings: adaptor.warnings, staticLocation: staticLocation)
        } catch {
            var located = error
            if located.path == nil { located.path = url.path }
            if located.trackID == nil { located.trackID = track.trackID }
            throw located
        }
    }

    /// The movie's static location (the common `location` item: `udta/©xyz` or
    /// `mdta/com.apple.quicktime.location.ISO6709`), when it has one that parses.
    private func staticLocation() async -> GPSFix? {
        guard let items = try? await Asset(url: url).load(.commonMetadata),
            let text = items.first(where: { $0.identifier == .commonIdentifierLocation })?.stringValue
        else { return nil }
        return try? ISO6709.parse(text).fix
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
            let groups = track.gpsGroups
            guard groups.contains(where: { GPSFix($0) != nil }) else {
                throw ReelError(
                    .metadataFormat,
                    "track \(track.trackID) (\(track.format)) holds no GPS fixes to write as \(format.rawValue.uppercased()); try --format json",
                    path: url.path)
            }
            if format == .csv { return TelemetryCSV.document(for: groups) }
            return String(decoding: GPX.document(for: groups, name: "\(label) track \(track.trackID)"), as: UTF8.self)
        }
    }

    /// Reads the track (``readTrack(trackID:)``) and returns its document.
    public func export(format: Format, trackID: Int32? = nil, name: String? = nil) async throws(ReelError) -> String {
        try document(try await readTrack(trackID: trackID), format: format, name: name)
    }
}
