import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("GPMFSeries: streams with their sticky modifiers")
struct GPMFSeriesTests {
    @Test(.requires(.sharedMedia))
    func hero6Streams() throws {
        let series = try GPMF.series(payload: TestFiles.sharedMediaData("gpmf-parser_hero6.raw"))
        let accl = try #require(series.first { $0.key == "ACCL" })
        #expect(accl.deviceName == "Hero6 Black")
        #expect(accl.deviceID == 1)
        #expect(accl.streamName == "Accelerometer (up/down, right/left, forward/back)")
        #expect(accl.units == ["m/s²"])
        #expect(accl.scale == [418])
        #expect(accl.samples.count == 204)
        // First sample 0x104b, 0x0017, 0x0523 over 418.
        let firstAccl: [GPMFValue] = [.real(4171.0 / 418), .real(23.0 / 418), .real(1315.0 / 418)]
        #expect(accl.samples[0] == firstAccl)
        #expect(accl.context["TMPC"] == .real(25))

        let gps = try #require(series.first { $0.key == "GPS5" })
        #expect(gps.units == ["deg", "deg", "m", "m/s", "m/s"])
        #expect(gps.unitDescription == "deg,deg,m,m/s,m/s")
        #expect(gps.scale == [10_000_000, 10_000_000, 1000, 1000, 100])
        #expect(gps.context["GPSU"] == .string("180124192801.699"))
        #expect(gps.context["GPSP"] == .uint(9999))

        // FACE repeats as separate KLVs with TYPE "Lffff": one sample per KLV.
        let face = try #require(series.first { $0.key == "FACE" })
        #expect(face.layout?.description == "Lffff")
        #expect(face.samples.count == 15)
        #expect(face.samples[0].isEmpty)
        #expect(face.samples[3].count == 5)
        #expect(face.samples[8].count == 10)
    }

    @Test(.requires(.sharedMedia))
    func hero9ComplexScenesAndHues() throws {
        let payloads = try GPMF.splitStream(TestFiles.sharedMediaData("gopro-dashboard-overlay_rotation-example.gpmd"))
        #expect(payloads.count == 44)
        let series = try GPMF.series(payload: payloads[0])
        let scen = try #require(series.first { $0.key == "SCEN" })
        #expect(scen.typeDescription == "Ff")
        #expect(scen.samples.count == 10)
        #expect(scen.samples[0].count == 12)
        if case .fourCC = scen.samples[0][0] {} else { Issue.record("SCEN starts with a FourCC, got \(scen.samples[0][0])") }
        let hues = try #require(series.first { $0.key == "HUES" })
        #expect(hues.samples[0].count == 6)
        let devices = Set(series.compactMap(\.deviceName))
        #expect(devices == ["HERO9 Black"])
    }

    @Test func scaleAppliesPerElementOrToAll() {
        let values: [GPMFValue] = [.int(10), .int(20), .string("x")]
        #expect(GPMF.apply(scale: [10], to: values) == [.real(1), .real(2), .string("x")])
        #expect(GPMF.apply(scale: [10, 4], to: values) == [.real(1), .real(5), .string("x")])
        #expect(GPMF.apply(scale: [0], to: values) == values)
        #expect(GPMF.apply(scale: [], to: values) == values)
    }
}
