import Foundation
import ReelCore

/// A property of an ``Asset`` or ``AssetTrack`` that can be loaded, typed by its value
/// (AVAsyncProperty).
///
/// Use the static members: `try await asset.load(.duration, .tracks)`.
public struct AssetProperty<Root, Value: Sendable>: Sendable, CustomStringConvertible {
    /// The property's name, also its key for ``Asset/loadValuesAsynchronously(forKeys:completionHandler:)``.
    public let key: String
    /// Computes the value. For an ``Asset`` it runs on the asset's I/O thread.
    let compute: @Sendable (Root) throws(ReelError) -> Value

    init(key: String, compute: @escaping @Sendable (Root) throws(ReelError) -> Value) {
        self.key = key
        self.compute = compute
    }

    public var description: String { key }
}

/// Where the loading of one ``AssetProperty`` stands (AVAsyncProperty.Status).
public enum AssetPropertyStatus<Value: Sendable>: Sendable {
    /// No load has been asked for (or the last one was cancelled with ``Asset/cancelLoading()``).
    case notYetLoaded
    /// A load is running.
    case loading
    /// Loaded; later loads return this value.
    case loaded(Value)
    /// The load failed; later loads throw this error.
    case failed(ReelError)

    /// Whether this is ``loading``.
    public var isLoading: Bool { if case .loading = self { true } else { false } }
    /// Whether this is ``notYetLoaded``.
    public var isNotYetLoaded: Bool { if case .notYetLoaded = self { true } else { false } }
    /// The value, when loaded.
    public var value: Value? { if case .loaded(let v) = self { v } else { nil } }
    /// The error, when failed.
    public var error: ReelError? { if case .failed(let e) = self { e } else { nil } }
}

/// Where the loading of a key stands, for the key-based API (AVKeyValueStatus).
public enum KeyValueStatus: Sendable, Hashable {
    case unknown
    case loading
    case loaded
    case failed
    case cancelled
}

// MARK: - Asset properties

extension AssetProperty where Root == Asset, Value == MediaTime {
    /// The asset's duration: the end of its longest track on the container's timeline.
    public static var duration: Self { .init(key: "duration") { asset throws(ReelError) in try asset.source.snapshot().duration } }
}

extension AssetProperty where Root == Asset, Value == [AssetTrack] {
    /// Every track the container lists, in container order, data and metadata tracks included.
    public static var tracks: Self {
        .init(key: "tracks") { asset throws(ReelError) in
            let tracks = try asset.source.snapshot().tracks
            // In MP4/MOV the segments are the track's edit list, read from the boxes.
            let edits = asset.source.movieBoxes().segments
            return tracks.map { track in
                var track = track.attached(to: asset.source)
                if let segments = edits[track.trackID] { track.segments = segments }
                return track
            }
        }
    }
}

extension AssetProperty where Root == Asset, Value == [MetadataItem] {
    /// The container's tags, each under its own key space: in MP4/MOV read from the boxes
    /// themselves (`mdta` QuickTime metadata, `udta` QuickTime user data, `itsk` iTunes,
    /// `uiso` ISO user data), in MP3 by ID3 frame (`org.id3`), else FFmpeg's names under
    /// `container`; cover pictures as artwork items.
    public static var metadata: Self { .init(key: "metadata") { asset throws(ReelError) in try asset.source.metadata() } }
    /// The container's tags in the common key space, whatever the container: title,
    /// creationDate, location, make, model, software, artist, albumName, artwork, author,
    /// creator, contributor, description, copyrights, subject, type, language, publisher,
    /// lastModifiedDate, format, identifier, source, relation.
    public static var commonMetadata: Self {
        .init(key: "commonMetadata") { asset throws(ReelError) in
            ContainerMetadata.commonItems(from: try asset.source.metadata())
        }
    }
}

extension AssetProperty where Root == Asset, Value == [MetadataKeySpace] {
    /// The key spaces the container's tags use (AVAsset.availableMetadataFormats).
    public static var availableMetadataFormats: Self {
        .init(key: "availableMetadataFormats") { asset throws(ReelError) in
            var seen: [MetadataKeySpace] = []
            for item in try asset.source.metadata() where !seen.contains(item.keySpace) {
                seen.append(item.keySpace)
            }
            return seen
        }
    }
}

extension AssetProperty where Root == Asset, Value == MetadataItem? {
    /// When the media was recorded, from the container's tags (common key `creationDate`).
    public static var creationDate: Self {
        .init(key: "creationDate") { asset throws(ReelError) in
            ContainerMetadata.commonItems(from: try asset.source.metadata())
                .first { $0.identifier == .commonIdentifierCreationDate }
        }
    }
}

