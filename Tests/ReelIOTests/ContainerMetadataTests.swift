import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

@Suite("Container metadata mapping")
struct ContainerMetadataTests {
    @Test("QuickTime reverse-DNS keys go to mdta, location to udta, the rest to container")
    func identifiers() {
        #expect(
            ContainerMetadata.identifier(forTag: "com.apple.quicktime.make", family: .quickTime).rawValue
                == "mdta/com.apple.quicktime.make")
        #expect(ContainerMetadata.identifier(forTag: "location", family: .quickTime) == ContainerMetadata.userDataLocation)
        #expect(ContainerMetadata.identifier(forTag: "title", family: .quickTime).rawValue == "container/title")
        #expect(ContainerMetadata.identifier(forTag: "TITLE", family: .matroska).rawValue == "container/TITLE")
        #expect(ContainerMetadata.identifier(forTag: "service_name", family: .mpegTS).rawValue == "container/service_name")
    }

    @Test("a language variant repeating its base tag is dropped")
    func languageVariants() {
        let items = ContainerMetadata.items(
            from: [("location", "+1+2/"), ("location-eng", "+1+2/"), ("title-fra", "Bonjour")], family: .quickTime)
        #expect(items.map(\.identifier.rawValue) == ["udta/\u{A9}xyz", "container/title-fra"])
    }

    @Test(
        "common keys: best source first, dates parsed",
        arguments: [
            ("com.apple.quicktime.creationdate", "2019-02-12T15:27:12+08:00", 1_549_956_432.0),
            ("creation_time", "2019-11-18T15:45:32.000000Z", 1_574_091_932.0),
            ("creation_time", "2024-01-01T00:00:00Z", 1_704_067_200.0),
            ("date", "2024-01-01", 1_704_067_200.0),
        ])
    func commonDates(key: String, text: String, seconds: Double) {
        let items = ContainerMetadata.items(from: [(key, text)], family: .quickTime)
        let common = ContainerMetadata.commonItems(from: items)
        #expect(common.first { $0.identifier == .commonIdentifierCreationDate }?.dateValue == Date(timeIntervalSince1970: seconds))
    }

    @Test("QuickTime mdta keys win over FFmpeg's generic tags")
    func precedence() {
        let items = ContainerMetadata.items(
            from: [
                ("title", "generic"), ("com.apple.quicktime.title", "apple"), ("encoder", "Lavf"),
                ("com.apple.quicktime.software", "12.1.2"), ("make", "Acme"),
            ], family: .quickTime)
        let common = ContainerMetadata.commonItems(from: items)
        #expect(common.first { $0.identifier == .commonIdentifierTitle }?.stringValue == "apple")
        #expect(common.first { $0.identifier == .commonIdentifierSoftware }?.stringValue == "12.1.2")
        #expect(common.first { $0.identifier == .commonIdentifierMake }?.stringValue == "Acme")
        #expect(common.first { $0.identifier == .commonIdentifierModel } == nil)
    }

    @Test("the metadata fixture's QuickTime keys reach the common key space")
    func metadataFixture() async throws {
        let asset = Asset(url: TestFiles.fixture("metadata.mov"))
        let (common, formats) = try await asset.load(.commonMetadata, .availableMetadataFormats)
        func value(_ id: MetadataIdentifier) -> String? { common.first { $0.identifier == id }?.stringValue }
        #expect(value(.commonIdentifierTitle) == "Reel metadata")
        #expect(value(.commonIdentifierMake) == "Reel")
        #expect(value(.commonIdentifierModel) == "Fixture Camera")
        #expect(value(.commonIdentifierSoftware) == "make-fixtures")
        #expect(value(.commonIdentifierLocation) == "+48.8584+002.2945+035.000/")
        #expect(common.first { $0.identifier == .commonIdentifierCreationDate }?.dateValue == Date(timeIntervalSince1970: 1_704_106_800))
        #expect(formats.contains(.quickTimeMetadata) && formats.contains(.container))
        let mdta = try await asset.loadMetadata(for: .quickTimeMetadata)
        #expect(mdta.contains { $0.key == "com.apple.quicktime.location.ISO6709" })
        #expect(try await asset.loadMetadata(for: .common).count == common.count)
    }

    @Test("Matroska tags: title and encoder", arguments: ["chapters.mkv"])
    func matroska(name: String) async throws {
        let common = try await Asset(url: TestFiles.fixture(name)).load(.commonMetadata)
        #expect(common.first { $0.identifier == .commonIdentifierTitle }?.stringValue == "Reel chapters")
    }

    @Test(
        "GoPro: udta location and firmware",
        .requires(.sharedMedia))
    func goPro() async throws {
        let common = try await Asset(url: TestFiles.sharedMedia("gpmf-parser_max-heromode.mp4")).load(.commonMetadata)
        #expect(common.first { $0.identifier == .commonIdentifierLocation }?.stringValue == "+33.1268-117.3273/")
        #expect(common.first { $0.identifier == .commonIdentifierSoftware }?.stringValue == "H19.03.01.30.00")
    }

    @Test(
        "iPhone: make, model, software, location, creation date",
        .requires(.sharedMedia))
    func iPhone() async throws {
        let common = try await Asset(url: TestFiles.sharedMedia("nom-exif_meta.mov")).load(.commonMetadata)
        func value(_ id: MetadataIdentifier) -> String? { common.first { $0.identifier == id }?.stringValue }
        #expect(value(.commonIdentifierMake) == "Apple")
        #expect(value(.commonIdentifierModel) == "iPhone X")
        #expect(value(.commonIdentifierSoftware) == "12.1.2")
        #expect(value(.commonIdentifierLocation) == "+27.1281+100.2508+000.000/")
        #expect(common.first { $0.identifier == .commonIdentifierCreationDate }?.dateValue == Date(timeIntervalSince1970: 1_549_956_432))
    }
}

