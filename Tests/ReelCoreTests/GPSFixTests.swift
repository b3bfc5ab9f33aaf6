import Foundation
import PropertyBased
import ReelCore
import Testing

@Suite("GPSFix")
struct GPSFixTests {
    @Test(
        arguments: [
            (33.12677, -117.3273436, -22.959, "+33.1268-117.3273-022.959/"),
            (33.12677, -117.3273436, nil, "+33.1268-117.3273/"),
            (-5.5, 7.25, 1234.5, "-05.5000+007.2500+1234.500/"),
            (0, 0, 0, "+00.0000+000.0000+000.000/"),
            (89.99999, 179.99999, nil, "+90.0000+180.0000/"),
            (-33.8688, 151.2093, 58, "-33.8688+151.2093+058.000/"),
        ] as [(Double, Double, Double?, String)])
    func iso6709(latitude: Double, longitude: Double, altitude: Double?, expected: String) {
        #expect(GPSFix(latitude: latitude, longitude: longitude, altitude: altitude).iso6709 == expected)
    }

    @Test func itemsCarryEveryField() throws {
        let time = Date(timeIntervalSince1970: 1_700_000_000.5)
        let fix = GPSFix(
            latitude: 33.12677, longitude: -117.3273436, altitude: -22.959, speed2D: 3.2, speed3D: 3.4,
            course: 271.5, time: time, fix: 3, dop: 1.54)
        let start = MediaTime(value: 1001, timescale: 30000), duration = MediaTime(value: 1, timescale: 18)
        let items = fix.metadataItems(time: start, duration: duration)
        #expect(items.count == 10)
        #expect(items.allSatisfy { $0.time == start && $0.duration == duration })
        let location = try #require(items.first { $0.identifier == .quickTimeMetadataLocationISO6709 })
        #expect(location.stringValue == "+33.1268-117.3273-022.959/")
        #expect(items.first { $0.identifier == .latitude }?.unit == "deg")
        #expect(items.first { $0.identifier == .speed2D }?.unit == "m/s")
        #expect(items.first { $0.identifier == .altitude }?.unit == "m")
        #expect(items.first { $0.identifier == .gpsFix }?.value == .integer(3))
        #expect(GPSFix(items: items) == fix)
        let group = TimedMetadataGroup(timeRange: TimeRange(start: start, duration: duration), items: items)
        #expect(GPSFix(group) == fix)
    }

    @Test func optionalFieldsStayAbsent() {
        let fix = GPSFix(latitude: 1, longitude: 2)
        let items = fix.metadataItems()
        #expect(items.map(\.identifier) == [.quickTimeMetadataLocationISO6709, .latitude, .longitude])
        #expect(items.allSatisfy { !$0.time.isValid })
        let back = GPSFix(items: items)
        #expect(back == fix)
        #expect(back?.altitude == nil && back?.time == nil && back?.fix == nil)
    }

    @Test func needsLatitudeAndLongitude() {
        let items = GPSFix(latitude: 1, longitude: 2, altitude: 3).metadataItems()
        #expect(GPSFix(items: items.filter { $0.identifier != .longitude }) == nil)
        #expect(GPSFix(items: items.filter { $0.identifier != .latitude }) == nil)
        #expect(GPSFix(items: []) == nil)
        // Numbers written as text still count (a CSV import).
        let text = [
            MetadataItem(identifier: .latitude, value: .string("45.5")),
            MetadataItem(identifier: .longitude, value: .string("-73.25")),
        ]
        #expect(GPSFix(items: text) == GPSFix(latitude: 45.5, longitude: -73.25))
    }

    @Test func anyFixRoundTripsThroughItems() async {
        let fixes = zip(
            Gen.double(in: -90...90), Gen.double(in: -180...180), Gen.double(in: -500...9000).optional,
            Gen.double(in: 0...100).optional, Gen.int(in: 0...3).optional,
            Gen.double(in: 0...2_000_000_000).optional
        )
        .map { v in
            GPSFix(
                latitude: v.0, longitude: v.1, altitude: v.2, speed2D: v.3, speed3D: v.3.map { $0 + 1 },
                course: v.3.map { $0 * 3.6 }, time: v.5.map { Date(timeIntervalSince1970: $0) }, fix: v.4, dop: v.3)
        }
        await propertyCheck(count: 200, input: fixes) { fix in
            #expect(GPSFix(items: fix.metadataItems()) == fix)
            let json = try JSONEncoder().encode(fix)
            #expect(try JSONDecoder().decode(GPSFix.self, from: json) == fix)
        }
    }
}

@Suite("GPSFix: the fields beyond the position")
struct GPSFixFieldsTests {
    @Test func everyFieldIsATypedItemWithItsUnit() throws {
        let fix = GPSFix(
            latitude: 1, longitude: 2, horizontalAccuracy: 0.25, verticalAccuracy: 0.42, speedAccuracy: 0.5, satellites: 20,
            deviceTime: 146.071, velocityNorth: 0.88, velocityEast: -0.75, velocityUp: 0.08, relativeAltitude: 2.003,
            heading: 330, pitch: -1.5, roll: 2.25, airspeed: 3)
        let items = fix.metadataItems(time: .zero, duration: .zero)
        let expected: [(MetadataIdentifier, String, String?)] = [
            (.gpsHorizontalAccuracy, "reel/gps.accuracy.horizontal", "m"), (.gpsVerticalAccuracy, "reel/gps.accuracy.vertical", "m"),
            (.gpsSpeedAccuracy, "reel/gps.accuracy.speed", "m/s"), (.gpsSatellites, "reel/gps.satellites", nil),
            (.deviceTime, "reel/device.time", "s"), (.velocityNorth, "reel/velocity.north", "m/s"), (.velocityEast, "reel/velocity.east", "m/s"),
            (.velocityUp, "reel/velocity.up", "m/s"), (.relativeAltitude, "reel/location.altitude.relative", "m"),
            (.heading, "reel/attitude.heading", "deg"), (.pitch, "reel/attitude.pitch", "deg"), (.roll, "reel/attitude.roll", "deg"),
            (.airspeed, "reel/speed.air", "m/s"),
        ]
        #expect(items.count == 3 + expected.count)
        for (id, raw, unit) in expected {
            let item = try #require(items.first { $0.identifier == id }, "\(raw)")
            #expect(id.rawValue == raw)
            #expect(item.unit == unit, "\(raw)")
        }
        #expect(items.first { $0.identifier == .gpsSatellites }?.value == .integer(20))
        #expect(GPSFix(items: items) == fix)
        // A fix encoded by an earlier version (no new keys) still decodes.
        let old = #"{"latitude":1,"longitude":2,"course":90}"#
        let decoded = try JSONDecoder().decode(GPSFix.self, from: Data(old.utf8))
        #expect(decoded == GPSFix(latitude: 1, longitude: 2, course: 90))
    }
}
