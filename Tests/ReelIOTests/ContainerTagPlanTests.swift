import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelIO

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
    /// Data that is no JPEG nor PNG picture: an artwork item no container holds.
    static let artwork = item(.commonIdentifierArtwork, .data(Data([0x89, 0x50, 0x4E, 0x47])))

    /// The 16x16 PNG cover of Fixtures/selection.mp4.
    static func fixturePNG() async throws -> Data {
        let items = try await Asset(url: TestFiles.fixture("selection.mp4")).load(.commonMetadata)
        return try #require(items.first { $0.identifier == .commonIdentifierArtwork }?.dataValue)
    }

    /// A 16x16 JPEG made by ffmpeg.
    static func madeJPEG(in folder: URL) throws -> Data {
        let url = folder.appendingPathComponent("cover.jpg")
        _ = try TestTools.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=red:s=16x16", "-frames:v", "1", url.path])
        return try Data(contentsOf: url)
    }

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

    /// A JPEG or PNG artwork item is the cover: read back as the common artwork with its
    /// bytes, in every container but MPEG-TS, whichever form the tags take; a second
    /// picture is left out.
    @Test(.requires(.ffmpeg), arguments: [AssetWriter.FileType.mp4, .mov, .mkv], [false, true])
    func theCoverPictureIsWrittenAndReadBackWithItsBytes(fileType: AssetWriter.FileType, withMetadataKeys: Bool) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, picture) in [("png", try await Self.fixturePNG()), ("jpeg", try Self.madeJPEG(in: folder))] {
            let url = folder.appendingPathComponent("\(name)-\(withMetadataKeys).\(fileType.rawValue)")
            let cover = Self.item(.commonIdentifierArtwork, .data(picture))
            let second = Self.item(MetadataIdentifier(keySpace: .iTunes, key: "covr"), .data(picture + Data([0])))
            var items = [Self.item(.commonIdentifierTitle, .string("Harbour")), cover, second]
            if withMetadataKeys { items.append(Self.ownKey) }
            let plan = ContainerTagPlan(items: items, fileType: fileType)
            if fileType != .mkv { #expect(plan.usesMetadataKeys == withMetadataKeys, "\(fileType)") }
            let writer = try await Self.write(items, to: url, as: fileType)
            let expectedLeftOut = fileType == .mkv && withMetadataKeys ? [second, Self.ownKey] : [second]
            #expect(writer.metadataNotWritten == expectedLeftOut, "\(name) in \(fileType)")
            let asset = Asset(url: url)
            let common = try await asset.load(.commonMetadata)
            let artwork = common.filter { $0.identifier == .commonIdentifierArtwork }
            #expect(artwork.count == 1 && artwork.first?.dataValue == picture, "\(name) in \(fileType), metadata keys: \(withMetadataKeys)")
            #expect(Self.text(common, .commonIdentifierTitle) == "Harbour")
            // The cover is no track of the file.
            let tracks = try await asset.load(.tracks)
            #expect(tracks.filter { $0.mediaType == .video && !$0.isCoverPicture }.count == 1)
        }
    }

    @Test func pictureHeaders() async throws {
        let png = try await Self.fixturePNG()
        #expect(ContainerTagPlan.Picture.header(of: png).map { "\($0.kind) \($0.width)x\($0.height)" } == "png 16x16")
        // A JPEG's size is in its start-of-frame segment, after the segments before it.
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x30, 0x00, 0x40, 0x03])
        #expect(ContainerTagPlan.Picture.header(of: jpeg).map { "\($0.kind) \($0.width)x\($0.height)" } == "jpeg 64x48")
        // A signature alone is no picture.
        #expect(ContainerTagPlan.Picture.header(of: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])) == nil)
        #expect(ContainerTagPlan.Picture.header(of: Data([0xFF, 0xD8, 0xFF])) == nil)
    }

    @Test func mpegTSHoldsNoPicture() async throws {
        let png = try await Self.fixturePNG()
        let cover = Self.item(.commonIdentifierArtwork, .data(png))
        let plan = ContainerTagPlan(items: [cover], fileType: .mpegts)
        #expect(plan.picture == nil && plan.notWritten == [cover])
        #expect(ContainerTagPlan(items: [cover], fileType: .mp4).picture?.place == .attachedPicture)
        #expect(ContainerTagPlan(items: [cover], fileType: .mov).picture?.place == .metadataKey)
        #expect(ContainerTagPlan(items: [cover], fileType: .mkv).picture?.place == .attachment)
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
        #expect(
            mov.tags["com.apple.quicktime.title"] == "T" && mov.tags["com.apple.quicktime.description"] == "D"
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
        writer.metadata = [
            Self.item(MetadataIdentifier(keySpace: .container, key: "major_brand"), .string("qt  ")),
            Self.item(MetadataIdentifier(keySpace: .container, key: "compatible_brands"), .string("qt  ")),
            Self.item(MetadataIdentifier(keySpace: .iTunes, key: "\u{A9}too"), .string("Lavf59.27.100")),
            Self.item(.commonIdentifierSoftware, .string("Lavf59.27.100")),
        ]
        #expect(writer.metadataNotWritten.isEmpty)
        // ... and they do not make the muxer write metadata keys.
        #expect(Self.plan(writer.metadata, .mp4).tags.isEmpty && !Self.plan(writer.metadata, .mp4).metadataKeys)
    }
}
