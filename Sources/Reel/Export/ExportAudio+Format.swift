import Foundation
import ReelCore
import ReelIO

extension ExportAudio {
    /// The sample rate and channel count an export's audio is mixed and encoded at; each
    /// the first track's where not given.
    struct OutputFormat: Sendable, Hashable {
        var sampleRate: Int?
        var channelCount: Int?

        /// Whether packets of a track described by `description` have this format (so they
        /// may be copied).
        func fits(_ description: FormatDescription) -> Bool {
            (sampleRate == nil || sampleRate == description.sampleRate)
                && (channelCount == nil || channelCount == description.channelCount)
        }

        /// This format, the first track's `sampleRate` and `channelCount` where it gives none.
        func resolved(sampleRate rate: Int, channelCount channels: Int) -> (sampleRate: Int, channels: Int) {
            (sampleRate ?? rate, channelCount ?? channels)
        }
    }
}
