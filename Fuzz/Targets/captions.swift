import Foundation
import ReelCaptions

/// Caption files: iTT (XMLParser and TTML times), SCC (timecodes, words, parity, the
/// CEA-608 decoder), SRT and WebVTT (timing lines, cue markup); what reads is written and
/// must read again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    for format in [CaptionFormat.itt, .scc, .srt, .webVTT] {
        guard let doc = FuzzInput.run("\(format) read", { () throws(ReelError) in try format.read(data) }) else { continue }
        _ = CaptionGroup.groups(for: doc.captions)
        for target in [CaptionFormat.itt, .scc, .srt, .webVTT] {
            guard let written = FuzzInput.run("\(target) write", { () throws(ReelError) in try target.write(doc.captions) }) else { continue }
            let again = FuzzInput.run("\(target) read of its own file", { () throws(ReelError) in try target.read(written.data) })
            FuzzInput.require(again != nil, "\(target) could not read the file it wrote from \(format)")
            if target == .srt || target == .webVTT {
                FuzzInput.require(again?.captions.count == doc.captions.count,
                                  "\(target) read back \(again?.captions.count ?? -1) of the \(doc.captions.count) captions it wrote")
            }
        }
    }
    return 0
}
