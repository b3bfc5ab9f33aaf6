import Foundation
import Testing

@testable import Reel

@Suite struct MetadataConversionTests {
    /// Ten fixes a second over two seconds, each with an accelerometer reading beside it.
    static func groups(withAccelerometer: Bool) -> [TimedMetadataGroup] {
        (0..<20).map { i in
            let t = MediaTime(value: Int64(i), timescale: 10), d = MediaTime(value: 1, timescale: 10)
            let fix = GPSFix(
                latitude: 47 + Double(i) * 0.0001, longitude: 8.5, altitude: 420, speed2D: 3,
                time: Date(timeIntervalSince1970: 1_700_000_000 + Double(i) / 10))
            var items = fix.metadataItems(time: t, duration: d)
            if withAccelerometer {
                items.append(
                    MetadataItem(
                        identifier: MetadataIdentifier(keySpace: .gpmf, key: "ACCL"), value: .numbers([9.8, 0, 0.1]),
                        unit: "m/s²", time: t, duration: d))
            }
            return TimedMetadataGroup(timeRange: TimeRange(start: t, duration: d), items: items)
        }
    }

    @Test func klvCarriesEveryFixAndSaysWhatItCannotCarry() throws {
        let groups = Self.groups(withAccelerometer: true)
        let conversion = MetadataConversion(groups: groups, to: .klv, input: AssetWriterInput(settings: .metadata(format: .klv)))
        #expect(conversion.samples.count == 20)
        #expect(conversion.droppedGroups == 0)
        var decoder = TimedMetadataDecoder(format: .klv)
        let back = try conversion.samples.flatMap { try decoder.groups(for: $0) }
        #expect(back.count == 20)
        for (a, b) in zip(groups, back) {
            let (x, y) = (try #require(GPSFix(a)), try #require(GPSFix(b)))
            #expect(abs(x.latitude - y.latitude) < 1e-6)
            #expect(abs(x.longitude - y.longitude) < 1e-6)
            #expect(abs(a.timeRange.start.seconds - b.timeRange.start.seconds) < 1e-9)
        }
        #expect(conversion.lostIdentifiers.contains(MetadataIdentifier(keySpace: .gpmf, key: "ACCL")))
        #expect(conversion.lossDescription?.contains("gpmf/ACCL") == true)
    }

    @Test func gpmdGathersGroupsIntoPayloadsOfAboutASecond() throws {
        let conversion = MetadataConversion(
            groups: Self.groups(withAccelerometer: false), to: .gpmd, input: AssetWriterInput(settings: .metadata(format: .gpmd)))
        #expect(conversion.samples.count == 2)
        var decoder = TimedMetadataDecoder(format: .gpmd)
        let back = try conversion.samples.flatMap { try decoder.groups(for: $0) }
        #expect(back.compactMap { GPSFix($0) }.count == 20)
    }

    @Test func groupsWithNothingTheFormatHoldsAreCountedNotLostSilently() throws {
        let orientation = TimedMetadataGroup(
            timeRange: TimeRange(start: .zero, duration: .ratio(1, 2)),
            items: [
                MetadataItem(identifier: MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.apple.quicktime.video-orientation"), value: .integer(6))
            ])
        let conversion = MetadataConversion(groups: [orientation], to: .klv, input: AssetWriterInput(settings: .metadata(format: .klv)))
        #expect(conversion.samples.isEmpty)
        #expect(conversion.droppedGroups == 1)
        let text = try #require(conversion.lossDescription)
        #expect(text.contains("video-orientation"))
        #expect(text.contains("1 group"))
    }

    @Test func mebxCarriesTheLocationAndQuickTimeItemsUnderTheInputsKeys() throws {
        var groups = Self.groups(withAccelerometer: true)
        let orientation = MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.apple.quicktime.video-orientation")
        groups[0].items.append(MetadataItem(identifier: orientation, value: .integer(6)))
        let input = AssetWriterInput(settings: .metadata(format: .mebx))
        let conversion = MetadataConversion(groups: groups, to: .mebx, input: input)
        #expect(conversion.samples.count == 20)
        #expect(input.metadataKeys.map(\.key).contains("com.apple.quicktime.location.ISO6709"))
        var decoder = TimedMetadataDecoder(format: .mebx, keys: input.metadataKeys)
        let back = try conversion.samples.flatMap { try decoder.groups(for: $0) }
        #expect(back.first?.item(orientation)?.numberValue == 6)
        for (a, b) in zip(groups, back) {
            let (x, y) = (try #require(GPSFix(a)), try #require(GPSFix(b)))
            #expect(abs(x.latitude - y.latitude) < 1e-6)
        }
        #expect(conversion.lostIdentifiers.contains(MetadataIdentifier(keySpace: .gpmf, key: "ACCL")))
        #expect(!conversion.lostIdentifiers.contains(orientation))
    }
    /// Groups as a GPMF payload's decoder gives them: the first starts with the payload
    /// (at 0) though its fix was taken at 0.1 s; the others start at their fixes.
    static func payloadGroups() -> [TimedMetadataGroup] {
        let times = [MediaTime(value: 1, timescale: 10), MediaTime(value: 2, timescale: 10), MediaTime(value: 3, timescale: 10)]
        return times.enumerated().map { k, t in
            let end = MediaTime(value: Int64(k + 2), timescale: 10)
            let fix = GPSFix(
                latitude: 47 + Double(k) * 0.001, longitude: 8.5, altitude: 420, speed2D: 3, speed3D: 3.1,
                time: Date(timeIntervalSince1970: 1_700_000_000 + Double(k) / 10), fix: 3, dop: 1.5)
            return TimedMetadataGroup(timeRange: TimeRange(start: k == 0 ? .zero : t, end: end), items: fix.metadataItems(time: t, duration: end - t))
        }
    }

    @Test(arguments: [MetadataFormat.klv, .camm, .mebx])
    func eachConvertedSampleStartsAtItsFixsOwnTime(format: MetadataFormat) throws {
        let conversion = MetadataConversion(groups: Self.payloadGroups(), to: format, input: AssetWriterInput(settings: .metadata(format: format)))
        #expect(
            conversion.samples.map(\.presentationTime) == [
                MediaTime(value: 1, timescale: 10), MediaTime(value: 2, timescale: 10), MediaTime(value: 3, timescale: 10),
            ])
        // Each lasts until the next; the last until its group ends.
        #expect(conversion.samples.map(\.duration.seconds) == [0.1, 0.1, 0.1])
    }

    @Test func aCarriedFixWithoutItsDOPFixTypeAnd3DSpeedNamesThemFirst() throws {
        var groups = Self.payloadGroups()
        for k in groups.indices {
            for key in ["ACCL", "GYRO", "MAGN", "CORI", "GRAV", "IORI", "ISOE", "SHUT", "WBAL"] {
                groups[k].items.append(
                    MetadataItem(
                        identifier: MetadataIdentifier(keySpace: .gpmf, key: key), value: .numbers([1]),
                        time: groups[k].timeRange.start))
            }
        }
        let conversion = MetadataConversion(groups: groups, to: .klv, input: AssetWriterInput(settings: .metadata(format: .klv)))
        let text = try #require(conversion.lossDescription)
        #expect(text.hasPrefix("not carried: reel/gps.dop, reel/gps.fix, reel/speed.3d, gpmf/ACCL"), "\(text)")
    }

    @Test func toGPMDNothingIsMadeUpAndEachFixKeepsItsTime() throws {
        // A drone's KLV: position, altitude and a UTC time on each fix, 30 a second.
        let groups = (0..<45).map { i in
            let t = MediaTime(value: Int64(i), timescale: 30), d = MediaTime(value: 1, timescale: 30)
            let fix = GPSFix(
                latitude: 38.25 + Double(i) * 1e-5, longitude: -77.36, altitude: 1054.4,
                time: Date(timeIntervalSince1970: 1_221_515_219.356 + Double(i) * 0.0337))
            return TimedMetadataGroup(timeRange: TimeRange(start: t, duration: d), items: fix.metadataItems(time: t, duration: d))
        }
        let conversion = MetadataConversion(groups: groups, to: .gpmd, input: AssetWriterInput(settings: .metadata(format: .gpmd)))
        #expect(conversion.lossDescription == nil, "\(conversion.lossDescription ?? "")")
        var decoder = TimedMetadataDecoder(format: .gpmd)
        let back = try conversion.samples.flatMap { try decoder.groups(for: $0) }.compactMap { g in GPSFix(g).map { (GPSFix.time(in: g), $0) } }
        #expect(back.count == 45)
        for ((time, fix), group) in zip(back, groups) {
            let source = try #require(GPSFix(group))
            #expect(fix.speed2D == nil && fix.speed3D == nil && fix.fix == nil && fix.dop == nil, "\(fix)")
            #expect(abs((fix.time?.timeIntervalSince1970 ?? 0) - source.time!.timeIntervalSince1970) < 0.0006, "\(fix)")
            #expect(abs((time - group.timeRange.start).seconds) < 1.0 / 30, "\(time) for \(group.timeRange.start)")
        }
    }
}