@Suite("Container metadata from the boxes: key spaces and common keys")
struct ContainerKeySpaceTests {
    func load(_ name: String) async throws -> (all: [MetadataItem], common: [MetadataItem]) {
        try await Asset(url: TestFiles.fixture(name)).load(.metadata, .commonMetadata)
    }

    func value(_ items: [MetadataItem], _ id: MetadataIdentifier) -> MetadataItem? { items.first { $0.identifier == id } }

    @Test("QuickTime user data: udta items instead of FFmpeg's names, mapped to the common keys")
    func quickTimeUserData() async throws {
        let (all, common) = try await load("userdata.mov")
        #expect(all.contains { $0.keySpace == .quickTimeUserData && $0.key == "\u{A9}nam" && $0.stringValue == "Reel user data" })
        #expect(!all.contains { $0.keySpace == .container && ["title", "artist", "album", "copyright"].contains($0.key) })
        #expect(value(common, .commonIdentifierTitle)?.stringValue == "Reel user data")
        #expect(value(common, .commonIdentifierArtist)?.stringValue == "Reel Artist")
        #expect(value(common, .commonIdentifierAlbumName)?.stringValue == "Reel Album")
        #expect(value(common, .commonIdentifierCopyrights)?.stringValue == "2024 Reel")
        #expect(value(common, .commonIdentifierDescription)?.stringValue == "a comment")
        #expect(value(common, .commonIdentifierCreationDate)?.dateValue == Date(timeIntervalSince1970: 1_704_067_200))
        let formats = try await Asset(url: TestFiles.fixture("userdata.mov")).load(.availableMetadataFormats)
        #expect(formats.first == .quickTimeUserData)
    }

    @Test("iTunes items and cover art: the artwork's picture data and type")
    func iTunes() async throws {
        let (all, common) = try await load("selection.mp4")
        #expect(all.contains { $0.keySpace == .iTunes && $0.key == "\u{A9}ART" })
        let artwork = try #require(value(common, .commonIdentifierArtwork))
        #expect(artwork.dataValue?.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(artwork.dataType == "com.apple.metadata.datatype.PNG")
        #expect(value(common, .commonIdentifierDescription)?.stringValue == "Reel description")
        #expect(value(common, .commonIdentifierCopyrights)?.stringValue == "2024 Reel")
        #expect(value(common, .commonIdentifierCreationDate)?.dateValue == Date(timeIntervalSince1970: 1_704_067_200))
        #expect(all.filter { $0.key == "covr" }.count == 1, "the cover from the boxes, not again from FFmpeg")
        let iTunesOnly = try await Asset(url: TestFiles.fixture("selection.mp4")).loadMetadata(for: .iTunes)
        #expect(iTunesOnly.count == all.filter { $0.keySpace == .iTunes }.count)
    }

