import Foundation
import ReelComposition
import ReelCore
import ReelIO
import ReelMetadata

/// How an export writes one composition metadata track, decided and encoded before the
/// first frame: the sources' samples retimed through the composition's edits, in the
/// format ``MetadataOutputFormat`` chooses for the container.
///
/// When the track keeps its format, a sample wholly inside an edit is copied byte for
/// byte, and one cut by an edit or by the exported range is kept for the part inside
/// (GPMF payloads rebuilt from the groups inside the cut, every item kept; a `mebx` or
/// `camm` sample, one reading, kept whole over the shorter span; a KLV packet kept when
/// it starts inside). When it converts, every group inside is encoded again in the new
/// format, and what the new format cannot carry is said in one warning.
struct ExportMetadata: Sendable {
    struct Piece: Sendable {
        var source: any TimedMetadataSource
        /// The source range played.
        var sourceRange: TimeRange
        /// Where it plays in the composition.
        var target: TimeRange
        /// The format of the source track's samples; nil for groups held in memory, which
        /// are always encoded.
        var format: MetadataFormat?
        /// For `mebx`: the source track's keys, which its samples' local key ids refer to.
        var keys: [QuickTimeMetadataKey]
    }

    let trackID: Int32
    let input: AssetWriterInput
    /// The samples to write, in time order, on the composition's timeline.
    let samples: [SampleBuffer]

    /// The plans for the metadata tracks `trackIDs` of an export of `range` into a
    /// `fileType` file, each track's samples read, cut and encoded. A track with nothing
    /// the output format can carry is left out with a warning.
    ///
    /// - Throws: before any frame is written: a track ID that is not a metadata track of
    ///   the composition, a container that cannot hold the format (naming the way out), a
    ///   source that cannot be read.
    static func plans(
        trackIDs: [Int32], composition: Composition, range: TimeRange, sources: AssetRenderSources,
        fileType: AssetWriter.FileType, format requested: MetadataOutputFormat, path: String,
        leaveOut: String = "metadataTrackIDs = []", warn: @Sendable (String) -> Void
    ) async throws(ReelError) -> [ExportMetadata] {
        var plans: [ExportMetadata] = []
        // The source files' tracks, from their probes: no demuxer is held while planning.
        var assets: [URL: Asset] = [:]
        for id in trackIDs {
            let pieces: [Piece]
            do {
                pieces = try await Self.pieces(ofTrack: id, composition: composition, range: range, sources: sources, assets: &assets)
            } catch  where error.code == .unsupportedFormat {
                warn("metadata track \(id): \(error.message); the track is left out")
                continue
            }
            guard !pieces.isEmpty else { continue }
            var (format, converts) = try requested.resolve(
                sourceFormats: pieces.compactMap(\.format), fileType: fileType, trackID: id, path: path, leaveOut: leaveOut)
            if pieces.contains(where: { $0.format == nil }) { converts = true }
            // mebx samples name their items by the track's local key ids: samples from
            // sources whose key tables differ are encoded again under one table.
            let keys = pieces[0].keys
            if format == .mebx, pieces.contains(where: { $0.keys != keys }) { converts = true }
            let hint = format == .mebx && !converts ? MP4SampleEntry(format: FourCC(format.rawValue), metadataKeys: keys) : nil
            let input = AssetWriterInput(settings: .metadata(format: format), sourceFormatHint: hint)
            var groups: [TimedMetadataGroup] = []
            var copied: [SampleBuffer] = []
            var unlisted: ReelError?
            for piece in pieces {
                let read: [TimedMetadataSample]
                do { read = try await piece.source.samples(in: piece.sourceRange) } catch  where error.code == .unsupportedFormat {
                    unlisted = error
                    break
                }
                if converts {
                    groups += read.compactMap { retimed($0.group, piece: piece) }
                } else {
                    copied += try Self.copied(read, piece: piece)
                }
            }
            if let unlisted {
                warn("metadata track \(id): \(unlisted.message); the track is left out")
                continue
            }
            var samples = copied
            var loss: String?
            if converts {
                let conversion = MetadataConversion(groups: groups, to: format, input: input)
                samples = conversion.samples
                let from = Set(pieces.map { $0.format?.rawValue ?? "groups in memory" }).sorted().joined(separator: "+")
                loss = conversion.lossDescription.map { "written as \(format) (converted from \(from) for .\(fileType.rawValue)): \($0)" }
            }
            samples = inTimeOrder(samples)
            if format == .gpmd { samples = Self.gapsFilled(samples, from: range.start) }
            guard !samples.isEmpty else {
                let held = Set(groups.flatMap { $0.items.map(\.identifier.description) }).sorted()
                let what = held.isEmpty ? "" : " (it holds \(held.prefix(4).joined(separator: ", "))\(held.count > 4 ? " and \(held.count - 4) more" : ""))"
                warn("metadata track \(id): nothing in the exported range that \(format) can carry\(what); the track is left out")
                continue
            }
            if let loss { warn("metadata track \(id): \(loss)") }
            plans.append(ExportMetadata(trackID: id, input: input, samples: samples))
        }
        return plans
    }

