import Foundation
import ReelTestSupport
import Testing

@testable import ReelCore

@Suite("AtomicFile")
struct AtomicFileTests {
    /// The names in `folder`: after any write, only the destination, never a temporary file.
    static func names(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func writesANewFileAndLeavesNoTemporary() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.txt")
        try AtomicFile.write(Data("new".utf8), to: url, replacing: false)
        #expect(try Data(contentsOf: url) == Data("new".utf8))
        #expect(try Self.names(in: folder) == ["out.txt"])
    }

    @Test func replacesOnlyWhenAsked() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.txt")
        try Data("old".utf8).write(to: url)
        expectReelError(.outputExists) { try AtomicFile.write(Data("new".utf8), to: url, replacing: false) }
        #expect(try Data(contentsOf: url) == Data("old".utf8))
        try AtomicFile.write(Data("new".utf8), to: url, replacing: true)
        #expect(try Data(contentsOf: url) == Data("new".utf8))
        #expect(try Self.names(in: folder) == ["out.txt"])
    }

    @Test func aFileThatAppearsWhileWritingIsKept() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.txt")
        let file = try AtomicFile(url, replacing: false)
        try Data("written".utf8).write(to: file.temporaryURL)
        try Data("appeared".utf8).write(to: url)
        let error = expectReelError(.outputExists) { try file.commit() }
        #expect(error?.message.contains("appeared") == true)
        #expect(try Data(contentsOf: url) == Data("appeared".utf8))
        #expect(try Self.names(in: folder) == ["out.txt"])
    }

    /// The rename fails (a folder took the destination's place): what is there stays, and
    /// the temporary file is removed.
    @Test func aFailedCommitKeepsTheDestinationAndRemovesTheTemporary() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out")
        let file = try AtomicFile(url, replacing: true)
        try Data("written".utf8).write(to: file.temporaryURL)
        try FileManager.default.createDirectory(at: url.appendingPathComponent("inside"), withIntermediateDirectories: true)
        expectReelError(.outputFailed) { try file.commit() }
        #expect(try Self.names(in: url) == ["inside"])
        #expect(try Self.names(in: folder) == ["out"])
    }

    @Test func aTemporaryThatCannotBeFlushedFailsTheCommit() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.txt")
        try Data("old".utf8).write(to: url)
        let file = try AtomicFile(url, replacing: true)
        // Nothing was written to the temporary path.
        expectReelError(.outputFailed) { try file.commit() }
        #expect(try Data(contentsOf: url) == Data("old".utf8))
        #expect(try Self.names(in: folder) == ["out.txt"])
    }

    @Test func discardRemovesTheTemporary() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try AtomicFile(folder.appendingPathComponent("out.txt"), replacing: false)
        try Data("partial".utf8).write(to: file.temporaryURL)
        #expect(file.temporaryURL.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path)
        #expect(file.temporaryURL.lastPathComponent.hasPrefix("."))
        file.discard()
        #expect(try Self.names(in: folder).isEmpty)
    }

    @Test func refusesAFolderOrAMissingFolder() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        expectReelError(.notAFile) { try AtomicFile.write(Data(), to: folder, replacing: true) }
        expectReelError(.fileNotFound) { try AtomicFile.write(Data(), to: folder.appendingPathComponent("no/out.txt"), replacing: true) }
        #expect(try Self.names(in: folder).isEmpty)
    }
}
