import Foundation
import Reel

/// What `reel metadata export --format json` writes: the track, then every timed group
/// with its GPS fix (when it has one) and all its items. Described in docs/metadata-json.md.
struct MetadataJSONDocument: Encodable {
    struct Track: Encodable {
        var trackID: Int32
        var format: String
    }

    struct Fix: Encodable {
        var latitude: Double
        var longitude: Double
        var altitude: Double?
        var speed2d: Double?
        var speed3d: Double?
        var course: Double?
        var fix: Int?
        var dop: Double?
        var gpsTime: String?
        var horizontalAccuracy: Double?
        var verticalAccuracy: Double?
        var speedAccuracy: Double?
        var satellites: Int?
        var deviceTime: Double?
        var velocityNorth: Double?
        var velocityEast: Double?
        var velocityUp: Double?
        var relativeAltitude: Double?
        var heading: Double?
        var pitch: Double?
        var roll: Double?
        var airspeed: Double?

        init(_ fix: GPSFix) {
            latitude = fix.latitude
            longitude = fix.longitude
            altitude = fix.altitude
            speed2d = fix.speed2D
            speed3d = fix.speed3D
            course = fix.course
            self.fix = fix.fix
            dop = fix.dop
            gpsTime = fix.time.map(MetadataJSONDocument.utc)
            horizontalAccuracy = fix.horizontalAccuracy
            verticalAccuracy = fix.verticalAccuracy
            speedAccuracy = fix.speedAccuracy
            satellites = fix.satellites
            deviceTime = fix.deviceTime
            velocityNorth = fix.velocityNorth
            velocityEast = fix.velocityEast
            velocityUp = fix.velocityUp
            relativeAltitude = fix.relativeAltitude
            heading = fix.heading
            pitch = fix.pitch
            roll = fix.roll
            airspeed = fix.airspeed
        }
    }

    /// A value, tagged by `type` in its item.
    enum Value: Encodable {
        case string(String), integer(Int64), double(Double), numbers([Double])

        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .string(let s): try c.encode(s)
            case .integer(let i): try c.encode(i)
            case .double(let d): try c.encode(d)
            case .numbers(let n): try c.encode(n)
            }
        }
    }

    struct Item: Encodable {
        var identifier: String
        var type: String
        var value: Value
        var unit: String?
        var dataType: String?
        var time: Double?
        var duration: Double?

        init(_ item: MetadataItem) {
            identifier = item.identifier.rawValue
            switch item.value {
            case .string(let s): (type, value) = ("string", .string(s))
            case .integer(let i): (type, value) = ("integer", .integer(i))
            case .double(let d): (type, value) = ("double", .double(d))
            case .date(let d): (type, value) = ("date", .string(MetadataJSONDocument.utc(d)))
            case .data(let d): (type, value) = ("data", .string(d.base64EncodedString()))
            case .numbers(let n): (type, value) = ("numbers", .numbers(n))
            }
            unit = item.unit
            dataType = item.dataType
            time = item.time.isNumeric ? item.time.seconds : nil
            duration = item.duration.isNumeric ? item.duration.seconds : nil
        }
    }

    struct Group: Encodable {
        var start: Double?
        var duration: Double?
        var startExact: String?
        var fix: Fix?
        var items: [Item]

        init(_ group: TimedMetadataGroup) {
            let s = group.timeRange.start, d = group.timeRange.duration
            start = s.isNumeric ? s.seconds : nil
            duration = d.isNumeric ? d.seconds : nil
            startExact = s.isNumeric ? "\(s.value)/\(s.timescale)" : nil
            fix = GPSFix(group).map(Fix.init)
            items = group.items.map(Item.init)
        }
    }

    /// ISO 8601 UTC with milliseconds: `2019-11-18T23:45:14.000Z`.
    static func utc(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    var file: String
    var track: Track
    var fixCount: Int
    var groups: [Group]
    /// The movie's own location, when it has one.
    var staticLocation: Fix?
    /// The samples skipped because they did not decode.
    var warnings: [String]?

    init(file: String, track: MetadataExporter.Track) {
        self.file = file
        self.track = Track(trackID: track.trackID, format: track.format)
        groups = track.groups.map(Group.init)
        fixCount = groups.filter { $0.fix != nil }.count
        staticLocation = track.staticLocation.map(Fix.init)
        warnings = track.warnings.isEmpty ? nil : track.warnings.map(\.description)
    }

    /// Pretty-printed, keys sorted: the same track always gives the same text.
    func text() throws(ReelError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
        } catch {
            throw ReelError(.internalError, "could not encode the metadata as JSON", path: file, underlying: error)
        }
    }
}
