import Foundation
import ReelCore
import Testing

@Suite("MetadataItem")
struct MetadataItemTests {
    static let id = MetadataIdentifier(keySpace: .reel, key: "test.value")
    static let date = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z

    func item(_ value: MetadataValue) -> MetadataItem { MetadataItem(identifier: Self.id, value: value) }

    @Test func defaultsAndKeys() {
        let i = item(.integer(1))
        #expect(i.key == "test.value" && i.keySpace == .reel)
        #expect(!i.time.isValid && !i.duration.isValid)
        #expect(i.dataType == nil && i.unit == nil)
    }

    @Test func stringValue() {
        #expect(item(.string("GoPro")).stringValue == "GoPro")
        #expect(item(.integer(-42)).stringValue == "-42")
        #expect(item(.double(1.5)).stringValue == "1.5")
        #expect(item(.date(Self.date)).stringValue == "2023-11-14T22:13:20Z")
        #expect(item(.numbers([1, 2.5])).stringValue == "1.0 2.5")
        #expect(item(.data(Data([1, 2]))).stringValue == nil)
    }

    @Test func numberValue() {
        #expect(item(.integer(7)).numberValue == 7)
        #expect(item(.double(-0.25)).numberValue == -0.25)
        #expect(item(.string(" 33.5 ")).numberValue == 33.5)
        #expect(item(.string("-117")).numberValue == -117)
        #expect(item(.numbers([9.81])).numberValue == 9.81)
        // Not coercible.
        #expect(item(.string("north")).numberValue == nil)
        #expect(item(.string("")).numberValue == nil)
        #expect(item(.numbers([1, 2])).numberValue == nil)
        #expect(item(.numbers([])).numberValue == nil)
        #expect(item(.date(Self.date)).numberValue == nil)
        #expect(item(.data(Data([1]))).numberValue == nil)
    }

    @Test func dateValue() {
        #expect(item(.date(Self.date)).dateValue == Self.date)
        #expect(item(.string("2023-11-14T22:13:20Z")).dateValue == Self.date)
        let fractional = item(.string("2023-11-14T22:13:20.250Z")).dateValue
        #expect(fractional.map { abs($0.timeIntervalSince(Self.date) - 0.25) < 1e-6 } == true)
        // ID3v2.4 timestamps: no zone, UTC.
        #expect(item(.string("2023-11-14T22:13:20")).dateValue == Self.date)
        // Not coercible.
        #expect(item(.string("yesterday")).dateValue == nil)
        #expect(item(.integer(1_700_000_000)).dateValue == nil)
        #expect(item(.double(1)).dateValue == nil)
        #expect(item(.data(Data())).dateValue == nil)
    }

    @Test func dataValue() {
        #expect(item(.data(Data([0, 255]))).dataValue == Data([0, 255]))
        #expect(item(.string("é")).dataValue == Data([0xC3, 0xA9]))
        // Not coercible.
        #expect(item(.integer(1)).dataValue == nil)
        #expect(item(.double(1)).dataValue == nil)
        #expect(item(.date(Self.date)).dataValue == nil)
        #expect(item(.numbers([1])).dataValue == nil)
    }

    @Test func filteringByIdentifier() {
        let other = MetadataItem(identifier: .latitude, value: .double(1))
        let items = [item(.integer(1)), other, item(.integer(2))]
        let found = MetadataItem.metadataItems(from: items, filteredByIdentifier: Self.id)
        #expect(found.map(\.numberValue) == [1, 2])
        #expect(MetadataItem.metadataItems(from: items, filteredByIdentifier: .course).isEmpty)
    }