    /// Appends every sample, then marks the input finished.
    func write() async throws(ReelError) {
        for sample in samples {
            if Task.isCancelled { throw ReelError(.cancelled, "the export was cancelled") }
            try await input.append(sample)
        }
        input.markAsFinished()
    }

    // MARK: Planning

    /// The played stretches of metadata track `id` inside `range`, with their formats.
    static func pieces(
        ofTrack id: Int32, composition: Composition, range: TimeRange, sources: AssetRenderSources,
        assets: inout [URL: Asset]
    ) async throws(ReelError) -> [Piece] {
        guard let track = composition.track(withTrackID: id) else {
            throw ReelError(.invalidComposition, "sourceSampleDataTrackIDs names track \(id), which the composition does not have", trackID: id)
        }
        guard track.mediaType == .metadata else {
            throw ReelError(
                .invalidComposition,
                "sourceSampleDataTrackIDs names track \(id), a \(track.mediaType) track: only metadata tracks can be written as timed metadata", trackID: id)
        }
        var pieces: [Piece] = []
        for segment in track.segments where !segment.isEmpty {
            guard let ref = segment.sourceTrack else { continue }
            let target = segment.target.intersection(range)
            guard target.isValid, target.duration > .zero else { continue }
            let m = segment.timeMapping
            let sourceRange = TimeRange(
                start: TimeRange.mapTime(target.start, from: m.target, to: m.source),
                end: TimeRange.mapTime(target.end, from: m.target, to: m.source))
            if let memory = sources.inMemory?.timedMetadataSource(for: ref) {
                pieces.append(Piece(source: memory, sourceRange: sourceRange, target: target, format: nil, keys: []))
                continue
            }
            let url = sources.url(for: ref.sourceIdentifier)
            let asset = assets[url] ?? Asset(url: url)
            assets[url] = asset
            let found = try await asset.loadTrack(withTrackID: ref.trackID)
            guard let sourceTrack = found, let format = sourceTrack.metadataFormat,
                TimedMetadataDecoder.canDecode(format: format)
            else {
                let what = found.map { $0.metadataFormat?.rawValue ?? $0.formatDescription.codecName } ?? "no such track"
                throw ReelError(
                    .unsupportedFormat,
                    "its source track \(ref.trackID) holds \(what) samples, which Reel cannot carry (it carries \(TimedMetadataDecoder.supportedFormats.map(\.rawValue).sorted().joined(separator: ", ")))",
                    path: url.path, trackID: ref.trackID)
            }
            pieces.append(
                Piece(
                    source: sources.metadataSource(for: ref), sourceRange: sourceRange, target: target, format: format,
                    keys: sourceTrack.formatDescription.metadataKeys))
        }
        return pieces
    }

