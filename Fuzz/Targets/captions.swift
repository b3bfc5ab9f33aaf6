import Foundation
import ReelCaptions

/// Caption samples of media tracks (3GPP timed text, SubRip, WebVTT, ASS, CEA-608 triplets; track headers and cue settings) and caption files: iTT (XMLParser and TTML times), SCC (timecodes, words, parity, the
/// CEA-608 decoder and encoder: pop-on, roll-up and paint-on), SRT and WebVTT (timing lines, cue markup); what reads is written and
/// must read again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    for format in ["tx3g", "subrip", "webvtt", "ass"] {
        guard let spans = FuzzInput.run("\(format) sample", { () throws(ReelError) in try CaptionSample.spans(data, format: format) }) else { continue }
        let caption = Caption(spans: spans, timeRange: FuzzInput.oneSecond)
        let again = FuzzInput.run(
            "tx3g sample Reel wrote", { () throws(ReelError) in try CaptionSample.spans(CaptionSample.movTextSample(caption), format: "tx3g") })
        FuzzInput.require(again != nil, "a tx3g sample Reel wrote from a \(format) sample did not read back")
    }
    // The bytes as a track header (an ASS script's styles, a 3GPP sample entry) and as
    // WebVTT cue settings, with a sample under them.
    for format in ["tx3g", "ass"] {
        guard let decoder = FuzzInput.run("\(format) track header", { () throws(ReelError) in try CaptionSampleDecoder(format: format, trackHeader: data) })
        else { continue }
        let sample = format == "ass" ? Data("0,0,Default,,0,0,0,,{\\an8}text".utf8) : Data([0, 4]) + Data("text".utf8)
        _ = FuzzInput.run("\(format) sample under a header", { () throws(ReelError) in try decoder.caption(sample, timeRange: FuzzInput.oneSecond) })
    }
    if let decoder = try? CaptionSampleDecoder(format: "webvtt") {
        _ = FuzzInput.run(
            "webvtt cue settings",
            { () throws(ReelError) in
                try decoder.caption(Data("text".utf8), timeRange: FuzzInput.oneSecond, cueSettings: String(decoding: data, as: UTF8.self))
            })
    }
    // The bytes as a CEA-608 track's cc_data triplets, on both fields; what reads is
    // written as SCC and must read again.
    for channel in [1, 3] {
        guard var stream = try? CEA608Stream(channel: channel) else { continue }
        stream.append(data, at: .zero)
        stream.finish(at: FuzzInput.oneSecond.end)
        let captions = stream.takeCaptions()
        guard let written = FuzzInput.run("SCC write of CEA-608", { () throws(ReelError) in try SCC.write(captions, channel: channel) }) else { continue }
        FuzzInput.require(
            FuzzInput.run("SCC read of its own file", { () throws(ReelError) in try SCC.read(written.data, channel: channel) }) != nil,
            "SCC could not read the file it wrote from a CEA-608 track")
    }
    for format in [CaptionFormat.itt, .scc, .srt, .webVTT] {
        guard let doc = FuzzInput.run("\(format) read", { () throws(ReelError) in try format.read(data) }) else { continue }
        _ = CaptionGroup.groups(for: doc.captions)
        for target in [CaptionFormat.itt, .scc, .srt, .webVTT] {
            guard let written = FuzzInput.run("\(target) write", { () throws(ReelError) in try target.write(doc.captions) }) else { continue }
            let again = FuzzInput.run("\(target) read of its own file", { () throws(ReelError) in try target.read(written.data) })
            FuzzInput.require(again != nil, "\(target) could not read the file it wrote from \(format)")
            if target == .srt || target == .webVTT {
                FuzzInput.require(
                    again?.captions.count == doc.captions.count,
                    "\(target) read back \(again?.captions.count ?? -1) of the \(doc.captions.count) captions it wrote")
            }
        }
    }
    return 0
}
