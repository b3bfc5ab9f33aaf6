import Foundation

/// Adds timed-metadata tracks to a finished MP4 or QuickTime file, which FFmpeg 5.1
/// cannot write itself (it writes `mebx` and `camm` tracks with an empty sample
/// description).
///
/// The new file is the source's boxes copied in order, a new `mdat` holding the sample
/// data, and a rewritten `moov`: a `trak` per new track (linked by `tref`/`cdsc` to the
/// track it describes), `mvhd`'s next track id and duration raised, and every existing
/// chunk offset moved with the bytes it points into. A `moov` in front of the media
/// (faststart) stays in front; one at the end stays at the end. Data tracks without a
/// `cdsc` reference (FFmpeg's `gpmd` tracks) can be linked to the video track too.
///
/// Bytes are copied in bounded blocks: memory grows with the `moov`, not with the file.
public enum MP4TrackAppender {
    /// The block size of the streamed copy.
    static let copyBlockSize = 1 << 20

    /// Writes `source` plus `tracks` to `destination` (a new file; an existing one is
    /// replaced). `sampleData` holds the new tracks' sample bytes (nil when there are
    /// no samples). With `linkingDataTracks`, existing `gpmd`, `mebx` and `camm` tracks
    /// without a `cdsc` reference get one to the first video track.
    ///
    /// - Throws: `.unsupportedFormat` for a fragmented file or one without `moov`;
    ///   `.invalidArgument` for samples outside `sampleData` or out of time order;
    ///   `.outputFailed` when the destination cannot be written. The file is written
    ///   beside `destination` and renamed over it (`AtomicFile`), so a failure leaves
    ///   `destination` as it was; `destination` may be `source`.
    ///
    /// With `artwork`, the movie's metadata gets a cover picture (see ``MP4Artwork``).
    ///
    /// `moovInFront` puts the `moov` before the media (faststart) or after everything;
    /// nil keeps it where the source has it. Asking for the front here, rather than from
    /// the muxer that wrote `source`, saves the muxer's own pass over the whole file.
    public static func write(
        _ source: URL, adding tracks: [MP4AppendedTrack], sampleData: URL?, linkingDataTracks: Bool = true,
        moovInFront: Bool? = nil, artwork: MP4Artwork? = nil, to destination: URL
    ) throws(ReelError) {
        let file = try MP4File(contentsOf: source)
        let top = try file.topLevelBoxes()
        if top.contains(where: { $0.type == "moof" }) {
            throw ReelError(.unsupportedFormat, "MP4: cannot add tracks to a fragmented file", path: source.path)
        }
        let (moovBox, moovBytes) = try file.moov()
        let existing = try file.tracks()
        let quickTime = try isQuickTime(file, top: top)

        let data = try sampleData.map { url throws(ReelError) in try MP4File(contentsOf: url) }
        let dataSize = data?.size ?? 0
        for (i, track) in tracks.enumerated() { try track.validate(dataSize: dataSize, index: i) }

        // The new moov, with chunk offsets still to be placed.
        let parsed: MP4BoxNode
        do {
            parsed = try MP4BoxNode.parse(moovBytes, box: moovBox, base: moovBox.offset, path: "")
        } catch {
            throw ReelError(error.code, error.message, path: source.path)
        }
        let movieTimescale = try mvhdTimescale(parsed, path: source.path)
        let video = existing.first { $0.handlerType == "vide" }?.trackID
        // Track IDs are 32-bit; the new ones and `next_track_ID` after them must fit.
        let highest = UInt64(existing.map(\.trackID).max() ?? 0)
        guard highest + UInt64(tracks.count) < UInt64(UInt32.max) else {
            throw ReelError(.unsupportedFormat, "MP4: the file's track ID \(highest) leaves no ID for \(tracks.count) more track(s)", path: source.path)
        }
        var nextID = UInt32(highest) + 1
        var children = parsed.children
        var trakIndex = 0
        for (i, child) in children.enumerated() where child.type == "trak" {
            defer { trakIndex += 1 }
            guard linkingDataTracks, let video, trakIndex < existing.count else { continue }
            let track = existing[trakIndex]
            if let format = track.metadataFormat, format != .klv, track.references["cdsc"] == nil {
                children[i] = linked(child, to: video)
            }
        }
        var longest: UInt64 = 0
        for track in tracks {
            let describes = track.describedTrackID ?? video
            let trak = try track.trak(trackID: nextID, describes: describes, movieTimescale: movieTimescale, quickTime: quickTime)
            children.append(trak)
            longest = max(
                longest,
                UInt64(
                    (Double(track.samples.last.map { $0.time + max(0, track.deltas.last ?? 0) } ?? 0)
                        * Double(movieTimescale) / Double(track.timescale)).rounded()))
            nextID += 1
        }
        children = try children.map { child throws(ReelError) in
            child.type == "mvhd" ? try updatedMovieHeader(child, nextTrackID: nextID, duration: longest, path: source.path) : child
        }
        if let artwork {
            do {
                if let index = children.firstIndex(where: { $0.type == "udta" }) {
                    children[index] = .leaf("udta", try artwork.userData(adding: children[index].payload))
                } else {
                    children.append(.leaf("udta", try artwork.userData(adding: nil)))
                }
            } catch {
                throw ReelError(error.code, error.message, path: source.path)
            }
        }
        let moov = parsed.with(children: children)

        // Lay the file out until the moov's size settles (offsets past 4 GiB turn stco into co64).
        let moovIndex = top.firstIndex { $0.offset == moovBox.offset }!
        let inFront = moovInFront ?? !top[..<moovIndex].contains { $0.type == "mdat" }
        // The order the boxes are written in: a front moov goes before the first media
        // data (after `ftyp` and its like), a back one after everything.
        let others = top.filter { $0.offset != moovBox.offset }
        let firstMedia = others.firstIndex { $0.type == "mdat" } ?? others.count
        let before = Array(others[..<firstMedia]), after = Array(others[firstMedia...])
        let appendedHeader = data == nil ? [] : MP4BoxNode.header("mdat", payloadSize: Int(dataSize))
        var moovSize = Int64(moovBytes.count)
        var moovOut: [UInt8] = []
        for _ in 0..<8 {
            var placed: [(box: MP4Box, to: Int64)] = []
            var offset: Int64 = 0
            for box in before {
                placed.append((box, offset))
                offset += box.size
            }
            if inFront { offset += moovSize }
            for box in after {
                placed.append((box, offset))
                offset += box.size
            }
            placed.sort { $0.box.offset < $1.box.offset }
            let appendedBase = UInt64(offset) + UInt64(appendedHeader.count)
            let map = placed
            moovOut = try moov.serialized(move: { (old) throws(ReelError) in try moved(old, in: map, path: source.path) }, appendedBase: appendedBase)
            if Int64(moovOut.count) == moovSize { break }
            moovSize = Int64(moovOut.count)
        }
        guard Int64(moovOut.count) == moovSize else {
            throw ReelError(.corruptData, "MP4: the rewritten 'moov' did not settle on a size", path: source.path)
        }

        // Write: the boxes in order with the moov in its place, then the sample data.
        let placed = try AtomicFile(destination, replacing: true)
        do throws(ReelError) {
            guard FileManager.default.createFile(atPath: placed.temporaryURL.path, contents: nil) else {
                throw ReelError(.outputFailed, "MP4: cannot create the file", path: destination.path)
            }
            let out: FileHandle
            do {
                out = try FileHandle(forWritingTo: placed.temporaryURL)
            } catch {
                throw ReelError(.outputFailed, "MP4: cannot open the file for writing", path: destination.path, underlying: error)
            }
            defer { try? out.close() }
            for box in before { try copy(box, of: file, to: out, path: destination.path) }
            if inFront { try write(moovOut, to: out, path: destination.path) }
            for box in after { try copy(box, of: file, to: out, path: destination.path) }
            try write(appendedHeader, to: out, path: destination.path)
            if let data { try copy(0..<data.size, of: data, to: out, path: destination.path) }
            if !inFront { try write(moovOut, to: out, path: destination.path) }
        } catch {
            placed.discard()
            throw error
        }
        try placed.commit()
    }

