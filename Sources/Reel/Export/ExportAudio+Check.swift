import Foundation
import ReelCore
import ReelIO

extension ExportAudio {
    /// Opens the decoder of every source track the mix reads and decodes its first sound
    /// where the export first plays it, so that a track that cannot be decoded (a codec
    /// configuration that does not parse, a first packet that does not decode) stops the
    /// export while it is planned, naming the file and track, rather than after the video
    /// is rendered. Copied packets are checked too: they would make a track no player
    /// decodes.
    func checkDecoding() async throws(ReelError) {
        let pieces: [Piece]
        switch mode {
        case .copy(let piece): pieces = [piece]
        case .mix(let tracks, _, _): pieces = tracks.flatMap(\.pieces)
        }
        var checked: [(URL, Int32)] = []
        for piece in pieces where piece.sound == nil && !checked.contains(where: { $0.0 == piece.url && $0.1 == piece.trackID }) {
            checked.append((piece.url, piece.trackID))
            try await Self.checkDecoding(piece)
        }
    }

    /// Decodes `piece`'s first block of sound (from the lead-in a segment decodes from).
    static func checkDecoding(_ piece: Piece) async throws(ReelError) {
        // Stopped before the export reads the file again, which then takes this demuxer.
        try await AssetReader.withReader(url: piece.url) { reader throws(ReelError) in
            let output = AssetReaderTrackOutput(trackID: piece.trackID, settings: .audioPCM, bufferCapacity: 1)
            try reader.add(output)
            reader.timeRange = TimeRange(start: MediaTime.maximum(.zero, piece.source.start - AudioTrackStream.Segment.preroll), end: piece.source.end)
            try reader.startReading()
            while let sample = try await output.next() {
                if let audio = sample.audio, audio.frameCount > 0 { break }
            }
        }
    }
}
