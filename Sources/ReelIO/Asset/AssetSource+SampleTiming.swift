internal import CFFmpeg
import ReelCore

extension AssetSource {
    /// The presentation time of the sample of stream `streamIndex` shown at `time`: seeks
    /// to the keyframe at or before it and reads that stream's packets (the others are
    /// discarded by the demuxer) until their decode times pass `time`. Call on the I/O queue.
    func samplePresentationTime(
        streamIndex: Int, trackID: Int32, timeBase: (num: Int32, den: Int32),
        at time: MediaTime
    ) throws(ReelError) -> MediaTime {
        let context = try open()
        guard streamIndex < context.streamCount else {
            throw ReelError(.invalidArgument, "the file has no such track", path: NetworkInput.location(url), trackID: trackID)
        }
        for i in 0..<context.streamCount where i != streamIndex {
            context.stream(i).pointee.discard = AVDISCARD_ALL
        }
        let tb = AVRational(num: timeBase.num, den: timeBase.den)
        guard let target = time.ffmpegTimestamp(in: tb, method: .roundTowardNegativeInfinity) else {
            throw ReelError(.invalidArgument, "the track time is not a number", path: NetworkInput.location(url), trackID: trackID, time: time)
        }
        // A failed seek (no index) reads from the start instead.
        try? context.seek(streamIndex: Int32(streamIndex), timestamp: target)
        let packet = Packet()
        let nopts = reel_nopts_value()
        var best: Int64? = nil
        var first: Int64? = nil
        while try context.readPacket(into: packet) {
            defer { packet.unref() }
            guard Int(packet.streamIndex) == streamIndex else { continue }
            let pts = packet.pts
            if pts != nopts {
                first = min(first ?? pts, pts)
                if pts <= target { best = max(best ?? pts, pts) }
            }
            // Later packets decode after this one, so they present no earlier than its dts.
            let dts = packet.dts != nopts ? packet.dts : pts
            if dts != nopts && dts > target && best != nil { break }
        }
        guard let found = best ?? first else {
            throw ReelError(.corruptData, "the track has no timed samples", path: NetworkInput.location(url), trackID: trackID, time: time)
        }
        return MediaTime(ffmpeg: found, timeBase: tb)
    }
}