    /// `samples` with any that does not start after the one before dropped (pieces that
    /// meet at an edit can both hold the sample across it).
    static func inTimeOrder(_ samples: [SampleBuffer]) -> [SampleBuffer] {
        var out: [SampleBuffer] = []
        out.reserveCapacity(samples.count)
        for sample in samples where out.last.map({ $0.presentationTime < sample.presentationTime }) ?? true {
            out.append(sample)
        }
        return out
    }

    /// `samples` (gpmd) with a payload holding no fix (an empty GPS stream, GPSF 0) in
    /// each gap of a millisecond or more between them, and between `start` and the first.
    /// An MP4 sample lasts until the next one starts, so a gap (a damaged sample skipped, a
    /// hole in a converted track) would stretch the sample before it, and a reader spreads
    /// that payload's fixes over the gap, up to a payload late. A track that starts late
    /// (a range cut inside a payload whose first group started before the cut) would get
    /// an empty edit, and FFmpeg 5.1's MP4 muxer then shortens its last sample by the
    /// edit's length (to nothing when they are equal).
    static func gapsFilled(_ samples: [SampleBuffer], from start: MediaTime) -> [SampleBuffer] {
        guard !samples.isEmpty, let empty = try? GPMFWriter.payload(fixes: []) else { return samples }
        var out: [SampleBuffer] = []
        out.reserveCapacity(samples.count + 1)
        if let first = samples.first?.presentationTime, start.isNumeric, first.isNumeric, (first - start).seconds >= 0.001 {
            out.append(SampleBuffer(data: empty, presentationTime: start, duration: first - start, format: .gpmd))
        }
        for (k, sample) in samples.enumerated() {
            out.append(sample)
            guard k + 1 < samples.count, sample.presentationTime.isNumeric, sample.duration.isNumeric else { continue }
            let end = sample.presentationTime + sample.duration, next = samples[k + 1].presentationTime
            guard next.isNumeric, (next - end).seconds >= 0.001 else { continue }
            out.append(SampleBuffer(data: empty, presentationTime: end, duration: next - end, format: .gpmd))
        }
        return out
    }

    /// `group` on the composition timeline of `piece`, when it starts inside the piece. Its
    /// end is mapped too, even past the piece's end: a group lasts as long as it did.
    static func retimed(_ group: TimedMetadataGroup, piece: Piece) -> TimedMetadataGroup? {
        guard piece.sourceRange.containsTime(group.timeRange.start) else { return nil }
        let map = { (t: MediaTime) in TimeRange.mapTime(t, from: piece.sourceRange, to: piece.target) }
        var out = group
        out.timeRange = TimeRange(start: map(group.timeRange.start), end: map(group.timeRange.end))
        for i in out.items.indices where out.items[i].time.isNumeric {
            let time = out.items[i].time
            out.items[i].time = map(time)
            if out.items[i].duration.isNumeric { out.items[i].duration = map(time + out.items[i].duration) - out.items[i].time }
        }
        return out
    }

    // MARK: Copying

    /// The decoded groups gathered back under the raw sample they came from, in order.
    static func bySample(_ samples: [TimedMetadataSample]) -> [(SampleBuffer, [TimedMetadataGroup])] {
        var out: [(SampleBuffer, [TimedMetadataGroup])] = []
        for sample in samples {
            guard let buffer = sample.sampleBuffer else { continue }
            if let lastBuffer = out.last?.0, lastBuffer == buffer {
                out[out.count - 1].1.append(sample.group)
            } else {
                out.append((buffer, [sample.group]))
            }
        }
        return out
    }

    /// The samples of one piece in their own format, on the composition timeline.
    static func copied(_ samples: [TimedMetadataSample], piece: Piece) throws(ReelError) -> [SampleBuffer] {
        var out: [SampleBuffer] = []
        for (buffer, groups) in bySample(samples) {
            if buffer.metadataFormat == .klv {
                out += klvPackets(buffer, groups: groups, piece: piece)
            } else {
                out += try retimed(buffer, groups: groups, piece: piece)
            }
        }
        return out
    }