    /// Where a source byte lands: moved by as much as the top-level box holding it moved.
    private static func moved(_ old: UInt64, in placed: [(box: MP4Box, to: Int64)], path: String) throws(ReelError) -> UInt64 {
        guard old <= UInt64(Int64.max) else { throw ReelError(.corruptData, "MP4: chunk offset \(old) is past any file", path: path) }
        let offset = Int64(old)
        // The last box starting at or before the offset (a chunk at a box's very end has no bytes).
        guard let holder = placed.last(where: { $0.box.offset <= offset }) else {
            throw ReelError(.corruptData, "MP4: chunk offset \(old) lies before every box", path: path)
        }
        return UInt64(offset - holder.box.offset + holder.to)
    }

    /// Whether `ftyp`'s major brand is QuickTime's (`qt  `), or there is no `ftyp` at all.
    private static func isQuickTime(_ file: MP4File, top: [MP4Box]) throws(ReelError) -> Bool {
        guard let ftyp = top.first(where: { $0.type == "ftyp" }) else { return true }
        guard ftyp.payloadRange.count >= 4 else { throw ReelError(.corruptData, "MP4: 'ftyp' is too short", path: file.path) }
        return FourCC(bytes: try file.readBytes(ftyp.payloadRange.lowerBound..<(ftyp.payloadRange.lowerBound + 4))) == "qt  "
    }

