import Foundation
import Reel
import ReelCore
import ReelPreview
import ReelTestSupport
import Testing

/// Tolerant seeks (a scrubber's): the frame quickest to show within the tolerance, and
/// that frame exactly as an exact seek to it shows it.
@Suite("PreviewRenderer", .serialized)
struct PreviewRendererTests {
    /// The dashboard over the counter-gps fixture: 60 frames at 30 fps, keyframes at 0 s and
    /// 1 s (frames 0 and 30).
    static func renderer(in folder: URL) async throws -> PreviewRenderer {
        try await PreviewServerTests.server(path: PreviewServerTests.writeDashboard(in: folder)).renderer
    }

    static func png(_ frame: PreviewFrame) throws -> Data { try ImageEncoder.data(for: frame.pixelBuffer, as: .png) }

    /// The frame source of the first video segment of `state`.
    static func videoSource(of state: PreviewDocument.State) throws -> AssetVideoFrameSource {
        let reference = try #require(state.composition.tracks(withMediaType: .video).first?.segments.first?.sourceTrack)
        return try #require(state.sources.videoFrameSource(for: reference) as? AssetVideoFrameSource)
    }

    @Test("a tolerant seek lands on the keyframe in its window, the same picture an exact seek there gives")
    func landsOnTheKeyframe() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let renderer = try await Self.renderer(in: folder)
        // Nothing read yet: the keyframes come from the file's index.
        let landed = try await renderer.frame(44, toleranceBefore: 20, toleranceAfter: 0)
        #expect(landed.index == 30)
        // A scrub's frame is rendered alone: the next frame starts a render of its own.
        #expect(await renderer.renderStarts == 1)
        #expect(try await renderer.frame(31).index == 31)
        #expect(await renderer.renderStarts == 2)
        let exact = try await Self.renderer(in: folder).frame(30)
        #expect(try Self.png(landed) == Self.png(exact))
        #expect(landed.metadata.map(\.trackID) == exact.metadata.map(\.trackID))
    }

    @Test("a jump starts a render at a seek's frame, unless the page plays on from it")
    func aJumpIsASeekUnlessPlaying() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let renderer = try await Self.renderer(in: folder)
        let seeked = try await renderer.frame(40)
        #expect(await renderer.renderStarts == 1)
        #expect(await renderer.seekRenderStarts == 1)
        // Read on from the running render: no start.
        #expect(try await renderer.frame(41, playing: true).index == 41)
        #expect(await renderer.renderStarts == 1)
        // A jump while playing reads on from its frame; a jump while not, seeks.
        #expect(try await renderer.frame(10, playing: true).index == 10)
        #expect(await renderer.renderStarts == 2)
        #expect(await renderer.seekRenderStarts == 1)
        #expect(try await renderer.frame(55, toleranceBefore: 0, toleranceAfter: 0).index == 55)
        #expect(await renderer.renderStarts == 3)
        #expect(await renderer.seekRenderStarts == 2)
        // The same picture either way.
        let played = try await Self.renderer(in: folder).frame(40, playing: true)
        #expect(try Self.png(seeked) == Self.png(played))
    }

    @Test("with no page left the sources close their readers; the next frame opens them again and is the same picture")
    func releasedSourcesOpenAgain() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await PreviewServerTests.server(path: PreviewServerTests.writeDashboard(in: folder))
        let renderer = server.renderer
        let source = try Self.videoSource(of: try #require(await server.document.state))
        _ = try await renderer.frame(20)
        let opened = await source.readerOpenCount
        #expect(opened >= 1)
        await renderer.releaseSources()
        // The next frame would have read on from the running render: it starts anew, and
        // the file is opened again.
        let next = try await renderer.frame(21)
        #expect(await renderer.renderStarts == 2)
        #expect(await source.readerOpenCount == opened + 1)
        let fresh = try await Self.renderer(in: folder).frame(21)
        #expect(try Self.png(next) == Self.png(fresh))
    }

    @Test("a saved edit closes the readers of the document as it was; the new document's frames come from its own")
    func anEditClosesTheOldReaders() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await PreviewServerTests.server(path: PreviewServerTests.writeDashboard(in: folder))
        let renderer = server.renderer
        let oldSource = try Self.videoSource(of: try #require(await server.document.state))
        _ = try await renderer.frame(20)
        #expect(await oldSource.openReaderCount == 1)
        let new = try await server.document.load()
        let newSource = try Self.videoSource(of: new)
        #expect(newSource !== oldSource)
        await renderer.update(new)
        #expect(await oldSource.openReaderCount == 0)
        _ = try await renderer.frame(21)
        #expect(await newSource.openReaderCount == 1)
        #expect(await oldSource.openReaderCount == 0)
    }

    @Test("pages asking at once each get their own frame: a jump by one neither cancels nor takes the frame another waits for")
    func pagesAskingAtOnce() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let renderer = try await Self.renderer(in: folder)
        // Four pages, each reading on from a place of its own, their requests interleaved;
        // then again from other places (the renderer keeps 32 frames). Each frame must be the
        // one asked for, rendered for its own time.
        for round in 0..<3 {
            let starts = [0, 15, 30, 45].map { ($0 + round * 4) % 48 }
            let results = try await withThrowingTaskGroup(of: [String].self) { group in
                for start in starts {
                    group.addTask {
                        var shown: [String] = []
                        for index in start..<(start + 12) {
                            let frame = try await renderer.frame(index)
                            let expected = await renderer.time(ofFrame: index)
                            shown.append(frame.index == index && frame.time == expected ? "\(index)" : "\(index): frame \(frame.index) at \(frame.time)")
                        }
                        return shown
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // A cancelled request throws out of the group; a frame taken by another page is named.
            #expect(results.count == 4)
            for shown in results { #expect(shown.allSatisfy { !$0.contains(":") }, "round \(round): \(shown)") }
        }
    }

    @Test("with the keyframe outside the window, the window's first frame; without tolerance, the frame asked for")
    func outsideTheWindow() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let renderer = try await Self.renderer(in: folder)
        #expect(try await renderer.frame(44, toleranceBefore: 5, toleranceAfter: 0).index == 39)
        #expect(try await renderer.frame(20, toleranceBefore: 0, toleranceAfter: 0).index == 20)
        // A keyframe after the frame, within toleranceAfter.
        #expect(try await Self.renderer(in: folder).frame(27, toleranceBefore: 0, toleranceAfter: 5).index == 30)
    }

    @Test("the largest tolerances a message can carry are clipped to the document")
    func hugeTolerances() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let renderer = try await Self.renderer(in: folder)
        let landed = try await renderer.frame(10, toleranceBefore: .max, toleranceAfter: .max)
        #expect((0..<60).contains(landed.index))
        #expect(try await renderer.frame(59, toleranceBefore: 0, toleranceAfter: .max).index == 59)
    }

    @Test("a frame rendered already, or the running render's next, wins when nearer than the keyframe")
    func nearerFramesWin() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let renderer = try await Self.renderer(in: folder)
        _ = try await renderer.frame(40)
        let starts = await renderer.renderStarts
        // The running render's next frame is 41, one from 42; the keyframe is twelve away.
        #expect(try await renderer.frame(42, toleranceBefore: 20, toleranceAfter: 0).index == 41)
        // Frame 40 is kept: nearer to 38 than the keyframe (frame 30).
        #expect(try await renderer.frame(38, toleranceBefore: 20, toleranceAfter: 5).index == 40)
        #expect(await renderer.renderStarts == starts)
    }
}
