import Foundation
import ReelCore
import ReelIO
import ReelTestSupport
import Testing

@Suite("AssetWriter")
struct AssetWriterTests {

    /// A flat frame: luma `16 + 5 * index`, neutral chroma.
    static func flatFrame(_ index: Int, width: Int = 160, height: Int = 120) -> PixelBuffer {
        let buffer = PixelBuffer(width: width, height: height, format: .yuv420p)
        for plane in 0..<3 {
            buffer.withUnsafeMutableBytes(plane: plane) { _ = $0.initializeMemory(as: UInt8.self, repeating: plane == 0 ? UInt8(16 + 5 * index) : 128) }
        }
        return buffer
    }

    static func rawGroup(_ bytes: [UInt8], start: Int64, duration: Int64, format: MetadataFormat = .gpmd) -> TimedMetadataGroup {
        let range = TimeRange(start: MediaTime(value: start, timescale: 1000), duration: MediaTime(value: duration, timescale: 1000))
        return TimedMetadataGroup(
            timeRange: range,
            items: [
                MetadataItem(identifier: MetadataIdentifier(keySpace: "reel", key: "sample.\(format)"), value: .data(Data(bytes)))
            ])
    }

    static let payloads: [[UInt8]] = [Array("DEVC\0\0\0\0first".utf8), Array("DEVC\0\0\0\0second!!".utf8), Array("DEVC\0\0\0\0third".utf8)]

    /// Writes `frames` frames at 30 fps plus three 400 ms gpmd samples.
    func writeClip(to url: URL, fileType: AssetWriter.FileType, frames: Int = 30, codec: VideoEncoderSettings.Codec = .h264) async throws {
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        let video = AssetWriterInput(settings: .video(.init(codec: codec, width: 160, height: 120, preset: codec == .h264 ? "ultrafast" : nil)))
        try writer.add(video)
        var adaptor: AssetWriterInputMetadataAdaptor?
        if fileType == .mp4 || fileType == .mov {
            let gpmd = AssetWriterInput(settings: .metadata(format: .gpmd))
            try writer.add(gpmd)
            adaptor = try AssetWriterInputMetadataAdaptor(assetWriterInput: gpmd)
        }
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for i in 0..<frames {
            try await video.append(Self.flatFrame(i), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
        }
        if let adaptor {
            for (i, bytes) in Self.payloads.enumerated() {
                try await adaptor.append(Self.rawGroup(bytes, start: Int64(i) * 400, duration: 400))
            }
        }
        try await writer.finishWriting()
        #expect(writer.status == .completed)
    }

    @Test("start() starts the writer as startWriting() does, and fails as it does")
    func asyncStart() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = AssetWriterInput(settings: .video(.init(codec: .h264, width: 160, height: 120, preset: "ultrafast")))
        try writer.add(video)
        // Nothing is created before the writer starts.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        try await writer.start()
        #expect(writer.status == .writing)
        await expectReelError(.writerState) { try await writer.start() }
        writer.startSession(atSourceTime: .zero)
        for i in 0..<3 { try await video.append(Self.flatFrame(i), withPresentationTime: MediaTime(value: Int64(i), timescale: 30)) }
        try await writer.finishWriting()
        #expect(writer.status == .completed)
        #expect(try await AssetReader.open(url: url).tracks(withMediaType: .video).count == 1)

        let failing = try AssetWriter(outputURL: folder.appendingPathComponent("bad.mp4"), fileType: .mp4)
        try failing.add(AssetWriterInput(settings: .video(.init(codec: .h264, width: 160, height: 120, preset: "no-such-preset"))))
        let error = await expectReelError(.encoderFailed) { try await failing.start() }
        #expect(error?.path == folder.appendingPathComponent("bad.mp4").path)
        #expect(failing.status == .failed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.mp4"])
    }