extension AssetProperty where Root == Asset, Value == Bool {
    /// Whether the file opens and holds at least one track. A file that cannot be read
    /// loads as `false` rather than failing.
    public static var isReadable: Self {
        .init(key: "isReadable") { asset throws(ReelError) in
            guard let snapshot = try? asset.source.snapshot() else { return false }
            return !snapshot.tracks.isEmpty
        }
    }
}

extension AssetProperty where Root == Asset, Value == Bool {
    /// Whether the asset can be played: it opens and holds an audio or video track this
    /// FFmpeg build decodes (AVAsset.isPlayable, key `playable`). A file that cannot be
    /// read loads as `false` rather than failing.
    public static var isPlayable: Self {
        .init(key: "playable") { asset throws(ReelError) in
            guard let snapshot = try? asset.source.snapshot() else { return false }
            return snapshot.tracks.contains { $0.isPlayable && ($0.mediaType == .video || $0.mediaType == .audio) }
        }
    }
}

extension AssetProperty where Root == Asset, Value == [AssetTrackGroup] {
    /// The groups of mutually exclusive tracks (AVAsset.trackGroups): in MP4/MOV, the
    /// tracks sharing a non-zero `tkhd` alternate group; none in other containers.
    public static var trackGroups: Self {
        .init(key: "trackGroups") { asset throws(ReelError) in
            let snapshot = try asset.source.snapshot()
            return AssetTrackGroup.groups(
                alternateGroups: asset.source.movieBoxes().alternateGroups,
                trackIDs: snapshot.tracks.map(\.trackID))
        }
    }
}

extension AssetProperty where Root == Asset, Value == [Locale] {
    /// The languages of the chapter titles (AVAsset.availableChapterLocales); a chapter
    /// title of no known language counts as none.
    public static var availableChapterLocales: Self {
        .init(key: "availableChapterLocales") { asset throws(ReelError) in
            var tags: [String] = []
            for group in try asset.source.chapters() {
                for item in group.items where item.identifier == .commonIdentifierTitle {
                    if let tag = item.extendedLanguageTag, !tags.contains(tag) { tags.append(tag) }
                }
            }
            return tags.map { Locale(identifier: $0) }
        }
    }
}

extension AssetProperty where Root == Asset, Value == [MediaCharacteristic] {
    /// The characteristics for which ``Asset/loadMediaSelectionGroup(for:)`` has a group:
    /// `audible`, `legible` and `visual`, in that order, where the asset has such tracks
    /// (AVAsset.availableMediaCharacteristicsWithMediaSelectionOptions).
    public static var availableMediaCharacteristicsWithMediaSelectionOptions: Self {
        .init(key: "availableMediaCharacteristicsWithMediaSelectionOptions") { asset throws(ReelError) in
            let tracks = try asset.source.snapshot().tracks
            return MediaSelectionGroup.characteristics.filter { c in tracks.contains { $0.isSelectable && $0.hasMediaCharacteristic(c) } }
        }
    }
}

extension AssetProperty where Root == Asset, Value == ContainerFormat {
    /// The container: format name, size, overall bit rate, start time.
    public static var containerFormat: Self {
        .init(key: "containerFormat") { asset throws(ReelError) in try asset.source.snapshot().format }
    }
}

extension AssetProperty where Root == Asset, Value == [TimedMetadataGroup] {
    /// The container's chapters, each a group with a `common/title` item; the title's
    /// `MetadataItem/extendedLanguageTag` is the chapter track's language where the file
    /// says (MP4/MOV `chap` reference).
    public static var chapters: Self {
        .init(key: "chapters") { asset throws(ReelError) in try asset.source.chapters() }
    }
}

/// A type-erased asset property, for the key-based API.
struct AnyAssetProperty: Sendable {
    let key: String
    let compute: @Sendable (Asset) throws(ReelError) -> any Sendable

    init<V: Sendable>(_ property: AssetProperty<Asset, V>) {
        key = property.key
        let body = property.compute
        compute = { asset throws(ReelError) in try body(asset) }
    }

    /// Every asset property, by key.
    static let all: [String: AnyAssetProperty] = {
        let list: [AnyAssetProperty] = [
            .init(AssetProperty.duration), .init(AssetProperty.tracks), .init(AssetProperty.metadata),
            .init(AssetProperty.commonMetadata), .init(AssetProperty.availableMetadataFormats),
            .init(AssetProperty.creationDate), .init(AssetProperty.isReadable),
            .init(AssetProperty.containerFormat), .init(AssetProperty.chapters), .init(AssetProperty.isPlayable),
            .init(AssetProperty.trackGroups), .init(AssetProperty.availableChapterLocales),
            .init(AssetProperty.availableMediaCharacteristicsWithMediaSelectionOptions),
        ]
        return Dictionary(uniqueKeysWithValues: list.map { ($0.key, $0) })
    }()
}

// MARK: - Track properties

