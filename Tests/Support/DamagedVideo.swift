import Foundation

/// Video packets damaged in place, as a failing disk or a cut-off copy damages them: the
/// NAL length at the start of a packet overwritten so that it runs past the packet's end.
/// FFmpeg's H.264 decoder refuses such a packet (`AVERROR_INVALIDDATA`).
public enum DamagedVideo {
    /// Damages `count` packets of the first video stream of the file at `url`, the first
    /// ones in decode order shown at `seconds` or later that are not keyframes; returns
    /// their presentation times in seconds.
    @discardableResult
    public static func damage(_ url: URL, packetsAtOrAfter seconds: Double, count: Int = 1) throws -> [Double] {
        let rows = try TestTools.outputString(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,pos,flags",
                "-of", "csv=p=0", url.path,
            ]
        ).split(separator: "\n")
        var bytes = [UInt8](try Data(contentsOf: url))
        var times: [Double] = []
        for row in rows where times.count < count {
            let fields = row.split(separator: ",").map(String.init)
            guard fields.count >= 3, let time = Double(fields[0]), let pos = Int(fields[1]), time >= seconds, !fields[2].contains("K") else { continue }
            bytes.replaceSubrange(pos..<(pos + 4), with: [0x7F, 0xFF, 0xFF, 0xFF])
            times.append(time)
        }
        guard times.count == count else {
            throw TestTools.ToolFailed(description: "\(url.lastPathComponent) has \(times.count) packets to damage after \(seconds) s, not \(count)")
        }
        try Data(bytes).write(to: url)
        return times
    }
}
