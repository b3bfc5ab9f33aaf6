import Foundation
import Reel
import ReelTestSupport
import Testing

/// An audio track that cannot be decoded stops an export while it is planned
/// (``ExportAudio`` `checkDecoding`), before any picture is rendered.
@Suite struct ExportAudioCheckTests {
    func expectRefusedBeforeTheFirstFrame(_ session: AssetExportSession, source: URL, folder: URL) async throws {
        let out = folder.appendingPathComponent("out.mp4")
        let error = await expectReelError(.decoderFailed) { try await session.export(to: out, as: .mp4) }
        #expect(error?.path == source.path, "\(String(describing: error))")
        #expect(error?.trackID == 2, "\(String(describing: error))")
        #expect(error?.description.contains("\n") == false)
        #expect(session.progress == 0, "no picture was rendered")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [source.lastPathComponent], "nothing written")
    }

    @Test(.requires(.ffmpeg))
    func aTrackToCopyIsCheckedBeforeTheVideoIsRendered() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = try BrokenAACClip.make(in: folder)
        let session = try await AssetExportSession(asset: Asset(url: broken), preset: .h264(crf: 30, preset: "ultrafast"))
        try await expectRefusedBeforeTheFirstFrame(session, source: broken, folder: folder)
    }

    @Test(.requires(.ffmpeg))
    func aTrackToMixIsCheckedBeforeTheVideoIsRendered() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = try BrokenAACClip.make(in: folder)
        let session = try await AssetExportSession(asset: Asset(url: broken), preset: .h264(crf: 30, preset: "ultrafast"))
        var half = MutableAudioMixInputParameters(trackID: 2)
        half.setVolume(0.5, at: .zero)
        session.audioMix = AudioMix(inputParameters: [.init(half)])
        try await expectRefusedBeforeTheFirstFrame(session, source: broken, folder: folder)
    }
}
