import Foundation
import ReelMetadata

/// Reading every part of an MP4 file, shared by the `mp4` and `mp4-append` targets.
enum MP4Fuzzing {
    /// The largest sample table laid out. Reel lays out the samples of metadata tracks only,
    /// but a legal table of constant-size samples (PCM audio has one per audio frame) can
    /// claim millions in a few bytes: 6.5 million took seconds under AddressSanitizer and
    /// hit libFuzzer's 10 s timeout on a loaded machine. The ceiling `samples()` keeps
    /// (``MP4SampleTable/maximumSampleCount``) is unit-tested.
    static let sampleCountLaidOut: UInt32 = 1 << 18

    /// The track's samples, when it has no more than ``sampleCountLaidOut``.
    static func samples(of track: MP4Track, _ what: String) -> [MP4Sample]? {
        guard track.sampleTable.sampleCount <= sampleCountLaidOut else { return nil }
        return FuzzInput.run(what, { () throws(ReelError) in try track.samples() })
    }

    /// Reads everything `file` offers; returns its tracks when they parse.
    @discardableResult
    static func exercise(_ file: MP4File) -> [MP4Track]? {
        _ = FuzzInput.run("MP4File.topLevelBoxes", { () throws(ReelError) in try file.topLevelBoxes() })
        guard let tracks = FuzzInput.run("MP4File.tracks", { () throws(ReelError) in try file.tracks() }) else { return nil }
        // Edit lists as segments: each edit's target starts where the one before ended.
        if let movieTimescale = FuzzInput.run("MP4File.movieTimescale", { () throws(ReelError) in try file.movieTimescale() }) {
            for track in tracks {
                let mappings = track.timeMappings(movieTimescale: movieTimescale)
                for (a, b) in zip(mappings, mappings.dropFirst()) {
                    FuzzInput.require(a.target.end == b.target.start, "segment \(b) does not start where \(a) ends")
                }
            }
        }
        for track in tracks {
            guard let samples = samples(of: track, "MP4Track.samples") else { continue }
            FuzzInput.require(samples.count == Int(track.sampleTable.sampleCount), "samples() gave \(samples.count) of \(track.sampleTable.sampleCount)")
            for sample in samples.prefix(4) {
                guard let bytes = FuzzInput.run("MP4File.data(of:)", { () throws(ReelError) in try file.data(of: sample) }) else { continue }
                FuzzInput.require(bytes.count == sample.size, "data(of:) gave \(bytes.count) of \(sample.size) bytes")
                switch track.format {
                case "mebx":
                    let keys = track.sampleEntries.first?.metadataKeys ?? []
                    _ = FuzzInput.run(
                        "mebx sample",
                        { () throws(ReelError) in
                            try QuickTimeMetadataSample.items(sample: bytes, keys: keys, timeRange: sample.timeRange)
                        })
                case "camm":
                    _ = FuzzInput.run("camm sample", { () throws(ReelError) in try CAMM.records(sample: bytes) })
                case "gpmd":
                    _ = FuzzInput.run("gpmd sample", { () throws(ReelError) in try GPMF.series(payload: bytes) })
                default:
                    break
                }
            }
        }
        return tracks
    }
}
