import Foundation
import Testing
@testable import ReelMetadata

@Suite("GPMFGPSStream: finding the GPS in any GPMF stream")
struct GPMFGPSStreamTests {
    /// A payload with one stream of `key` holding `rows` as a complex type.
    static func payload(_ key: FourCC, type: String, name: String?, units: [String], scale: [Int64], rows: [[Int64]]) throws -> Data {
        var stream: [GPMFNode] = []
        if let name { stream.append(.string("STNM", name)) }
        stream += [.string("TYPE", type), .strings("UNIT", units), .integers("SCAL", .int32, scale.map { [$0] })]
        stream.append(try .complex(key, layout: GPMFStructLayout(parsing: type), rows: rows))
        return try GPMFNode.nested("DEVC", [.nested("STRM", stream)]).encoded()
    }

    @Test func anyStreamWithNamedLatitudeAndLongitude() throws {
        // Longitude before latitude, as the names say; speed and course by name.
        let data = try Self.payload("XGPS", type: "lllss", name: "Tracker (long, lat, altitude, ground speed, course)",
                                    units: ["deg", "deg", "m", "m/s", "deg"], scale: [10_000_000, 10_000_000, 100, 100, 10],
                                    rows: [[65_000_000, 465_000_000, 37_200, 350, 1234], [65_000_100, 465_000_200, 37_300, 360, 1240]])
        let fixes = try GPMF.fixes(payload: data, timeRange: oneSecond)
        #expect(fixes.count == 2)
        #expect(close(fixes[0].fix.latitude, 46.5) && close(fixes[0].fix.longitude, 6.5))
        #expect(close(fixes[1].fix.altitude, 373))
        #expect(close(fixes[1].fix.speed2D, 3.6))
        #expect(close(fixes[0].fix.course, 123.4))
    }

    @Test func unnamedStreamByUnitsInPositionOrder() throws {
        let data = try Self.payload("POSN", type: "Llll", name: nil, units: ["s", "deg", "deg", "m"], scale: [1000, 10_000_000, 10_000_000, 1000],
                                    rows: [[5000, -338_567_844, 1_512_152_967, 58_300], [5500, -338_567_000, 1_512_153_000, 58_400]])
        let fixes = try GPMF.fixes(payload: data, timeRange: oneSecond)
        #expect(fixes.map(\.fix.latitude) == [-33.8567844, -33.8567])
        #expect(close(fixes[0].fix.altitude, 58.3))
        #expect(fixes[1].time == MediaTime(value: 1, timescale: 2))  // spaced by its seconds element
    }

    @Test func threeAnglesAreNotAPosition() throws {
        let data = try Self.payload("ATTD", type: "sss", name: "Attitude", units: ["deg", "deg", "deg"], scale: [100, 100, 100],
                                    rows: [[100, 200, 300]])
        #expect(try GPMF.fixes(payload: data, timeRange: oneSecond).isEmpty)
        let named = try Self.payload("ATTD", type: "sss", name: "Attitude (roll, pitch, yaw)", units: ["deg", "deg", "deg"], scale: [1],
                                     rows: [[1, 2, 3]])
        #expect(try GPMF.fixes(payload: named, timeRange: oneSecond).isEmpty)
    }

    @Test func outOfRangePositionsAreLeftOut() throws {
        let data = try Self.payload("GPRI", type: "JlllSSSSBB", name: nil, units: ["s", "deg", "deg", "m", "m", "m", "m/s", "deg", "", ""],
                                    scale: [1000, 10_000_000, 10_000_000, 1000, 100, 100, 100, 100, 1, 1],
                                    rows: [[0, 950_000_000, 0, 0, 0, 0, 0, 0, 3, 9], [250, 10_000_000, 20_000_000, 0, 0, 0, 0, 0, 3, 9]])
        let fixes = try GPMF.fixes(payload: data, timeRange: oneSecond)
        #expect(fixes.map(\.fix.latitude) == [1])
    }

    @Test func elementNamesNeedOnePerElement() {
        #expect(GPMFGPSStream.elementNames("GPS (Lat., Long., Alt.)", count: 3) == ["lat.", "long.", "alt."])
        #expect(GPMFGPSStream.elementNames("GPS (Lat., Long., Alt.)", count: 4) == nil)
        #expect(GPMFGPSStream.elementNames("pos[lat, lon]", count: 2) == ["lat", "lon"])
        #expect(GPMFGPSStream.elementNames(nil, count: 2) == nil)
    }

    @Test func garbledTypeStringsAreErrorsNotCrashes() throws {
        var rng = SeededGenerator(seed: 11)
        let good = try Self.payload("GPRI", type: "JlllSSSSBB", name: "GPS RAW", units: ["s", "deg", "deg", "m", "m", "m", "m/s", "deg", "", ""],
                                    scale: [1], rows: [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
        let bytes = [UInt8](good)
        let typeAt = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("TYPE".utf8)) }) + 8
        for _ in 0..<500 {
            var copy = bytes
            for k in 0..<10 where Bool.random(using: &rng) { copy[typeAt + k] = UInt8.random(in: 0...255, using: &rng) }
            survives { () throws(ReelError) in try GPMF.groups(payload: Data(copy), timeRange: oneSecond) }
        }
        // Truncated TYPE: the structure size no longer matches.
        let short = try Self.payload("GPRI", type: "JlllSSSSBB", name: nil, units: ["deg"], scale: [1], rows: [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
        var cut = [UInt8](short)
        let at = try #require(cut.indices.first { cut[$0...].starts(with: Array("TYPE".utf8)) })
        cut[at + 7] = 4  // "Jlll"
        #expect(survives { () throws(ReelError) in try GPMF.groups(payload: Data(cut), timeRange: oneSecond) })
    }
}
