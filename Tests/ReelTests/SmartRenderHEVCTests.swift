import Foundation
import ReelCore
import ReelDocuments
import ReelIO
import ReelTestSupport
import Testing

@testable import Reel

/// Smart render of HEVC cuts: clips made here by x265 with open groups of pictures (each
/// keyframe a CRA picture whose leading B-frames refer to the group before), cut and
/// joined as the H.264 suite's are, rendered smart, in full and losslessly.
@Suite("SmartRenderHEVC", .requires(.ffmpeg, .ffprobe, .hevcEncoder))
struct SmartRenderHEVCTests {
    typealias Cut = SmartRenderTests.Cut
    static let fps = SmartRenderTests.fps
    static let cuts = SmartRenderTests.cuts

    /// x265 with B-frames and an open group of pictures every 2 s.
    static func x265(openGOP: Bool = true, pixelFormat: String = "yuv420p") -> [String] {
        [
            "-c:v", "libx265", "-preset", "veryfast", "-crf", "20", "-pix_fmt", pixelFormat,
            "-x265-params", "log-level=error:keyint=60:min-keyint=60:scenecut=0:bframes=3:open-gop=\(openGOP ? 1 : 0)",
        ]
    }

    static let renders = Task { () throws -> SmartRenderTests.Renders in
        let folder = try TestFiles.scratchFolder()
        for (name, source) in [("a", "testsrc2"), ("b", "testsrc"), ("c", "rgbtestsrc")] {
            _ = try SmartRenderTests.makeClip(name, source: source, in: folder, codec: x265())
        }
        let composition = folder.appendingPathComponent("cuts.json")
        try SmartRenderTests.compositionJSON(cuts, video: "{\"codec\": \"hevc\", \"crf\": 18}").write(to: composition, atomically: true, encoding: .utf8)
        let lossless = folder.appendingPathComponent("lossless.json")
        try SmartRenderTests.compositionJSON(cuts, video: "{\"codec\": \"ffv1\"}").write(to: lossless, atomically: true, encoding: .utf8)
        let smart = folder.appendingPathComponent("smart.mp4"), full = folder.appendingPathComponent("full.mp4")
        let reference = folder.appendingPathComponent("reference.mkv")
        let (session, diagnostics) = try await SmartRenderTests.render(composition, to: smart, smart: .auto)
        _ = try await SmartRenderTests.render(composition, to: full, smart: .off)
        _ = try await SmartRenderTests.render(lossless, to: reference, smart: .off)
        let summary = try #require(session.smartRenderSummary)
        return SmartRenderTests.Renders(folder: folder, smart: smart, full: full, reference: reference, summary: summary, diagnostics: diagnostics)
    }

    /// `sample`'s NAL units (4-byte lengths) but parameter sets: what a smart render puts
    /// before the first packet of each stretch.
    static func pictureUnits(_ sample: Data) -> Data {
        let b = [UInt8](sample)
        var out: [UInt8] = []
        var i = 0
        while i + 4 <= b.count {
            let n = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard n > 0, i + 4 + n <= b.count else { return Data(b) }
            let type = b[i + 4] >> 1 & 0x3F
            if ![32, 33, 34].contains(type) { out += b[i..<(i + 4 + n)] }
            i += 4 + n
        }
        return Data(out)
    }

    @Test func theSourcesHaveLeadingPicturesThatReferToTheGroupBefore() async throws {
        let r = try await Self.renders.value
        let samples = try await SmartRenderTests.samples(r.folder.appendingPathComponent("b.mp4"), .video)
        let leading = samples.filter { HEVCNAL.picture(in: $0.1, lengthSize: 4).isSkippedLeading }
        let points = samples.filter { HEVCNAL.picture(in: $0.1, lengthSize: 4).isRandomAccessPoint }
        #expect(leading.count > 0, "x265 wrote no RASL picture: the open groups of pictures are not tested")
        #expect(points.count == 3)
    }

    @Test func copiesWholeGroupsAndEncodesTheCutsAndTheLeadingPicturesAfterThem() async throws {
        let r = try await Self.renders.value
        #expect(r.summary.fallbackReason == nil, "\(r.summary.lines)")
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        let total = Self.cuts.reduce(0) { $0 + Int(($1.duration * Double(Self.fps)).rounded()) }
        #expect(r.summary.copiedFrameCount + r.summary.encodedFrameCount == total)
        // Each cut longer than a group of pictures and a half holds a copied stretch.
        #expect(r.summary.stretches.filter(\.isCopied).count == Self.cuts.count, "\(r.summary.lines)")
        #expect(r.summary.copiedFrameCount > total / 3, "\(r.summary.lines)")
        #expect(r.summary.stretches.contains { !$0.isCopied && $0.reason.contains("leading pictures") }, "\(r.summary.lines)")
    }

