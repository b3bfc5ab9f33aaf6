/// Names a kind of metadata item: a key space and a key, written `keySpace/key`
/// (AVMetadataIdentifier).
public struct MetadataIdentifier: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    public var keySpace: MetadataKeySpace
    public var key: String

    public init(keySpace: MetadataKeySpace, key: String) {
        self.keySpace = keySpace
        self.key = key
    }

    /// Parses `keySpace/key`; the key may itself contain slashes.
    public init?(rawValue: String) {
        guard let slash = rawValue.firstIndex(of: "/"), slash != rawValue.startIndex else { return nil }
        self.keySpace = MetadataKeySpace(rawValue: String(rawValue[..<slash]))
        self.key = String(rawValue[rawValue.index(after: slash)...])
    }

    public var rawValue: String { "\(keySpace.rawValue)/\(key)" }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let id = MetadataIdentifier(rawValue: raw) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected keySpace/key, got \"\(raw)\""))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// A namespace of metadata keys (AVMetadataKeySpace).
public struct MetadataKeySpace: Sendable, Hashable, Codable, RawRepresentable, ExpressibleByStringLiteral {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Keys common to every container (title, creationDate, location, make, model, software).
    public static let common: MetadataKeySpace = "common"
    /// QuickTime metadata (`mdta`, reverse-DNS keys).
    public static let quickTimeMetadata: MetadataKeySpace = "mdta"
    /// QuickTime user data (`udta`).
    public static let quickTimeUserData: MetadataKeySpace = "udta"
    /// iTunes-style MP4 tags (`udta/meta/ilst` with handler `mdir`).
    public static let iTunes: MetadataKeySpace = "itsk"
    /// ISO base media file format user data (`udta/cprt`, ISO/IEC 14496-12).
    public static let isoUserData: MetadataKeySpace = "uiso"
    /// ID3 tags of MP3 and other files, keyed by frame ID (`TIT2`, `APIC`).
    public static let id3: MetadataKeySpace = "org.id3"
    /// Container tags FFmpeg reports that fit no other space.
    public static let container: MetadataKeySpace = "container"
    /// GoPro GPMF stream FourCCs (`gpmf/ACCL`).
    public static let gpmf: MetadataKeySpace = "gpmf"
    /// MISB KLV tags (`klv/0601.13`).
    public static let klv: MetadataKeySpace = "klv"
    /// Google CAMM record types.
    public static let camm: MetadataKeySpace = "camm"
    /// Reel's typed telemetry items, the same whatever the camera.
    public static let reel: MetadataKeySpace = "reel"
}

extension MetadataIdentifier {
    // Common key space (AVFoundation's `AVMetadataIdentifier.commonIdentifierTitle` and so on).
    public static let commonIdentifierTitle = MetadataIdentifier(keySpace: .common, key: "title")
    public static let commonIdentifierCreationDate = MetadataIdentifier(keySpace: .common, key: "creationDate")
    public static let commonIdentifierLocation = MetadataIdentifier(keySpace: .common, key: "location")
    public static let commonIdentifierMake = MetadataIdentifier(keySpace: .common, key: "make")
    public static let commonIdentifierModel = MetadataIdentifier(keySpace: .common, key: "model")
    public static let commonIdentifierSoftware = MetadataIdentifier(keySpace: .common, key: "software")

    // Former spellings of the common identifiers.
    @available(*, deprecated, renamed: "commonIdentifierTitle")
    public static var commonTitle: MetadataIdentifier { commonIdentifierTitle }
    @available(*, deprecated, renamed: "commonIdentifierCreationDate")
    public static var commonCreationDate: MetadataIdentifier { commonIdentifierCreationDate }
    @available(*, deprecated, renamed: "commonIdentifierLocation")
    public static var commonLocation: MetadataIdentifier { commonIdentifierLocation }
    @available(*, deprecated, renamed: "commonIdentifierMake")
    public static var commonMake: MetadataIdentifier { commonIdentifierMake }
    @available(*, deprecated, renamed: "commonIdentifierModel")
    public static var commonModel: MetadataIdentifier { commonIdentifierModel }
    @available(*, deprecated, renamed: "commonIdentifierSoftware")
    public static var commonSoftware: MetadataIdentifier { commonIdentifierSoftware }

