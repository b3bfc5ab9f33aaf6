internal import CFFmpeg
import Foundation
import ReelCore
import ReelMetadata

/// One media file as the whole process sees it: the demuxers opened on it and its MP4 box
/// tree, shared by every ``Asset``, ``AssetReader`` and render source that reads it.
///
/// Opening a file (`avformat_open_input` + `avformat_find_stream_info`) reads and parses
/// its header, and for an MP4 the whole `moov`; a render, a seek or an image generator used
/// to pay for that at every reader it made. Here a demuxer that a reader or a probe is done
/// with goes back to the file's pool, rewound to the start with every stream enabled, and
/// the next one that asks takes it instead of opening the file again. Only MP4/MOV files
/// on disk are pooled: their demuxer seeks every track back to its first sample. FFmpeg's
/// Matroska demuxer, sought to its start, drops the packets of other tracks that come
/// before the first video keyframe's time (a sound packet at 0 before a keyframe shown at
/// 21 ms), so a Matroska file, a URL or another container is opened for each user.
///
/// A file is known by its device, inode, size and modification time: a file replaced or
/// written again is another file, and its old demuxers are never handed out for it.
/// ``shared(_:)`` keeps the files used most recently (with their idle demuxers) and lets
/// go of the rest.
final class MediaFile: Sendable {
    let url: URL
    let identity: FileIdentity?
    private let state = Lock(State())

    private struct State {
        var idle: [IdleDemuxer] = []
        var opens = 0
    }
    /// Nil until parsed; `.some(nil)` once the boxes turned out unreadable. A lock of its
    /// own: parsing a large `moov` does not hold up the demuxers.
    private let parsed = Lock<ParsedBoxes??>(nil)
    private let boxReads = Lock(0)
    private let decodedPictures = Lock(0)
    private let picturesLeftOut = Lock(0)

    /// The MP4 box tree's tracks, movie timescale and movie-level items, parsed once.
    struct ParsedBoxes: Sendable {
        var tracks: [MP4Track]
        var movieTimescale: UInt32
        /// `moov/udta` and `moov/meta`; empty when a box is refused.
        var metadata: [MetadataItem]
    }

    /// Idle demuxers kept per file: enough for a video and a metadata or sound reader.
    static let idleLimit = 2
    /// Files kept with their idle demuxers after their last user.
    static let recentLimit = 8

    private init(url: URL, identity: FileIdentity?) {
        self.url = url
        self.identity = identity
    }

    // MARK: The files of the process

    private struct Registry {
        /// Every file someone holds (an asset, a reader, a render source), by identity.
        var live: [FileIdentity: Weak] = [:]
        /// The files used most recently, most recent last, kept with their idle demuxers
        /// after their last user lets go.
        var recent: [MediaFile] = []
    }
    private struct Weak {
        weak var file: MediaFile?
    }
    private static let registry = Lock(Registry())

    /// The file at `url` now: the one already known when the file on disk is unchanged,
    /// else a new one. A file stays one object while anyone holds it (an asset's readers
    /// share its pool however many other files the process opens meanwhile), and the
    /// ``recentLimit`` files used last are kept after that. A URL that is not a file (or a
    /// file that cannot be examined) gets a file of its own each time, which pools nothing.
    static func shared(_ url: URL) -> MediaFile {
        guard let identity = FileIdentity(url) else { return MediaFile(url: url, identity: nil) }
        return registry.withLock { r in
            let file = r.live[identity]?.file ?? MediaFile(url: url, identity: identity)
            r.live[identity] = Weak(file: file)
            r.recent.removeAll { $0 === file }
            r.recent.append(file)
            // The same path written again: the old file's demuxers read the old bytes.
            r.recent.removeAll { $0.identity?.path == identity.path && $0.identity != identity }
            for (other, entry) in r.live where entry.file == nil || (other.path == identity.path && other != identity) {
                r.live[other] = nil
            }
            if r.recent.count > recentLimit { r.recent.removeFirst(r.recent.count - recentLimit) }
            return file
        }
    }

    /// How many pictures the readers of this file have had from their decoders (pictures
    /// a decoder dropped undecoded are not counted).
    var decodedPictureCount: Int { decodedPictures.withLock { $0 } }

