import Foundation
import ReelCore
import ReelMetadata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `mebx` and `camm` tracks of an ``AssetWriter``'s MP4/MOV file, which FFmpeg cannot
/// write: their samples are spooled to a file beside the output while writing, and added
/// by ``MP4TrackAppender`` once FFmpeg has written the trailer. The same pass links the
/// `gpmd` tracks FFmpeg wrote to the video track (`tref`/`cdsc`).
///
/// Used by the writer thread only. The spool file is removed when this is released.
final class AppendedMetadataTracks {
    /// The formats written here rather than through FFmpeg.
    static let formats: Set<MetadataFormat> = [.mebx, .camm]
    /// Units per second of the new tracks' sample times: exact for 1/600, 1/1000 and NTSC frame times.
    static let timescale: Int32 = 90000

    private struct Track {
        let input: AssetWriterInput
        let format: MetadataFormat
        var samples: [MP4AppendedTrack.Sample] = []
    }

    private var tracks: [Int: Track]
    private let spoolURL: URL
    private var spool: FileHandle?
    private var spoolSize: Int64 = 0

    /// Whether the finished file's index goes in front of the media (faststart).
    private let moovInFront: Bool
    /// The cover picture the same pass adds to the movie's metadata keys (FFmpeg writes
    /// none into MOV, nor into an MP4 with metadata keys).
    private let artwork: MP4Artwork?

    /// The tracks for the inputs at these indexes; the spool goes beside `file`.
    init(
        inputs: [(index: Int, input: AssetWriterInput, format: MetadataFormat)], beside file: URL, moovInFront: Bool,
        artwork: MP4Artwork? = nil
    ) {
        self.moovInFront = moovInFront
        self.artwork = artwork
        var tracks: [Int: Track] = [:]
        for entry in inputs { tracks[entry.index] = Track(input: entry.input, format: entry.format) }
        self.tracks = tracks
        self.spoolURL = file.appendingPathExtension("samples")
    }

    deinit {
        try? spool?.close()
        unlink(spoolURL.path)
    }

    /// Whether the input at `index` is written here.
    func handles(_ index: Int) -> Bool { tracks[index] != nil }

    /// Spools one sample of the input at `index`, at `time` (relative to the session).
    /// A `mebx` sample starting after the previous one ended gets an empty sample
    /// before it: no value in between.
    func write(_ sample: SampleBuffer, input index: Int, at time: MediaTime) throws(ReelError) {
        guard var track = tracks[index] else { return }
        let start = time.convertScale(Self.timescale).value
        let duration = sample.duration.isNumeric ? max(0, sample.duration.convertScale(Self.timescale).value) : 0
        if track.format == .mebx, let last = track.samples.last, last.time + last.duration < start, last.duration > 0 {
            track.samples.append(try spooled([0, 0, 0, 8, 0, 0, 0, 0], time: last.time + last.duration, duration: start - last.time - last.duration))
        }
        if track.format == .mebx {
            let keys = track.input.metadataKeys
            for item in try QuickTimeMetadataSample.rawItems(sample.data) where item.localID != 0 && !keys.contains(where: { $0.localID == item.localID }) {
                throw ReelError(
                    .metadataFormat,
                    "a mebx sample uses key id \(item.localID), which is not among the input's metadata keys (give the source track's sample entry as the input's sourceFormatHint)",
                    time: time)
            }
        }
        if let last = track.samples.last, start < last.time {
            throw ReelError(.invalidArgument, "a \(track.format) sample at \(time.secondsDescription) comes before the previous one", time: time)
        }
        track.samples.append(try spooled([UInt8](sample.data), time: start, duration: duration))
        tracks[index] = track
    }

    private func spooled(_ bytes: [UInt8], time: Int64, duration: Int64) throws(ReelError) -> MP4AppendedTrack.Sample {
        do {
            if spool == nil {
                guard FileManager.default.createFile(atPath: spoolURL.path, contents: nil) else {
                    throw ReelError(.outputFailed, "cannot create the metadata sample spool", path: spoolURL.path)
                }
                spool = try FileHandle(forWritingTo: spoolURL)
            }
            try spool?.write(contentsOf: Data(bytes))
        } catch let error as ReelError {
            throw error
        } catch {
            throw ReelError(.outputFailed, "writing the metadata sample spool failed", path: spoolURL.path, underlying: error)
        }
        let sample = MP4AppendedTrack.Sample(offset: spoolSize, size: bytes.count, time: time, duration: duration)
        spoolSize += Int64(bytes.count)
        return sample
    }

    /// Adds the tracks (and the cover picture) to the finished `file`, and links its data
    /// tracks to the video, replacing it; the spool is removed.
    func finish(file: URL) throws(ReelError) {
        try? spool?.close()
        spool = nil
        let appended = tracks.keys.sorted().compactMap { index -> MP4AppendedTrack? in
            let track = tracks[index]!
            guard !track.samples.isEmpty else { return nil }
            let entry = MP4SampleEntry(format: FourCC(track.format.rawValue), metadataKeys: track.format == .mebx ? track.input.metadataKeys : [])
            let handler = track.format == .mebx ? MP4AppendedTrack.coreMediaMetadataHandlerName : "Camera Motion Metadata"
            return MP4AppendedTrack(sampleEntry: entry, handlerName: handler, timescale: UInt32(Self.timescale), samples: track.samples)
        }
        defer { unlink(spoolURL.path) }
        // The appender writes beside `file` and renames over it (AtomicFile).
        try MP4TrackAppender.write(file, adding: appended, sampleData: spoolSize > 0 ? spoolURL : nil, moovInFront: moovInFront, artwork: artwork, to: file)
    }
}