    /// The `mvhd` timescale.
    private static func mvhdTimescale(_ moov: MP4BoxNode, path: String) throws(ReelError) -> UInt32 {
        guard let mvhd = moov.children.first(where: { $0.type == "mvhd" })?.payload, mvhd.count >= 100 else {
            throw ReelError(.corruptData, "MP4: 'moov' has no complete 'mvhd'", path: path)
        }
        let timescale = UInt32(ByteReader.uintBE(mvhd, at: mvhd[0] == 1 ? 20 : 12, count: 4))
        guard timescale > 0 else { throw ReelError(.corruptData, "MP4: 'mvhd' timescale is 0", path: path) }
        return timescale
    }

    /// `mvhd` with its next track id (the last field) and at least `duration`.
    private static func updatedMovieHeader(_ mvhd: MP4BoxNode, nextTrackID: UInt32, duration: UInt64, path: String) throws(ReelError) -> MP4BoxNode {
        guard var bytes = mvhd.payload, bytes.count >= 100 else { throw ReelError(.corruptData, "MP4: 'mvhd' is too short", path: path) }
        let wide = bytes[0] == 1
        guard !wide || bytes.count >= 112 else { throw ReelError(.corruptData, "MP4: version 1 'mvhd' is too short", path: path) }
        let at = wide ? 24 : 16, size = wide ? 8 : 4
        let current = ByteReader.uintBE(bytes, at: at, count: size)
        if duration > current, wide || duration <= UInt64(UInt32.max) {
            for k in 0..<size { bytes[at + k] = UInt8(truncatingIfNeeded: duration >> (8 * UInt64(size - 1 - k))) }
        }
        let next = bytes.count - 4
        let old = UInt32(ByteReader.uintBE(bytes, at: next, count: 4))
        let value = max(old, nextTrackID)
        for k in 0..<4 { bytes[next + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(3 - k))) }
        return .leaf("mvhd", bytes)
    }

    /// `trak` with a `cdsc` reference to `video`, in its `tref` (made after `tkhd` when missing).
    private static func linked(_ trak: MP4BoxNode, to video: UInt32) -> MP4BoxNode {
        let cdsc = MP4BoxNode.leaf("cdsc", [UInt8(video >> 24), UInt8((video >> 16) & 0xFF), UInt8((video >> 8) & 0xFF), UInt8(video & 0xFF)])
        var children = trak.children
        if let i = children.firstIndex(where: { $0.type == "tref" }), case .container = children[i] {
            children[i] = children[i].with(children: children[i].children + [cdsc])
        } else if let i = children.firstIndex(where: { $0.type == "tref" }), let payload = children[i].payload {
            children[i] = .leaf("tref", payload + MP4BoxNode.header("cdsc", payloadSize: 4) + cdsc.payload!)
        } else {
            let at = (children.firstIndex { $0.type == "tkhd" } ?? -1) + 1
            children.insert(.container("tref", [cdsc]), at: at)
        }
        return trak.with(children: children)
    }

    private static func write(_ bytes: [UInt8], to out: FileHandle, path: String) throws(ReelError) {
        do {
            try out.write(contentsOf: Data(bytes))
        } catch {
            throw ReelError(.outputFailed, "MP4: writing the file failed", path: path, underlying: error)
        }
    }

    /// Copies a top-level box. A size field of 0 means "to the end of the file", which
    /// would swallow what is written after it: the copy gets the box's real size. A `moov`
    /// other than the one rewritten (readers read the first and FFmpeg skips the others)
    /// is copied as a `free` box of the same bytes, so that wherever the rewritten `moov`
    /// lands it is the one read (found by fuzzing: a second `moov` before it hid the new
    /// track).
    private static func copy(_ box: MP4Box, of file: MP4File, to out: FileHandle, path: String) throws(ReelError) {
        guard box.size >= 8 else { return try copy(box.offset..<box.end, of: file, to: out, path: path) }
        var header = try file.readBytes(box.offset..<(box.offset + 8))
        if header[0..<4] == [0, 0, 0, 0] {
            guard let size = UInt32(exactly: box.size) else {
                throw ReelError(
                    .unsupportedFormat,
                    "MP4: '\(box.type)' at \(box.offset) runs to the end of the file and is over 4 GiB: its size cannot be written in place",
                    path: file.path)
            }
            header.replaceSubrange(0..<4, with: [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)])
        }
        if box.type == "moov" { header.replaceSubrange(4..<8, with: Array("free".utf8)) }
        try write(header, to: out, path: path)
        try copy((box.offset + 8)..<box.end, of: file, to: out, path: path)
    }

    /// Copies `range` of `file` in blocks of ``copyBlockSize``.
    private static func copy(_ range: Range<Int64>, of file: MP4File, to out: FileHandle, path: String) throws(ReelError) {
        var at = range.lowerBound
        while at < range.upperBound {
            let end = min(range.upperBound, at + Int64(copyBlockSize))
            try write(try file.readBytes(at..<end), to: out, path: path)
            at = end
        }
    }
}