extension AssetProperty where Root == AssetTrack, Value == Int32 {
    public static var trackID: Self { .init(key: "trackID") { $0.trackID } }
    public static var naturalTimeScale: Self { .init(key: "naturalTimeScale") { $0.naturalTimeScale } }
}

extension AssetProperty where Root == AssetTrack, Value == MediaType {
    public static var mediaType: Self { .init(key: "mediaType") { $0.mediaType } }
}

extension AssetProperty where Root == AssetTrack, Value == Size {
    public static var naturalSize: Self { .init(key: "naturalSize") { $0.naturalSize } }
}

extension AssetProperty where Root == AssetTrack, Value == Transform2D {
    public static var preferredTransform: Self { .init(key: "preferredTransform") { $0.preferredTransform } }
}

extension AssetProperty where Root == AssetTrack, Value == Float {
    public static var nominalFrameRate: Self { .init(key: "nominalFrameRate") { $0.nominalFrameRate } }
    public static var estimatedDataRate: Self { .init(key: "estimatedDataRate") { $0.estimatedDataRate } }
}

extension AssetProperty where Root == AssetTrack, Value == MediaTime {
    public static var minFrameDuration: Self { .init(key: "minFrameDuration") { $0.minFrameDuration } }
}

extension AssetProperty where Root == AssetTrack, Value == TimeRange {
    public static var timeRange: Self { .init(key: "timeRange") { $0.timeRange } }
}

extension AssetProperty where Root == AssetTrack, Value == [FormatDescription] {
    public static var formatDescriptions: Self { .init(key: "formatDescriptions") { $0.formatDescriptions } }
}

extension AssetProperty where Root == AssetTrack, Value == [TimeMapping] {
    public static var segments: Self { .init(key: "segments") { $0.segments } }
}

extension AssetProperty where Root == AssetTrack, Value == String? {
    public static var languageCode: Self { .init(key: "languageCode") { $0.languageCode } }
    public static var extendedLanguageTag: Self { .init(key: "extendedLanguageTag") { $0.extendedLanguageTag } }
}

extension AssetProperty where Root == AssetTrack, Value == [MetadataItem] {
    public static var metadata: Self { .init(key: "metadata") { $0.metadata } }
    /// The track's tags in the common key space.
    public static var commonMetadata: Self { .init(key: "commonMetadata") { ContainerMetadata.commonItems(from: $0.metadata) } }
}

extension AssetProperty where Root == AssetTrack, Value == [MetadataKeySpace] {
    /// The key spaces of the track's tags.
    public static var availableMetadataFormats: Self {
        .init(key: "availableMetadataFormats") { track in
            track.metadata.reduce(into: [MetadataKeySpace]()) { if !$0.contains($1.keySpace) { $0.append($1.keySpace) } }
        }
    }
}

extension AssetProperty where Root == AssetTrack, Value == Bool {
    public static var isEnabled: Self { .init(key: "isEnabled") { $0.isEnabled } }
    public static var isPlayable: Self { .init(key: "isPlayable") { $0.isPlayable } }
    public static var isDecodable: Self { .init(key: "isDecodable") { $0.isDecodable } }
}

// MARK: - Metadata item properties (AVMetadataItem's loadable values)

extension AssetProperty where Root == MetadataItem, Value == MetadataValue {
    public static var value: Self { .init(key: "value") { $0.value } }
}

extension AssetProperty where Root == MetadataItem, Value == String? {
    public static var stringValue: Self { .init(key: "stringValue") { $0.stringValue } }
    public static var dataType: Self { .init(key: "dataType") { $0.dataType } }
    public static var extendedLanguageTag: Self { .init(key: "extendedLanguageTag") { $0.extendedLanguageTag } }
}

extension AssetProperty where Root == MetadataItem, Value == String {
    public static var key: Self { .init(key: "key") { $0.key } }
}

extension AssetProperty where Root == MetadataItem, Value == Double? {
    public static var numberValue: Self { .init(key: "numberValue") { $0.numberValue } }
}

extension AssetProperty where Root == MetadataItem, Value == Date? {
    public static var dateValue: Self { .init(key: "dateValue") { $0.dateValue } }
}

extension AssetProperty where Root == MetadataItem, Value == Data? {
    public static var dataValue: Self { .init(key: "dataValue") { $0.dataValue } }
}

extension AssetProperty where Root == MetadataItem, Value == MetadataIdentifier {
    public static var identifier: Self { .init(key: "identifier") { $0.identifier } }
}

extension AssetProperty where Root == MetadataItem, Value == MetadataKeySpace {
    public static var keySpace: Self { .init(key: "keySpace") { $0.keySpace } }
}

extension AssetProperty where Root == MetadataItem, Value == MediaTime {
    public static var time: Self { .init(key: "time") { $0.time } }
    public static var duration: Self { .init(key: "duration") { $0.duration } }
}