    @Test("a video input's start timecode becomes a timecode track timing it, in MP4 and MOV", arguments: [AssetWriter.FileType.mp4, .mov])
    func startTimecode(fileType: AssetWriter.FileType) async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.\(fileType == .mov ? "mov" : "mp4")")
        let writer = try AssetWriter(outputURL: url, fileType: fileType)
        let video = AssetWriterInput(
            settings: .video(
                .init(
                    codec: .h264, width: 160, height: 120, preset: "ultrafast",
                    frameDuration: MediaTime(value: 1001, timescale: 30000))))
        let start = try #require(Timecode("10:59:59;28"))
        video.startTimecode = start
        try writer.add(video)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for i in 0..<3 { try await video.append(Self.flatFrame(i), withPresentationTime: MediaTime(value: Int64(i) * 1001, timescale: 30000)) }
        try await writer.finishWriting()
        let tracks = try await Asset(url: url).load(.tracks)
        #expect(tracks.map(\.mediaType) == [.video, .timecode])
        #expect(tracks.first?.startTimecode == start)
        #expect(try await tracks[0].loadAssociatedTracks(ofType: .timecode).map(\.trackID) == [tracks[1].trackID])
    }

    @Test("a start timecode on an audio input is refused before anything is written")
    func startTimecodeOnAudio() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try AssetWriter(outputURL: folder.appendingPathComponent("out.mp4"), fileType: .mp4)
        let audio = AssetWriterInput(settings: .audio(AudioEncoderSettings(sampleRate: 48000, channelCount: 1)))
        audio.startTimecode = Timecode(hours: 1, minutes: 0, seconds: 0, frames: 0)
        try writer.add(audio)
        let error = await expectReelError(.invalidArgument) { try await writer.start() }
        #expect(error?.message.contains("video input") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("round trip: frames and a gpmd track come back from the reader", arguments: [AssetWriter.FileType.mp4, .mov])
    func roundTrip(fileType: AssetWriter.FileType) async throws {
        let folder = try TestFiles.scratchFolder()
        let url = folder.appendingPathComponent("out.\(fileType.rawValue)")
        try await writeClip(to: url, fileType: fileType)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.\(fileType.rawValue)"])

        let reader = try await AssetReader.open(url: url)
        let videoTrack = try #require(reader.tracks(withMediaType: .video).first)
        let gpmdTrack = try #require(reader.tracks(withMediaType: .metadata).first)
        #expect(gpmdTrack.metadataFormat == .gpmd)
        let video = AssetReaderTrackOutput(trackID: videoTrack.trackID, settings: .video(pixelFormat: .yuv420p))
        let metadata = AssetReaderTrackOutput(trackID: gpmdTrack.trackID, settings: .passthrough)
        try reader.add(video)
        try reader.add(metadata)
        try reader.startReading()
        var frames: [VideoFrame] = []
        for try await frame in video.frames { frames.append(frame) }
        #expect(frames.count == 30)
        for (i, frame) in frames.enumerated() {
            #expect(frame.presentationTime == MediaTime(value: Int64(i), timescale: 30))
            let luma = frame.pixelBuffer.withUnsafeBytes(plane: 0) { Int($0[60 * frame.pixelBuffer.bytesPerRow[0] + 80]) }
            #expect(abs(luma - (16 + 5 * i)) <= 2, "frame \(i) luma \(luma)")
        }
        var samples: [SampleBuffer] = []
        for try await sample in metadata { if let s = sample.sampleBuffer { samples.append(s) } }
        #expect(samples.map { Array($0.data) } == Self.payloads)
        #expect(samples.map(\.presentationTime) == [0, 400, 800].map { MediaTime(value: $0, timescale: 1000) })
        #expect(samples.allSatisfy { $0.duration == MediaTime(value: 400, timescale: 1000) && $0.format == "gpmd" })
    }

    @Test("ffprobe sees a gpmd data stream named GoPro MET", .requires(.ffprobe))
    func ffprobeSeesGPMD() async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("probe.mp4")
        try await writeClip(to: url, fileType: .mp4)
        let json = try TestTools.outputString(
            try #require(TestTools.which("ffprobe")?.path),
            ["-v", "error", "-show_streams", "-of", "json", url.path])
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let streams = try #require(object?["streams"] as? [[String: Any]])
        let data = try #require(streams.first { $0["codec_type"] as? String == "data" })
        #expect(data["codec_tag_string"] as? String == "gpmd")
        #expect(data["time_base"] as? String == "1/1000")
        #expect((data["tags"] as? [String: Any])?["handler_name"] as? String == "GoPro MET")
        #expect(data["nb_frames"] as? String == "3")
    }

    @Test("other codecs: ProRes, FFV1 and HEVC into MOV", arguments: [VideoEncoderSettings.Codec.proRes(.standard), .ffv1, .hevc])
    func otherCodecs(codec: VideoEncoderSettings.Codec) async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("codec.mov")
        try await writeClip(to: url, fileType: .mov, frames: 5, codec: codec)
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(
            trackID: try #require(reader.tracks(withMediaType: .video).first).trackID,
            settings: .video(pixelFormat: .gray8))
        try reader.add(output)
        try reader.startReading()
        var lumas: [Int] = []
        for try await sample in output {
            if let f = sample.videoFrame { lumas.append(f.pixelBuffer.withUnsafeBytes(plane: 0) { Int($0[10]) }) }
        }
        #expect(lumas.count == 5)
        #expect(zip(lumas, 0...).allSatisfy { abs($0 - (16 + 5 * $1)) <= 2 }, "\(lumas)")
    }

    @Test(
        "HEVC into MP4 and MOV is hvc1, the sample entry Apple's players take: parameter sets in it, none in the samples",
        .requires(.ffprobe, .hevcEncoder), arguments: [AssetWriter.FileType.mp4, .mov])
    func hevcIsHVC1(fileType: AssetWriter.FileType) async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent(fileType == .mp4 ? "hevc.mp4" : "hevc.mov")
        try await writeClip(to: url, fileType: fileType, frames: 5, codec: .hevc)
        let tag = try TestTools.outputString(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string", "-of", "default=nw=1:nk=1", url.path])
        #expect(tag.trimmingCharacters(in: .whitespacesAndNewlines) == "hvc1")
        let reader = try await AssetReader.open(url: url)
        let track = try #require(reader.tracks(withMediaType: .video).first)
        let packets = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough)
        try reader.add(packets)
        try reader.startReading()
        var nalTypes: Set<UInt8> = []
        var count = 0
        for try await sample in packets {
            guard let bytes = sample.sampleBuffer?.data else { continue }
            count += 1
            // Length-prefixed NAL units (4-byte lengths); the type is bits 1 to 6 of the first byte.
            var at = bytes.startIndex
            while at + 4 < bytes.endIndex {
                let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
                nalTypes.insert((bytes[at + 4] >> 1) & 0x3F)
                at += 4 + length
            }
        }
        #expect(count == 5)
        #expect(!nalTypes.isEmpty)
        #expect(nalTypes.isDisjoint(with: [32, 33, 34]), "VPS, SPS or PPS in the samples: \(nalTypes.sorted())")
    }

    @Test("KLV goes into MPEG-TS and reads back")
    func klvIntoTransportStream() async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("klv.ts")
        let writer = try AssetWriter(outputURL: url, fileType: .mpegts)
        let video = AssetWriterInput(settings: .video(.init(codec: .h264, width: 160, height: 120, preset: "ultrafast")))
        let klv = AssetWriterInput(settings: .metadata(format: .klv))
        try writer.add(video)
        try writer.add(klv)
        let adaptor = try AssetWriterInputMetadataAdaptor(assetWriterInput: klv)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        let key: [UInt8] = [0x06, 0x0E, 0x2B, 0x34, 0x02, 0x0B, 0x01, 0x01, 0x0E, 0x01, 0x03, 0x01, 0x01, 0x00, 0x00, 0x00]
        for i in 0..<10 {
            try await video.append(Self.flatFrame(i), withPresentationTime: MediaTime(value: Int64(i), timescale: 30))
            if i % 3 == 0 {
                try await adaptor.append(Self.rawGroup(key + [0x03, 0x02, 0x01, UInt8(i)], start: Int64(i) * 1000 / 30, duration: 33, format: .klv))
            }
        }
        try await writer.finishWriting()
        let reader = try await AssetReader.open(url: url)
        let track = try #require(reader.tracks(withMediaType: .metadata).first)
        #expect(track.metadataFormat == .klv)
        let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .passthrough)
        try reader.add(output)
        try reader.startReading()
        var samples: [SampleBuffer] = []
        for try await sample in output { if let s = sample.sampleBuffer { samples.append(s) } }
        #expect(samples.count == 4)
        #expect(samples.map { $0.data.last } == [0, 3, 6, 9])
    }

    /// Writes one second of a 440 Hz tone, amplitude 0.5, as AAC.
    func writeTone(to url: URL) async throws {
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let audio = AssetWriterInput(settings: .audio(.init(sampleRate: 48000, channelCount: 2)))
        try writer.add(audio)
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        for chunk in 0..<10 {
            var samples: [Float] = []
            for i in 0..<4800 {
                let v = Float(sin(Double(chunk * 4800 + i) * 2 * .pi * 440 / 48000) * 0.5)
                samples += [v, v]
            }
            try await audio.append(
                DecodedAudio(
                    samples: samples, channelCount: 2, sampleRate: 48000,
                    presentationTime: MediaTime(value: Int64(chunk * 4800), timescale: 48000)))
        }
        try await writer.finishWriting()
    }

    /// The sample frames and the peak of a file's audio track.
    func readTone(_ url: URL) async throws -> (frames: Int, peak: Float) {
        let reader = try await AssetReader.open(url: url)
        let output = AssetReaderTrackOutput(trackID: try #require(reader.tracks(withMediaType: .audio).first).trackID, settings: .audioPCM)
        try reader.add(output)
        try reader.startReading()
        var frames = 0
        var peak: Float = 0
        for try await sample in output {
            guard let a = sample.audio else { continue }
            frames += a.frameCount
            peak = max(peak, a.samples.map(abs).max() ?? 0)
        }
        return (frames, peak)
    }

    @Test(".m4a files are MPEG-4 audio: brand M4A, audio alone", .requires(.ffprobe, .exiftool))
    func m4aFilesHaveTheAudioBrand() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("tone.m4a")
        try await writeTone(to: url)
        let brand = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "format_tags=major_brand,compatible_brands",
                "-of", "default=nw=1", url.path,
            ])
        #expect(brand.contains("TAG:major_brand=M4A "), "\(brand)")
        #expect(brand.contains("M4A") && brand.contains("isom"), "\(brand)")
        let type = try TestTools.outputString("exiftool", ["-s3", "-FileType", "-MIMEType", url.path])
        #expect(type == "M4A\naudio/mp4\n", "\(type)")
        #expect(try await readTone(url).frames >= 48000)
        // The same file as .mp4 keeps the MPEG-4 brand.
        let mp4 = folder.appendingPathComponent("tone.mp4")
        try await writeTone(to: mp4)
        #expect(
            try TestTools.outputString("ffprobe", ["-v", "error", "-show_entries", "format_tags=major_brand", "-of", "default=nw=1", mp4.path])
                == "TAG:major_brand=isom\n")
    }

    @Test func m4aFilesTakeNoVideo() throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try AssetWriter(outputURL: folder.appendingPathComponent("out.m4a"), fileType: .mp4)
        #expect(writer.isAudioOnlyMPEG4)
        let video = AssetWriterInput(settings: .video(.init(codec: .h264, width: 64, height: 48)))
        #expect(!writer.canAdd(video))
        let error = expectReelError(.invalidArgument) { try writer.add(video) }
        #expect(error?.message.contains(".m4a file holds audio only") == true)
        #expect(writer.canAdd(AssetWriterInput(settings: .audio(.init(sampleRate: 48000, channelCount: 2)))))
        #expect(try !AssetWriter(outputURL: folder.appendingPathComponent("out.M4V"), fileType: .mp4).isAudioOnlyMPEG4)
    }

    /// FFmpeg's mov muxer writes CEA-608 (`eia_608`) as `c608` in MOV; MP4 has no tag for it.
    @Test("a CEA-608 track is copied into MOV only", .requires(.ffmpeg))
    func cea608PassthroughGoesIntoMOV() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scc = folder.appendingPathComponent("in.scc")
        try Data("Scenario_SCC V1.0\n\n00:00:00;15\t94ae 94ae 9420 9420 c8c9 942f 942f\n\n00:00:01;00\t8080\n\n".utf8).write(to: scc)
        let mov = folder.appendingPathComponent("c608.mov")
        try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x64:d=2:r=10", "-i", scc.path,
                "-map", "0", "-map", "1", "-c:v", "mpeg4", "-c:s", "copy", mov.path,
            ])
        let reader = try await AssetReader.open(url: mov)
        let description = try #require(reader.tracks.first { $0.formatDescription.codecName == "eia_608" }?.formatDescription)
        let intoMOV = try AssetWriter(outputURL: folder.appendingPathComponent("out.mov"), fileType: .mov)
        #expect(intoMOV.canAdd(AssetWriterInput(settings: .passthrough(description))))
        let intoMP4 = try AssetWriter(outputURL: folder.appendingPathComponent("out.mp4"), fileType: .mp4)
        let error = expectReelError(.invalidArgument) { try intoMP4.add(AssetWriterInput(settings: .passthrough(description))) }
        #expect(error?.message.contains("eia_608") == true)
    }

    @Test("AAC audio encodes and reads back")
    func aacRoundTrip() async throws {
        let url = try TestFiles.scratchFolder().appendingPathComponent("tone.mp4")
        try await writeTone(to: url)
        let (frames, peak) = try await readTone(url)
        #expect(frames >= 47_000 && frames <= 50_200, "\(frames) frames")
        #expect(peak > 0.4 && peak < 0.6)
    }

    @Test("audio packets pass through from a reader into another container")
    func audioPassthrough() async throws {
        let folder = try TestFiles.scratchFolder()
        let source = folder.appendingPathComponent("tone.mp4")
        try await writeTone(to: source)
        let reader = try await AssetReader.open(url: source)
        let output = AssetReaderTrackOutput(trackID: try #require(reader.tracks(withMediaType: .audio).first).trackID, settings: .passthrough)
        try reader.add(output)
        let copy = folder.appendingPathComponent("copy.mov")
        let writer = try AssetWriter(outputURL: copy, fileType: .mov)
        let input = AssetWriterInput(settings: .passthrough(try #require(output.formatDescription)))
        try writer.add(input)
        try reader.startReading()
        try await writer.start()
        writer.startSession(atSourceTime: .zero)
        var packets = 0
        for try await sample in output {
            guard let s = sample.sampleBuffer, !(s.presentationTime < .zero) else { continue }
            try await input.append(s)
            packets += 1
        }
        try await writer.finishWriting()
        #expect(packets >= 46)
        let (frames, peak) = try await readTone(copy)
        #expect(frames >= 46_000 && frames <= 50_200, "\(frames) frames")
        #expect(peak > 0.4 && peak < 0.6)
    }
}
