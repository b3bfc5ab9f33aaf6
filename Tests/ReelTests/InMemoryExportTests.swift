import Foundation
import Reel
import ReelTestSupport
import ReelTesting
import Testing

/// An export of a composition made in memory: frames, sound, a GPS track and captions that
/// no file holds, written out through the same planners as a composition of files.
@Suite struct InMemoryExportTests {
    static let frameDuration = MediaTime(value: 1, timescale: 30)

    /// Two seconds of counter frames, a 440 Hz tone, a GPS fix every 0.1 s and two captions.
    static func clip() throws -> InMemorySource {
        var clip = InMemorySource(identifier: "in-memory clip")
        try clip.addCounterVideoTrack(trackID: 1, frameCount: 60, frameDuration: frameDuration, width: 320, height: 180)
        let tone = AudioSignal.sine(440, amplitude: 0.5, duration: 2)
        try clip.addSoundTrack(trackID: 2, sound: InMemorySoundSource(sampleRate: tone.sampleRate, channelCount: 1, interleaved: tone.samples))
        let start = GPSFix(latitude: 48.8584, longitude: 2.2945, altitude: 35, speed2D: 4, speed3D: 4)
        let fixes = try SyntheticMetadata.straightLine(
            from: start, latitudeStep: 0.0001, longitudeStep: 0.0002, count: 20, interval: MediaTime(value: 1, timescale: 10))
        try clip.addMetadataTrack(trackID: 3, groups: fixes)
        try clip.addCaptionTrack(
            trackID: 4,
            captions: [
                Caption("first", timeRange: TimeRange(start: MediaTime(value: 1, timescale: 2), end: MediaTime(value: 1, timescale: 1))),
                Caption("second", timeRange: TimeRange(start: MediaTime(value: 3, timescale: 2), end: MediaTime(value: 2, timescale: 1))),
            ])
        return clip
    }

    @Test("an export of a composition held in memory writes its video, sound, GPS track and captions, with no media file", .requires(.ffmpeg))
    func anInMemoryCompositionExportsEveryTrack() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.clip()
        var composition = Composition()
        try composition.insertTimeRange(clip.timeRange, of: clip.description, at: .zero)
        let gpsTrack = try #require(composition.tracks(withMediaType: .metadata).first).trackID

        let session = AssetExportSession(composition: composition, preset: .preset640x480, sources: AssetRenderSources(inMemory: clip))
        session.metadataTrackIDs = [gpsTrack]
        let out = folder.appendingPathComponent("memory.mp4")
        try await session.export(to: out, as: .mp4)

        let tracks = try await Asset(url: out).load(.tracks)
        #expect(Set(tracks.map(\.mediaType)) == [.video, .audio, .metadata, .text])

        // Every frame, in order: the counter each shows is its index.
        let reader = try await AssetReader.open(url: out)
        let video = AssetReaderTrackOutput(trackID: try #require(tracks.first { $0.mediaType == .video }).trackID, settings: .video(pixelFormat: .bgra))
        try reader.add(video)
        try reader.startReading()
        var counters: [Int?] = []
        for try await frame in video.frames { counters.append(readCounter(from: frame.pixelBuffer)) }
        #expect(counters == (0..<60).map { Optional($0) })

        // The tone, at its level, for the whole two seconds.
        let sound = try await AudioSignal.decode(out)
        #expect(abs(sound.duration - 2) < 0.05, "\(sound.duration) s of sound")
        // A sine of amplitude 0.5 is at -9.03 dBFS, all of it the tone.
        let level = 20 * log10(0.5 / 2.0.squareRoot())
        #expect(abs(sound.rms(0.1, 1.9) - level) < 0.2, "\(sound.rms(0.1, 1.9)) dBFS")
        #expect(abs(sound.tone(440, 0.1, 1.9) - level) < 0.2, "\(sound.tone(440, 0.1, 1.9)) dBFS at 440 Hz")

        // The GPS track: every fix where it was, at its time.
        let groups = try await ExportMetadataTests.gpsGroups(out)
        let fixes = groups.compactMap { group in GPSFix(group).map { (group.timeRange.start, $0) } }
        try #require(fixes.count == 20, "\(fixes.count) fixes")
        for (i, (time, fix)) in fixes.enumerated() {
            #expect(abs(time.seconds - Double(i) / 10) < 0.001, "fix \(i) at \(time.seconds)")
            #expect(abs(fix.latitude - (48.8584 + 0.0001 * Double(i))) < 1e-6 && abs(fix.longitude - (2.2945 + 0.0002 * Double(i))) < 1e-6)
        }

        // The captions, as given.
        let captions = try await ExportCaptionsTests.captions(of: out)
        #expect(captions.map(\.text) == ["first", "second"])
        #expect(captions.map(\.timeRange.start.seconds) == [0.5, 1.5])
    }

    @Test("a metadata source that cannot list its samples leaves its track out of an export, in one warning")
    func aSourceThatCannotListItsSamplesIsLeftOut() async throws {
        struct OneTimeAtATime: TimedMetadataSource {
            func sample(at sourceTime: MediaTime) async throws(ReelError) -> TimedMetadataSample? { nil }
        }
        struct Provider: RenderSourceProvider {
            let clip: InMemorySource
            func videoFrameSource(for reference: SourceTrackReference) -> (any VideoFrameSource)? { clip.videoFrameSource(for: reference) }
            func timedMetadataSource(for reference: SourceTrackReference) -> (any TimedMetadataSource)? {
                clip.timedMetadataSource(for: reference).map { _ in OneTimeAtATime() }
            }
            func captionSource(for reference: SourceTrackReference) -> (any CaptionSource)? { clip.captionSource(for: reference) }
        }
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.clip()
        var composition = Composition()
        try composition.insertTimeRange(clip.timeRange, of: clip.description, at: .zero)
        composition.removeTrack(withTrackID: try #require(composition.tracks(withMediaType: .audio).first).trackID)
        let gpsTrack = try #require(composition.tracks(withMediaType: .metadata).first).trackID
        let session = AssetExportSession(composition: composition, preset: .preset640x480, sources: AssetRenderSources(inMemory: Provider(clip: clip)))
        session.metadataTrackIDs = [gpsTrack]
        let said = Lock<[String]>([])
        session.renderOptions.diagnostics = { d in said.withLock { $0.append(d.message) } }
        let out = folder.appendingPathComponent("memory.mp4")
        try await session.export(to: out, as: .mp4)
        let tracks = try await Asset(url: out).load(.tracks)
        #expect(!tracks.contains { $0.mediaType == .metadata })
        #expect(
            said.withLock { $0 }.filter { $0.contains("metadata track \(gpsTrack)") && $0.contains("cannot list them") }.count == 1, "\(said.withLock { $0 })")
    }
}
