import Foundation
import ReelComposition
import ReelCore
import ReelIO

extension ExportAudio {
    /// Output frames per block of the mix.
    static let blockFrames = 4096

    /// Mixes `tracks` over `range` into the input (``AudioMixer``): sample `n` plays at
    /// `range.start + n / sampleRate` exactly, and the output ends at the sample nearest
    /// `range.end`.
    func mix(
        _ tracks: [Track], range: TimeRange, sampleRate: Int, channels: Int,
        progress: @Sendable (Double) -> Void
    ) async throws(ReelError) {
        let mixer = AudioMixer(tracks: tracks, range: range, sampleRate: sampleRate, channels: channels)
        while let block = try await mixer.next() {
            try await input.append(block)
            progress(mixer.progress)
        }
    }
}
