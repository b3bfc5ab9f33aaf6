import ReelCore

/// One track's volume over time in an ``AudioMix`` (`AVAudioMixInputParameters`).
///
/// The volume follows the ramps in time order, as AVFoundation's does: before the first
/// ramp it is 1; inside a ramp's range it moves linearly from the ramp's start volume to
/// its end volume; after a ramp its end volume holds until the next ramp starts. A volume
/// set at a time (``MutableAudioMixInputParameters/setVolume(_:at:)``) is a ramp of no
/// duration: a step that holds.
public struct AudioMixInputParameters: Sendable, Hashable, Codable {
    /// A linear change of volume over a time range (`getVolumeRamp(for:)`'s answer).
    public struct VolumeRamp: Sendable, Hashable, Codable {
        /// The volume at the start of the time range, 0 or more (1 is unchanged).
        public var startVolume: Float
        /// The volume at the end of the time range, held until the next ramp.
        public var endVolume: Float
        /// Empty for a step (a volume set at a time).
        public var timeRange: TimeRange

        /// A ramp from `startVolume` to `endVolume` over `timeRange`.
        public init(startVolume: Float, endVolume: Float, timeRange: TimeRange) {
            self.startVolume = startVolume
            self.endVolume = endVolume
            self.timeRange = timeRange
        }
    }

    /// The composition audio track these parameters apply to.
    public let trackID: Int32
    /// The ramps and steps, ordered by start time.
    public let volumeRamps: [VolumeRamp]

    /// The parameters for the track `trackID`, with its ramps sorted by start time.
    public init(trackID: Int32, volumeRamps: [VolumeRamp] = []) {
        self.trackID = trackID
        self.volumeRamps = volumeRamps.sorted { $0.timeRange.start < $1.timeRange.start }
    }

    /// A snapshot of mutable parameters.
    public init(_ parameters: MutableAudioMixInputParameters) {
        self.init(trackID: parameters.trackID, volumeRamps: parameters.volumeRamps)
    }

    /// The ramp in effect at `time`: the last one starting at or before it; nil before the
    /// first (where the volume is 1).
    public func getVolumeRamp(for time: MediaTime) -> VolumeRamp? {
        volumeRamps.last { !(time < $0.timeRange.start) }
    }

    /// The volume at `time`.
    public func volume(at time: MediaTime) -> Float {
        guard let ramp = getVolumeRamp(for: time) else { return 1 }
        guard time < ramp.timeRange.end else { return ramp.endVolume }
        return Self.interpolate(ramp, offset: (time - ramp.timeRange.start).seconds)
    }

    /// The volume of each of `count` samples at `sampleRate`, sample `n` playing at
    /// `start + n / sampleRate`: exactly ``volume(at:)`` of each sample's time, with the
    /// ramps' edges found in exact rational time.
    public func volumes(from start: MediaTime, sampleRate: Int, count: Int) -> [Float] {
        var out = [Float](repeating: 1, count: max(0, count))
        guard count > 0, sampleRate > 0, !volumeRamps.isEmpty else { return out }
        let rate = Int32(clamping: sampleRate)
        // The first sample playing at or after `t`, within 0...count.
        func index(_ t: MediaTime) -> Int {
            guard t.isNumeric else { return t.isNegativeInfinity ? 0 : count }
            let n = (t - start).convertScale(rate, method: .roundTowardPositiveInfinity).value
            return Int(min(max(n, 0), Int64(count)))
        }
        for (k, ramp) in volumeRamps.enumerated() {
            let first = index(ramp.timeRange.start)
            let endOfRamp = max(first, index(ramp.timeRange.end))
            let next = k + 1 < volumeRamps.count ? max(endOfRamp, index(volumeRamps[k + 1].timeRange.start)) : count
            if first < endOfRamp {
                let lead = (start - ramp.timeRange.start).seconds
                for n in first..<endOfRamp {
                    out[n] = Self.interpolate(ramp, offset: lead + Double(n) / Double(sampleRate))
                }
            }
            for n in endOfRamp..<next { out[n] = ramp.endVolume }
        }
        return out
    }