    @Test("ID3: frames by ID, the attached picture as APIC")
    func id3() async throws {
        let (all, common) = try await load("tags.mp3")
        #expect(Set(all.filter { $0.keySpace == .id3 }.map(\.key)).isSuperset(of: ["TIT2", "TPE1", "TALB", "TDRC", "TCOP", "TPUB", "APIC"]))
        #expect(value(common, .commonIdentifierTitle)?.stringValue == "Reel tags")
        #expect(value(common, .commonIdentifierPublisher)?.stringValue == "Reel Publisher")
        #expect(value(common, .commonIdentifierArtwork)?.dataType == "com.apple.metadata.datatype.PNG")
        #expect(value(common, .commonIdentifierCreationDate)?.dateValue == Date(timeIntervalSince1970: 1_704_067_200))
    }

    /// The common keys a camera or a tagger writes beyond title, artist and album, each
    /// read from a real file: QuickTime user data in MOV (author `©aut`, subject `©key`,
    /// type `©gen`, source `©src`, relation `©lnk`) and ID3 frames in MP3 (type `TCON`,
    /// language `TLAN`, contributor `TPE3`, creator `TCOM`, last-modified date `TDTG`,
    /// format `TFLT`, identifier `TSRC`).
    @Test("the other common keys, from QuickTime user data and ID3 frames of real files")
    func otherCommonKeys() async throws {
        let (movAll, mov) = try await load("userdata.mov")
        // Each key space's item knows the common key it stands for (AVMetadataItem.commonKey).
        #expect(movAll.first { $0.key == "\u{A9}aut" }?.commonKey == "author")
        #expect(movAll.first { $0.key == "\u{A9}src" }?.commonKey == "source")
        #expect(mov.allSatisfy { $0.commonKey == $0.key })
        #expect(value(mov, .commonIdentifierAuthor)?.stringValue == "Reel Author")
        #expect(value(mov, .commonIdentifierSubject)?.stringValue == "reel, fixture")
        #expect(value(mov, .commonIdentifierType)?.stringValue == "Reel Genre")
        #expect(value(mov, .commonIdentifierSource)?.stringValue == "Reel Source")
        #expect(value(mov, .commonIdentifierRelation)?.stringValue == "https://example.com/reel")
        // ©aut is the author, not the artist (FFmpeg reads both as `artist`).
        #expect(value(mov, .commonIdentifierArtist)?.stringValue == "Reel Artist")
        let (all, mp3) = try await load("tags.mp3")
        #expect(Set(all.filter { $0.keySpace == .id3 }.map(\.key)).isSuperset(of: ["TCON", "TLAN", "TPE3", "TCOM", "TDTG", "TFLT", "TSRC"]))
        #expect(value(mp3, .commonIdentifierType)?.stringValue == "Reel Genre")
        #expect(value(mp3, .commonIdentifierLanguage)?.stringValue == "fra")
        #expect(value(mp3, .commonIdentifierContributor)?.stringValue == "Reel Performer")
        #expect(value(mp3, .commonIdentifierCreator)?.stringValue == "Reel Composer")
        #expect(value(mp3, .commonIdentifierLastModifiedDate)?.dateValue == Date(timeIntervalSince1970: 1_706_933_106))
        #expect(value(mp3, .commonIdentifierFormat)?.stringValue == "MPG/3")
        #expect(value(mp3, .commonIdentifierIdentifier)?.stringValue == "XXR012400001")
        #expect(value(mp3, .commonIdentifierPublisher)?.stringValue == "Reel Publisher")
        #expect(all.first { $0.keySpace == .id3 && $0.key == "TCON" }?.commonKey == "type")
        #expect(MetadataItem(identifier: MetadataIdentifier(keySpace: .id3, key: "TXXX"), value: .string("x")).commonKey == nil)
    }

    @Test(
        "FFmpeg's names map to ID3 frames in MP3 only",
        arguments: [
            ("title", ContainerFamily.id3, "org.id3/TIT2"), ("TXXX", .id3, "org.id3/TXXX"), ("major_brand", .id3, "container/major_brand"),
            ("title", .matroska, "container/title"),
        ])
    func id3Names(tag: String, family: ContainerFamily, expected: String) {
        #expect(ContainerMetadata.identifier(forTag: tag, family: family).rawValue == expected)
    }
}