    /// Counts one picture out of a decoder of this file.
    func countDecodedPicture() { decodedPictures.withLock { $0 += 1 } }

    /// How many pictures the readers of this file did not send their decoders at all: H.264
    /// pictures no other refers to, before a seek's frame (``H264NonReferencePicture``).
    var pictureLeftOutCount: Int { picturesLeftOut.withLock { $0 } }

    /// Counts one picture not sent to a decoder of this file.
    func countPictureLeftOut() { picturesLeftOut.withLock { $0 += 1 } }

    // MARK: Demuxers

    /// How many times this file was opened (`avformat_open_input`) by anyone.
    var openCount: Int { state.withLock { $0.opens } }

    /// An opened, probed demuxer at the start of the file with every stream enabled: an
    /// idle one from the pool, else a new one (counted). The caller uses it alone and gives
    /// it back with ``giveBack(_:)`` (or lets it close).
    func takeDemuxer(networkTimeout: Duration) throws(ReelError) -> InputFormatContext {
        if let idle = state.withLock({ $0.idle.popLast() }) { return idle.demuxer }
        let demuxer = try InputFormatContext(url: url, networkTimeout: networkTimeout)
        state.withLock { $0.opens += 1 }
        return demuxer
    }

    /// Takes back a demuxer its user is done with (nothing else may touch it): rewound to
    /// the start and kept for the next user when the file is pooled, else closed.
    func giveBack(_ demuxer: InputFormatContext) {
        guard identity != nil, Self.pools(demuxer.formatName), demuxer.rewind() else { return }
        let kept = IdleDemuxer(demuxer)
        state.withLock { state in
            if state.idle.count < Self.idleLimit { state.idle.append(kept) }
        }
    }

    /// The containers whose demuxers seek back to their first packets exactly: MP4/MOV.
    static func pools(_ formatName: String) -> Bool {
        ContainerFamily(formatName: formatName) == .quickTime
    }

    // MARK: The MP4 box tree

    /// How many times the file's boxes were parsed: 0 or 1.
    var boxReadCount: Int { boxReads.withLock { $0 } }

    /// The MP4/MOV file's tracks as its boxes describe them, parsed on first use (on the
    /// caller's thread, others waiting) and kept; nil when the boxes cannot be read. A file
    /// on disk is read through a demuxer's byte stream (`demuxer`, which the caller holds,
    /// else one from the pool, given back): the boxes cost no opening of their own.
    func boxes(using demuxer: InputFormatContext? = nil, networkTimeout: Duration) -> ParsedBoxes? {
        parsed.withLock { parsed -> ParsedBoxes? in
            if let parsed { return parsed }
            boxReads.withLock { $0 += 1 }
            let read: ParsedBoxes?
            if url.isFileURL {
                if let demuxer {
                    read = demuxer.movieFile().flatMap(Self.parse)
                } else if let taken = try? takeDemuxer(networkTimeout: networkTimeout) {
                    read = taken.movieFile().flatMap(Self.parse)
                    giveBack(taken)
                } else {
                    read = nil
                }
            } else {
                read = (try? Self.movieFile(url, networkTimeout: networkTimeout)).flatMap(Self.parse)
            }
            parsed = .some(read)
            return read
        }
    }

    /// Everything read from the boxes is in memory when this returns: the tracks keep the
    /// `moov`'s bytes, not the file.
    private static func parse(_ file: MP4File) -> ParsedBoxes? {
        guard let tracks = try? file.tracks() else { return nil }
        return ParsedBoxes(
            tracks: tracks, movieTimescale: (try? file.movieTimescale()) ?? 0,
            metadata: (try? file.movieMetadata()) ?? [])
    }

    /// Where each sample of timed-metadata track `trackID` is presented, the boxes read
    /// through `demuxer` (held by the caller) if not yet read; nil for a URL that is not a
    /// file, when the boxes cannot be read or the track has no sample table.
    func sampleTimes(trackID: Int32, using demuxer: InputFormatContext) -> MetadataSampleTimes? {
        guard url.isFileURL, let boxes = boxes(using: demuxer, networkTimeout: .seconds(30)),
            let track = boxes.tracks.first(where: { Int64($0.trackID) == Int64(trackID) })
        else { return nil }
        return MetadataSampleTimes(track: track, movieTimescale: boxes.movieTimescale)
    }

