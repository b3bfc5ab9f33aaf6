import Foundation
import Testing
import ReelCore
@testable import ReelIO
import ReelTestSupport

@Suite struct ContainerTagPlanTests {
    static func item(_ id: MetadataIdentifier, _ value: MetadataValue) -> MetadataItem { MetadataItem(identifier: id, value: value) }

    static let created = Date(timeIntervalSince1970: 1_600_000_000)

    /// The common items a camera or an editor writes, with text values.
    static let common: [MetadataItem] = [
        item(.commonIdentifierTitle, .string("Harbour at dawn")),
        item(.commonIdentifierArtist, .string("A. Person")),
        item(.commonIdentifierAlbumName, .string("Coast")),
        item(.commonIdentifierCopyrights, .string("(c) 2026 A. Person")),
        item(.commonIdentifierMake, .string("Acme")),
        item(.commonIdentifierModel, .string("Cam 2")),
        item(.commonIdentifierSoftware, .string("1.2.3")),
        item(.commonIdentifierDescription, .string("Boats leaving")),
        item(.commonIdentifierSubject, .string("boats, sea")),
        item(.commonIdentifierPublisher, .string("Harbour Films")),
        item(.commonIdentifierCreationDate, .date(created)),
        item(.commonIdentifierLocation, .string("+51.5000-000.1200/")),
    ]
    static let ownKey = item(MetadataIdentifier(keySpace: .quickTimeMetadata, key: "com.example.camera.lens"), .string("35mm"))
    static let artwork = item(.commonIdentifierArtwork, .data(Data([0x89, 0x50, 0x4E, 0x47])))

    /// Writes five frames with `items` as the file's metadata; returns the writer.
    @discardableResult
    static func write(_ items: [MetadataItem], to url: URL, as fileType: AssetWriter.FileType) async throws -> AssetWriter {
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        writer.metadata = items
        let video = AssetWriterInput(settings: .video(.init(codec: .h264, width: 64, height: 48, preset: "ultrafast")))
        try writer.add(video)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for i in 0..<5 {
            try await video.append(PixelBuffer(width: 64, height: 48, format: .yuv420p), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
        }
        try await writer.finishWriting()
        return writer
    }

    static func plan(_ items: [MetadataItem], _ fileType: AssetWriter.FileType) -> (tags: [String: String], metadataKeys: Bool, notWritten: [MetadataItem]) {
        let plan = ContainerTagPlan(items: items, fileType: fileType)
        return (Dictionary(plan.tags.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }), plan.usesMetadataKeys, plan.notWritten)
    }

    static func text(_ items: [MetadataItem], _ id: MetadataIdentifier) -> String? {
        items.first { $0.identifier == id }?.stringValue
    }

    @Test(arguments: [AssetWriter.FileType.mov, .mp4, .mkv])
    func everyTextItemRoundTripsAndOnlyThePictureIsLeftOut(fileType: AssetWriter.FileType) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.\(fileType.rawValue)")
        let writer = try await Self.write(Self.common + [Self.ownKey, Self.artwork], to: url, as: fileType)
        // Matroska has no QuickTime metadata keys: a key with no common meaning stays out.
        #expect(writer.metadataNotWritten == (fileType == .mkv ? [Self.ownKey, Self.artwork] : [Self.artwork]))
        let (common, all) = try await Asset(url: url).load(.commonMetadata, .metadata)
        for item in Self.common where item.identifier != .commonIdentifierCreationDate {
            #expect(Self.text(common, item.identifier) == item.stringValue, "\(item.identifier) in \(fileType)")
        }
        let date = try #require(common.first { $0.identifier == .commonIdentifierCreationDate })
        #expect(date.dateValue == Self.created)
        if fileType != .mkv { #expect(Self.text(all, Self.ownKey.identifier) == "35mm") }
    }

    @Test func itemsThatFitUserDataStayThereInMOV() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.mov")
        let items = [Self.item(.commonIdentifierTitle, .string("T")), Self.item(.commonIdentifierMake, .string("Acme"))]
        let writer = try await Self.write(items, to: url, as: .mov)
        #expect(writer.metadataNotWritten.isEmpty)
        let all = try await Asset(url: url).load(.metadata)
        #expect(Self.text(all, MetadataIdentifier(keySpace: .quickTimeUserData, key: "\u{A9}nam")) == "T")
        #expect(Self.text(all, MetadataIdentifier(keySpace: .quickTimeUserData, key: "\u{A9}mak")) == "Acme")
        #expect(!all.contains { $0.keySpace == .quickTimeMetadata })
    }

    @Test func keySpaceItemsGoWhereTheirContainerKeepsThem() {
        let udtaTitle = Self.item(MetadataIdentifier(keySpace: .quickTimeUserData, key: "\u{A9}nam"), .string("T"))
        let itunesDesc = Self.item(MetadataIdentifier(keySpace: .iTunes, key: "desc"), .string("D"))
        let itunesComposer = Self.item(MetadataIdentifier(keySpace: .iTunes, key: "\u{A9}wrt"), .string("C"))
        // The MOV muxer writes `©des`, the description, from FFmpeg's `comment`.
        let plainMOV = Self.plan([udtaTitle, itunesDesc], .mov)
        #expect(!plainMOV.metadataKeys && plainMOV.tags == ["title": "T", "comment": "D"])
        // iTunes `©wrt` has a common meaning (creator) that MOV keeps only as a metadata key.
        let mov = Self.plan([udtaTitle, itunesDesc, itunesComposer], .mov)
        #expect(mov.metadataKeys)
        #expect(mov.tags["com.apple.quicktime.title"] == "T" && mov.tags["com.apple.quicktime.description"] == "D"
                && mov.tags["com.apple.quicktime.director"] == "C")
        let mp4 = Self.plan([itunesDesc], .mp4)
        #expect(!mp4.metadataKeys && mp4.tags == ["description": "D"])
        let mkv = Self.plan([Self.item(MetadataIdentifier(keySpace: .id3, key: "TPUB"), .string("P"))], .mkv)
        #expect(mkv.tags == ["publisher": "P"] && mkv.notWritten.isEmpty)
    }

    @Test func mpegTSHoldsNoTagsAndSaysWhichItLeavesOut() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try AssetWriter(outputURL: folder.appendingPathComponent("out.ts"), fileType: .mpegts)
        writer.metadata = Self.common
        #expect(writer.metadataNotWritten == Self.common)
    }

    @Test func theFilesOwnDescriptionTagsAreNotAskedFor() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try AssetWriter(outputURL: folder.appendingPathComponent("out.mp4"), fileType: .mp4)
        writer.metadata = [Self.item(MetadataIdentifier(keySpace: .container, key: "major_brand"), .string("qt  ")),
                           Self.item(MetadataIdentifier(keySpace: .container, key: "compatible_brands"), .string("qt  ")),
                           Self.item(MetadataIdentifier(keySpace: .iTunes, key: "\u{A9}too"), .string("Lavf59.27.100")),
                           Self.item(.commonIdentifierSoftware, .string("Lavf59.27.100"))]
        #expect(writer.metadataNotWritten.isEmpty)
        // ... and they do not make the muxer write metadata keys.
        #expect(Self.plan(writer.metadata, .mp4).tags.isEmpty && !Self.plan(writer.metadata, .mp4).metadataKeys)
    }
}