    @Test func frameCountAndEveryFrameTimeEqualAFullRender() async throws {
        let r = try await Self.renders.value
        let smart = try SmartRenderTests.frameTimes(r.smart), full = try SmartRenderTests.frameTimes(r.full)
        #expect(smart.count == full.count)
        #expect(smart.count == r.summary.copiedFrameCount + r.summary.encodedFrameCount)
        #expect(zip(smart, full).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test func decodesWithNoMessage() async throws {
        let r = try await Self.renders.value
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-i", r.smart.path, "-f", "null", "-"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "\(run.stderr.prefix(600))")
    }

    @Test func theTrackIsHev1AndEveryStretchCarriesItsParameterSets() async throws {
        let r = try await Self.renders.value
        let tag = try TestTools.outputString(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0", r.smart.path])
        #expect(tag.trimmingCharacters(in: .whitespacesAndNewlines) == "hev1")
        let samples = try await SmartRenderTests.sampleBuffers(r.smart, .video)
        let carrying = samples.filter { Self.pictureUnits($0.data).count < $0.data.count }
        // The first sample of each stretch, and no other, starts with parameter sets.
        #expect(carrying.count == r.summary.stretches.count, "\(carrying.count) samples for \(r.summary.stretches.count) stretches")
    }

    @Test func copiedPacketsAreTheSourcesBitForBit() async throws {
        let r = try await Self.renders.value
        let output = try await SmartRenderTests.samples(r.smart, .video)
        var sources: [String: [(MediaTime, Data)]] = [:]
        for cut in Self.cuts where sources[cut.source] == nil {
            sources[cut.source] = try await SmartRenderTests.samples(r.folder.appendingPathComponent("\(cut.source).mp4"), .video)
        }
        var compared = 0, relabelled = 0
        var cutStart = 0.0
        for cut in Self.cuts {
            for stretch in r.summary.stretches where stretch.isCopied {
                let t = stretch.timeRange.start.seconds
                guard t >= cutStart - 1e-9, t < cutStart + cut.duration - 1e-9 else { continue }
                for (time, data) in output where stretch.timeRange.containsTime(time) {
                    let sourceTime = time.seconds - cutStart + cut.start
                    let source = try #require(sources[cut.source]?.first { abs($0.0.seconds - sourceTime) < 1e-6 }?.1)
                    let copied = Self.pictureUnits(data)
                    compared += 1
                    if copied == source { continue }
                    // A CRA picture a copy starts at is marked BLA: one byte of each of its NAL
                    // unit headers, nothing else.
                    #expect(
                        time == stretch.timeRange.start && copied == HEVCNAL.markingCleanRandomAccessAsBrokenLink(source)
                            && copied.count == source.count,
                        "packet at \(time.seconds) s is not \(cut.source)'s at \(sourceTime) s")
                    relabelled += 1
                }
            }
            cutStart += cut.duration
        }
        #expect(compared == r.summary.copiedFrameCount)
        #expect(compared > 0)
        #expect(relabelled == r.summary.stretches.filter(\.isCopied).count)
    }

    @Test func copiedFramesDecodeToTheCompositionsFramesAndEncodedOnesAreClose() async throws {
        let r = try await Self.renders.value
        let smart = try SmartRenderTests.frameHashes(r.smart), reference = try SmartRenderTests.frameHashes(r.reference)
        let copied = SmartRenderTests.frameIsCopied(r.summary)
        try #require(smart.count == reference.count && smart.count == copied.count)
        let differing = (0..<smart.count).filter { copied[$0] && smart[$0] != reference[$0] }
        #expect(differing.isEmpty, "copied frames \(differing.prefix(10)) differ from the composition's")

        let values = try SmartRenderTests.psnr(of: r.smart, against: r.reference, log: r.folder.appendingPathComponent("psnr.log"))
        try #require(values.count == copied.count)
        let encoded = values.indices.filter { !copied[$0] }.map { values[$0] }
        try #require(!encoded.isEmpty)
        let average = encoded.reduce(0, +) / Double(encoded.count), worst = encoded.min() ?? 0
        print("HEVC smart render PSNR of \(encoded.count) encoded frames: average \(average) dB, worst \(worst) dB")
        #expect(average >= 42, "average \(average) dB")
        #expect(worst >= 38, "worst \(worst) dB")
    }