    /// Whether the volume is 1 everywhere in `range`.
    public func isUnitVolume(over range: TimeRange) -> Bool {
        guard volume(at: range.start) == 1 else { return false }
        return volumeRamps.allSatisfy { ramp in
            let touches = ramp.timeRange.start < range.end && range.start < ramp.timeRange.end
            return !touches || (ramp.startVolume == 1 && ramp.endVolume == 1)
        }
    }

    /// What makes these parameters unusable, in words: a negative or non-finite volume, an
    /// invalid range, or ramps that overlap; nil when they are fine.
    public func rampProblem() -> String? {
        for (i, ramp) in volumeRamps.enumerated() {
            for v in [ramp.startVolume, ramp.endVolume] where !v.isFinite || v < 0 {
                return "volume ramp \(i) has volume \(v): volumes are 0 or more"
            }
            guard ramp.timeRange.isValid, ramp.timeRange.start.isNumeric, ramp.timeRange.duration.isNumeric,
                !(ramp.timeRange.duration < .zero)
            else {
                return "volume ramp \(i) has an invalid time range \(ramp.timeRange)"
            }
            if i > 0, ramp.timeRange.start < volumeRamps[i - 1].timeRange.end {
                return "volume ramps \(i - 1) and \(i) overlap: \(volumeRamps[i - 1].timeRange) and \(ramp.timeRange)"
            }
        }
        return nil
    }

    private static func interpolate(_ ramp: VolumeRamp, offset: Double) -> Float {
        let duration = ramp.timeRange.duration.seconds
        guard duration > 0 else { return ramp.endVolume }
        let f = min(max(offset / duration, 0), 1)
        return ramp.startVolume + Float(f) * (ramp.endVolume - ramp.startVolume)
    }
}

/// One track's volume settings to edit (`AVMutableAudioMixInputParameters`).
public struct MutableAudioMixInputParameters: Sendable, Hashable, Codable {
    /// The composition audio track these parameters apply to.
    public var trackID: Int32
    /// The ramps and steps, ordered by start time.
    public private(set) var volumeRamps: [AudioMixInputParameters.VolumeRamp] = []

    /// Parameters for the track `trackID`, with no ramps: volume 1 throughout.
    public init(trackID: Int32) {
        self.trackID = trackID
    }

    /// The volume from `time` on, until the next ramp (a step).
    public mutating func setVolume(_ volume: Float, at time: MediaTime) {
        insert(.init(startVolume: volume, endVolume: volume, timeRange: TimeRange(start: time, duration: .zero)))
    }

    /// A linear change from `startVolume` to `endVolume` over `timeRange`; `endVolume`
    /// holds after it until the next ramp.
    public mutating func setVolumeRamp(fromStartVolume startVolume: Float, toEndVolume endVolume: Float, timeRange: TimeRange) {
        insert(.init(startVolume: startVolume, endVolume: endVolume, timeRange: timeRange))
    }

    /// The ramp in effect at `time`, as ``AudioMixInputParameters/getVolumeRamp(for:)``.
    public func getVolumeRamp(for time: MediaTime) -> AudioMixInputParameters.VolumeRamp? {
        AudioMixInputParameters(self).getVolumeRamp(for: time)
    }

    /// Keeps the ramps in start order; a ramp starting where another does replaces it.
    private mutating func insert(_ ramp: AudioMixInputParameters.VolumeRamp) {
        volumeRamps.removeAll { $0.timeRange.start == ramp.timeRange.start }
        let at = volumeRamps.firstIndex { ramp.timeRange.start < $0.timeRange.start } ?? volumeRamps.count
        volumeRamps.insert(ramp, at: at)
    }
}