    // More of the common key space, in AVFoundation's spelling (`commonIdentifierArtist`).
    /// The artist or performer.
    public static let commonIdentifierArtist = MetadataIdentifier(keySpace: .common, key: "artist")
    /// The album's name.
    public static let commonIdentifierAlbumName = MetadataIdentifier(keySpace: .common, key: "albumName")
    /// A picture (cover art): data, with the picture's type in ``MetadataItem/dataType``.
    public static let commonIdentifierArtwork = MetadataIdentifier(keySpace: .common, key: "artwork")
    /// The author.
    public static let commonIdentifierAuthor = MetadataIdentifier(keySpace: .common, key: "author")
    /// Who made the content (the composer or writer).
    public static let commonIdentifierCreator = MetadataIdentifier(keySpace: .common, key: "creator")
    /// Who contributed to the content (performers).
    public static let commonIdentifierContributor = MetadataIdentifier(keySpace: .common, key: "contributor")
    /// A description of the content.
    public static let commonIdentifierDescription = MetadataIdentifier(keySpace: .common, key: "description")
    /// The copyright statement (Dublin Core's rights).
    public static let commonIdentifierCopyrights = MetadataIdentifier(keySpace: .common, key: "copyrights")
    /// What the content is about (keywords).
    public static let commonIdentifierSubject = MetadataIdentifier(keySpace: .common, key: "subject")
    /// The kind or genre of the content.
    public static let commonIdentifierType = MetadataIdentifier(keySpace: .common, key: "type")
    /// The language of the content.
    public static let commonIdentifierLanguage = MetadataIdentifier(keySpace: .common, key: "language")
    /// Who published the content.
    public static let commonIdentifierPublisher = MetadataIdentifier(keySpace: .common, key: "publisher")
    /// When the content was last changed, a date where the text parses.
    public static let commonIdentifierLastModifiedDate = MetadataIdentifier(keySpace: .common, key: "lastModifiedDate")
    /// The file format of the content's original.
    public static let commonIdentifierFormat = MetadataIdentifier(keySpace: .common, key: "format")
    /// An identifier of the content (an ISRC).
    public static let commonIdentifierIdentifier = MetadataIdentifier(keySpace: .common, key: "identifier")
    /// Where the content comes from.
    public static let commonIdentifierSource = MetadataIdentifier(keySpace: .common, key: "source")
    /// A related resource.
    public static let commonIdentifierRelation = MetadataIdentifier(keySpace: .common, key: "relation")

    /// Position as an ISO 6709 string: Apple's key, used for every source format.
    public static let quickTimeMetadataLocationISO6709 = MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.apple.quicktime.location.ISO6709")

    // Typed telemetry, normalised across GPMF, mebx, CAMM, KLV, GPX and CSV.
    /// Degrees north, Double.
    public static let latitude = MetadataIdentifier(keySpace: .reel, key: "location.latitude")
    /// Degrees east, Double.
    public static let longitude = MetadataIdentifier(keySpace: .reel, key: "location.longitude")
    /// Metres above the WGS 84 ellipsoid or mean sea level (as the source gives it), Double.
    public static let altitude = MetadataIdentifier(keySpace: .reel, key: "location.altitude")
    /// Ground speed in m/s, Double.
    public static let speed2D = MetadataIdentifier(keySpace: .reel, key: "speed.2d")
    /// 3D speed in m/s, Double.
    public static let speed3D = MetadataIdentifier(keySpace: .reel, key: "speed.3d")
    /// Course over ground, degrees clockwise from true north, Double.
    public static let course = MetadataIdentifier(keySpace: .reel, key: "course")
    /// UTC time of the fix, Date.
    public static let gpsTime = MetadataIdentifier(keySpace: .reel, key: "gps.time")
    /// Fix type: 0 none, 2 2D, 3 3D, integer.
    public static let gpsFix = MetadataIdentifier(keySpace: .reel, key: "gps.fix")
    /// Dilution of precision (unitless, e.g. 1.54), Double.
    public static let gpsDOP = MetadataIdentifier(keySpace: .reel, key: "gps.dop")
    /// Estimated horizontal accuracy of the position, metres, Double.
    public static let gpsHorizontalAccuracy = MetadataIdentifier(keySpace: .reel, key: "gps.accuracy.horizontal")
    /// Estimated vertical accuracy of the altitude, metres, Double.
    public static let gpsVerticalAccuracy = MetadataIdentifier(keySpace: .reel, key: "gps.accuracy.vertical")
    /// Estimated accuracy of the speed, m/s, Double.
    public static let gpsSpeedAccuracy = MetadataIdentifier(keySpace: .reel, key: "gps.accuracy.speed")
    /// Satellites used for (or, where the source says only that, in view of) the fix, integer.
    public static let gpsSatellites = MetadataIdentifier(keySpace: .reel, key: "gps.satellites")
    /// Seconds on the recording device's own clock (counted from its start, not UTC), Double.
    public static let deviceTime = MetadataIdentifier(keySpace: .reel, key: "device.time")
    /// Velocity towards true north, m/s, Double.
    public static let velocityNorth = MetadataIdentifier(keySpace: .reel, key: "velocity.north")
    /// Velocity towards the east, m/s, Double.
    public static let velocityEast = MetadataIdentifier(keySpace: .reel, key: "velocity.east")
    /// Vertical velocity, m/s, positive up, Double.
    public static let velocityUp = MetadataIdentifier(keySpace: .reel, key: "velocity.up")
    /// Metres above the take-off or home point (a drone's relative altitude), Double.
    public static let relativeAltitude = MetadataIdentifier(keySpace: .reel, key: "location.altitude.relative")
    /// Where the platform points: degrees clockwise from true north (not the course it
    /// moves along), Double.
    public static let heading = MetadataIdentifier(keySpace: .reel, key: "attitude.heading")
    /// Platform pitch, degrees, positive nose up, Double.
    public static let pitch = MetadataIdentifier(keySpace: .reel, key: "attitude.pitch")
    /// Platform roll, degrees, positive right wing down, Double.
    public static let roll = MetadataIdentifier(keySpace: .reel, key: "attitude.roll")
    /// True airspeed, m/s, Double.
    public static let airspeed = MetadataIdentifier(keySpace: .reel, key: "speed.air")
}