    @Test func filteringByKeyAndKeySpace() {
        let udtaTitle = MetadataItem(identifier: MetadataIdentifier(keySpace: .quickTimeUserData, key: "\u{A9}nam"), value: .string("U"))
        let itunesTitle = MetadataItem(identifier: MetadataIdentifier(keySpace: .iTunes, key: "\u{A9}nam"), value: .string("I"))
        let title = MetadataItem(identifier: .commonIdentifierTitle, value: .string("C"))
        let items = [udtaTitle, title, itunesTitle]
        #expect(MetadataItem.metadataItems(from: items, withKey: "\u{A9}nam", keySpace: .iTunes) == [itunesTitle])
        #expect(MetadataItem.metadataItems(from: items, withKey: "\u{A9}nam", keySpace: nil) == [udtaTitle, itunesTitle])
        #expect(MetadataItem.metadataItems(from: items, withKey: nil, keySpace: .common) == [title])
        #expect(MetadataItem.metadataItems(from: items, withKey: nil, keySpace: nil) == items)
        // Keys compare exactly: `title` is not `©nam`.
        #expect(MetadataItem.metadataItems(from: items, withKey: "title", keySpace: .quickTimeUserData).isEmpty)
    }

    @Test func filteringAndSortingByPreferredLanguages() {
        func titled(_ text: String, _ language: String?) -> MetadataItem {
            MetadataItem(identifier: .commonIdentifierTitle, value: .string(text), extendedLanguageTag: language)
        }
        let english = titled("Harbour", "en"), french = titled("Port", "fr-FR"), canadian = titled("Quai", "fr-CA")
        let german = titled("Hafen", "de"), none = titled("?", nil)
        let items = [english, french, none, german, canadian]
        // French first (both French items, in their order), then English; German and the
        // item without a language are left out.
        #expect(
            MetadataItem.metadataItems(from: items, filteredAndSortedAccordingToPreferredLanguages: ["fra", "en-GB"])
                == [french, canadian, english])
        #expect(MetadataItem.metadataItems(from: items, filteredAndSortedAccordingToPreferredLanguages: ["ja"]).isEmpty)
        #expect(MetadataItem.metadataItems(from: items, filteredAndSortedAccordingToPreferredLanguages: []).isEmpty)
    }

    @Test func startDateAndExtraAttributes() {
        let plain = item(.integer(1))
        #expect(plain.startDate == nil && plain.extraAttributes.isEmpty)
        let dated = MetadataItem(identifier: Self.id, value: .string("x"), startDate: Self.date, extraAttributes: [.info: "lens"])
        #expect(dated.startDate == Self.date && dated.extraAttributes[.info] == "lens")
        // Both take part in equality, as the item's other fields do.
        #expect(dated != MetadataItem(identifier: Self.id, value: .string("x"), startDate: Self.date))
        #expect(MetadataExtraAttributeKey.info.rawValue == "info" && MetadataExtraAttributeKey.baseURI.rawValue == "baseURI")
    }

    @Test func groupInEitherArgumentOrder() {
        let range = TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 10))
        #expect(TimedMetadataGroup(items: [item(.integer(1))], timeRange: range) == TimedMetadataGroup(timeRange: range, items: [item(.integer(1))]))
    }

    @Test func groupLookup() {
        let group = TimedMetadataGroup(
            timeRange: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 10)),
            items: [item(.string("12.5")), MetadataItem(identifier: .course, value: .double(90))])
        #expect(group.number(Self.id) == 12.5)
        #expect(group.number(.course) == 90)
        #expect(group.item(.speed2D) == nil && group.number(.speed2D) == nil)
    }

    @Test func sampleBufferTimeRange() {
        let sample = SampleBuffer(
            data: Data([1]), presentationTime: MediaTime(value: 1001, timescale: 30000),
            duration: MediaTime(value: 1001, timescale: 30000), format: "gpmd")
        #expect(sample.timeRange.end == MediaTime(value: 2002, timescale: 30000))
    }

    @Test func sampleBufferMetadataFormat() {
        func sample(_ format: String) -> SampleBuffer {
            SampleBuffer(data: Data(), presentationTime: .zero, duration: .zero, format: format)
        }
        #expect(sample("gpmd").metadataFormat == .gpmd)
        #expect(sample("KLVA").metadataFormat == .klv)
        #expect(sample("avc1").metadataFormat == nil)
        let typed = SampleBuffer(data: Data(), presentationTime: .zero, duration: .zero, format: .camm)
        #expect(typed.format == "camm" && typed.metadataFormat == .camm)
    }
}