    @Test func aClosedGroupSourceIsCopiedFromItsIDRPictures() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try SmartRenderTests.makeClip("a", source: "testsrc2", in: folder, codec: Self.x265(openGOP: false))
        let composition = folder.appendingPathComponent("cut.json")
        try SmartRenderTests.compositionJSON([Cut(source: "a", start: 1, duration: 4)], video: "{\"codec\": \"hevc\", \"crf\": 18}")
            .write(to: composition, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("out.mp4")
        let (session, diagnostics) = try await SmartRenderTests.render(composition, to: output, smart: .auto)
        let summary = try #require(session.smartRenderSummary)
        #expect(summary.fallbackReason == nil && diagnostics.isEmpty, "\(summary.lines) \(diagnostics)")
        // Frames 30 to 149 of the clip: the group of pictures of frames 60 to 119 is whole.
        #expect(summary.copiedFrameCount == 60, "\(summary.lines)")
        #expect(!summary.stretches.contains { $0.reason.contains("leading pictures") }, "\(summary.lines)")
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-i", output.path, "-f", "null", "-"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr.prefix(600))")
        #expect(try SmartRenderTests.frameTimes(output).count == 4 * Self.fps)
    }

    /// A 10-bit (Main 10) HDR source with open groups: its whole group copied, the rest
    /// coded in 10 bits and tagged as the source is (BT.2020, PQ), one stream that decodes
    /// with no message.
    @Test func aTenBitSourceIsCopiedAndItsStretchesCodedInTenBits() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hdr = ["-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc"]
        let clip = try SmartRenderTests.makeClip("a", source: "testsrc2", in: folder, codec: Self.x265(pixelFormat: "yuv420p10le") + hdr)
        let cut = [Cut(source: "a", start: 1, duration: 4)]
        let composition = folder.appendingPathComponent("cut.json")
        try SmartRenderTests.compositionJSON(cut, video: "{\"codec\": \"hevc\", \"crf\": 18}").write(to: composition, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("out.mp4")
        let (session, diagnostics) = try await SmartRenderTests.render(composition, to: output, smart: .auto)
        let summary = try #require(session.smartRenderSummary)
        #expect(summary.fallbackReason == nil && diagnostics.isEmpty, "\(summary.lines) \(diagnostics)")
        // Frames 30 to 149 of the clip: the group of frames 60 to 119 is whole (its leading
        // pictures, which refer to the group before the cut, encoded).
        #expect(summary.copiedFrameCount > 50 && summary.copiedFrameCount <= 60, "\(summary.lines)")
        try SmartRenderTests.expectTenBitStream(output, frames: 4 * Self.fps, profile: "Main 10")
        // Every frame, copied or encoded, says the source's colour.
        let colours = try TestTools.outputString(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=color_primaries,color_transfer,color_space", "-of", "csv=p=0", output.path])
        let tags = Set(colours.split(separator: "\n").map { $0.split(separator: ",").prefix(3).joined(separator: ",") })
        #expect(tags == ["bt2020nc,bt2020,smpte2084"], "\(tags)")
        // The copied packets are the source's, bit for bit (the first of a stretch carries
        // the parameter sets before its picture, and its CRA picture is marked BLA).
        let source = try await SmartRenderTests.samples(clip, .video).map { Self.pictureUnits($0.1) }
        let copyable = Set(source + source.map(HEVCNAL.markingCleanRandomAccessAsBrokenLink))
        let copied = try await SmartRenderTests.samples(output, .video).filter { copyable.contains(Self.pictureUnits($0.1)) }
        #expect(copied.count == summary.copiedFrameCount)
        // The encoded frames against the composition's: the source's frames 30 to 149 (a
        // full render would convert them into the output's own matrix).
        let log = folder.appendingPathComponent("psnr.log")
        _ = try TestTools.output(
            "ffmpeg",
            [
                "-v", "error", "-i", output.path, "-i", clip.path, "-lavfi",
                "[0:v]setpts=N/(\(Self.fps)*TB)[a];[1:v]trim=start_frame=30:end_frame=150,setpts=N/(\(Self.fps)*TB)[b];[a][b]psnr=stats_file=\(log.path)",
                "-f", "null", "-",
            ])
        let values = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { line -> Double in
            let field = line.split(separator: " ").first { $0.hasPrefix("psnr_avg:") }?.dropFirst("psnr_avg:".count) ?? ""
            return field == "inf" ? 100 : Double(field) ?? 0
        }
        let copiedFlags = SmartRenderTests.frameIsCopied(summary)
        try #require(values.count == 4 * Self.fps && copiedFlags.count == values.count)
        #expect(zip(values, copiedFlags).allSatisfy { !$0.1 || $0.0 == 100 }, "a copied frame differs from the source's")
        let encoded = zip(values, copiedFlags).filter { !$0.1 }.map(\.0)
        try #require(!encoded.isEmpty)
        let average = encoded.reduce(0, +) / Double(encoded.count)
        #expect(average >= 42 && (encoded.min() ?? 0) >= 38, "average \(average) dB, worst \(encoded.min() ?? 0) dB")
    }

    @Test func aFourTwoTwoSourceRendersEveryFrameSayingWhyOnce() async throws {
        let folder = try TestFiles.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try SmartRenderTests.makeClip("a", source: "testsrc2", in: folder, codec: Self.x265(pixelFormat: "yuv422p10le"))
        let composition = folder.appendingPathComponent("cut.json")
        try SmartRenderTests.compositionJSON([Cut(source: "a", start: 1, duration: 4)], video: "{\"codec\": \"hevc\", \"crf\": 18}")
            .write(to: composition, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("out.mp4")
        let (session, diagnostics) = try await SmartRenderTests.render(composition, to: output, smart: .auto)
        let reason = try #require(session.smartRenderSummary?.fallbackReason)
        #expect(reason.contains("a.mp4") && reason.contains("chroma format 2"), "\(reason)")
        #expect(diagnostics.count == 1 && diagnostics.first?.contains(reason) == true, "\(diagnostics)")
        #expect(try SmartRenderTests.frameTimes(output).count == 4 * Self.fps)
    }
}