    /// KLV packets are instants (an asynchronous one has no time of its own: the decoder
    /// placed it by its UNIX time stamp): each packet that starts inside the piece, at its
    /// group's time.
    static func klvPackets(_ buffer: SampleBuffer, groups: [TimedMetadataGroup], piece: Piece) -> [SampleBuffer] {
        let packets = (try? KLV.packets(in: buffer.data)) ?? []
        var out: [SampleBuffer] = []
        for (i, group) in groups.enumerated() {
            guard let placed = retimed(group, piece: piece) else { continue }
            let data = groups.count == 1 || packets.count != groups.count ? buffer.data : packets[i].bytes
            out.append(SampleBuffer(data: data, presentationTime: placed.timeRange.start, duration: placed.timeRange.duration, format: buffer.format))
        }
        return out
    }

    /// `buffer` on the composition timeline of `piece`: as it is when wholly inside, else
    /// the part inside (a cut GPMF payload may become two samples); none when nothing is
    /// inside.
    static func retimed(_ buffer: SampleBuffer, groups: [TimedMetadataGroup], piece: Piece) throws(ReelError) -> [SampleBuffer] {
        let span =
            buffer.duration.isNumeric && buffer.duration > .zero
            ? buffer.timeRange
            : TimeRange(start: buffer.presentationTime, duration: .zero)
        let inside = span.intersection(piece.sourceRange)
        let map = { (t: MediaTime) in TimeRange.mapTime(t, from: piece.sourceRange, to: piece.target) }
        if piece.sourceRange.containsTimeRange(span) || (span.duration == .zero && piece.sourceRange.containsTime(span.start)) {
            var out = buffer
            out.presentationTime = map(span.start)
            out.duration = span.duration == .zero ? buffer.duration : map(span.end) - out.presentationTime
            // GPMF stamps each stream's first sample on the track's clock: it moves with the
            // sample (a stamp on another clock stays as it is).
            if buffer.metadataFormat == .gpmd, out.presentationTime != span.start || out.duration != span.duration {
                out.data = try GPMF.restamped(buffer.data, spanning: span, by: map)
            }
            return [out]
        }
        guard inside.isValid, inside.duration > .zero else { return [] }
        guard buffer.metadataFormat == .gpmd else {
            // One reading over the sample's span (mebx, camm): the same bytes over the part inside.
            var out = buffer
            out.presentationTime = map(inside.start)
            out.duration = map(inside.end) - out.presentationTime
            return [out]
        }
        let kept = groups.compactMap { retimed($0, piece: piece) }
        let cutStart = map(inside.start), cutEnd = map(inside.end)
        // A reader spreads a payload's samples evenly across it, so the groups that end
        // inside keep their own span (each lands where it was), and the group the cut ends
        // (normally the last) becomes a sample of its own, from its start to the cut: no
        // sample runs past the cut, which would make the track, and so the file, outlast
        // the range, and a joiner (FFmpeg's concat demuxer) would place the next piece
        // that much late.
        let whole = kept.filter { !(cutEnd < $0.timeRange.end) }
        let crossing = kept.filter { cutEnd < $0.timeRange.end }
        var out: [SampleBuffer] = []
        for (part, end) in [(whole, whole.last?.timeRange.end), (crossing, cutEnd)] {
            guard let first = part.first, let end else { continue }
            let start = MediaTime.maximum(out.last.map { $0.presentationTime + $0.duration } ?? cutStart, MediaTime.maximum(cutStart, first.timeRange.start))
            guard start < end else { continue }
            let data = try GPMFWriter.payload(groups: part, timeRange: TimeRange(start: start, end: end))
            out.append(SampleBuffer(data: data, presentationTime: start, duration: end - start, format: buffer.format))
        }
        return out
    }
}