    /// The MP4/MOV file for reading boxes: the file itself, or a remote URL read in ranges
    /// through FFmpeg's protocol.
    static func movieFile(_ url: URL, networkTimeout: Duration) throws(ReelError) -> MP4File {
        if url.isFileURL { return try MP4File(contentsOf: url) }
        let stream = try NetworkByteSource(url: url, timeout: networkTimeout)
        guard let size = stream.size else {
            throw ReelError(.unsupportedFormat, "the server does not say how long the file is", path: stream.location)
        }
        return MP4File(size: size, name: stream.location) { range throws(ReelError) in try stream.read(range) }
    }
}

/// A demuxer's byte stream, read by ``InputFormatContext/movieFile()`` on the thread that
/// holds the demuxer, while it does.
private final class DemuxerByteStream: @unchecked Sendable {
    // @unchecked: used only by the one thread that holds the demuxer, during the parse.
    private let pb: UnsafeMutablePointer<AVIOContext>
    private let path: String

    init(_ pb: UnsafeMutablePointer<AVIOContext>, path: String) {
        self.pb = pb
        self.path = path
    }

    /// Exactly the bytes of `range`.
    func read(_ range: Range<Int64>) throws(ReelError) -> [UInt8] {
        guard avio_seek(pb, range.lowerBound, SEEK_SET) == range.lowerBound else {
            throw ReelError(.unreadable, "could not seek to byte \(range.lowerBound)", path: path)
        }
        var bytes = [UInt8](repeating: 0, count: Int(range.count))
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBufferPointer { buffer in
                avio_read(pb, buffer.baseAddress! + filled, Int32(clamping: buffer.count - filled))
            }
            guard got > 0 else {
                throw ReelError(
                    .corruptData, "the file ends at byte \(range.lowerBound + Int64(filled)), inside bytes \(range.lowerBound)..<\(range.upperBound)",
                    path: path)
            }
            filled += Int(got)
        }
        return bytes
    }
}

/// A demuxer in a file's pool: no thread uses it until one takes it out.
private final class IdleDemuxer: @unchecked Sendable {
    // @unchecked: held only behind the file's lock while idle, then by its one taker.
    let demuxer: InputFormatContext
    init(_ demuxer: InputFormatContext) { self.demuxer = demuxer }
}

extension InputFormatContext {
    /// The file's MP4 boxes, read through this demuxer's own byte stream (no second opening
    /// of the file). Moves the stream's read position, which the MP4 demuxer sets again for
    /// every packet it reads. Nil when the stream has no size.
    func movieFile() -> MP4File? {
        guard let pb = pointer.pointee.pb, case let size = avio_size(pb), size > 0 else { return nil }
        let stream = DemuxerByteStream(pb, path: path)
        return MP4File(size: size, name: path) { range throws(ReelError) in try stream.read(range) }
    }

    /// Enables every stream and seeks to the start of the file; false when the demuxer
    /// cannot seek there (it is then not reused). The seek asks for a time before any
    /// packet: the MP4 demuxer then starts every track at its first sample (not at the
    /// keyframe at or before zero, which may come after samples with negative times).
    func rewind() -> Bool {
        for i in 0..<streamCount { stream(i).pointee.discard = AVDISCARD_DEFAULT }
        return av_seek_frame(pointer, -1, Int64.min / 2, AVSEEK_FLAG_BACKWARD) >= 0
    }
}

/// A file on disk as its device, inode, size and modification time say it is: a file
/// replaced or written again has another identity.
package struct FileIdentity: Hashable, Sendable {
    package var path: String
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64

    /// The identity of the regular file at `url` now; nil for a URL that is not a file, or
    /// a file that cannot be examined.
    package init?(_ url: URL) {
        guard url.isFileURL else { return nil }
        let path = url.standardizedFileURL.path
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        self.path = path
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
