import Foundation

/// TTML time expressions (TTML 1.0 §10.3.1) under a document's timing parameters
/// (`ttp:timeBase`, `ttp:frameRate`, `ttp:frameRateMultiplier`, `ttp:subFrameRate`,
/// `ttp:tickRate`, `ttp:dropMode`), as exact rational times.
struct TTMLTime {
    var frameRate: Int64 = 30
    var multiplier: (num: Int64, den: Int64) = (1, 1)
    var subFrameRate: Int64 = 1
    var tickRate: Int64 = 1
    var dropFrame = false

    /// Reads the timing parameters of the `tt` element (attributes by local name).
    mutating func configure(_ a: [String: String]) throws(ReelError) {
        func positive(_ key: String) throws(ReelError) -> Int64? {
            guard let text = a[key] else { return nil }
            guard let v = Int64(text.trimmingCharacters(in: .whitespaces)), v > 0, v <= 1_000_000 else {
                throw ReelError(.captionFormat, "ttp:\(key) \"\(text.prefix(40))\" is not a positive integer")
            }
            return v
        }
        if let v = try positive("frameRate") { frameRate = v; tickRate = v }
        if let v = try positive("subFrameRate") { subFrameRate = v }
        if let v = try positive("tickRate") { tickRate = v }
        if let text = a["frameRateMultiplier"] {
            let parts = text.split(separator: " ").compactMap { Int64($0) }
            guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] <= 1_000_000, parts[1] <= 1_000_000 else {
                throw ReelError(.captionFormat, "ttp:frameRateMultiplier \"\(text.prefix(40))\" is not two positive integers")
            }
            multiplier = (parts[0], parts[1])
        }
        dropFrame = a["timeBase"] == "smpte" && (a["dropMode"] == "dropNTSC" || a["dropMode"] == "dropPAL")
    }

    /// The time a frame count names: frames / (frameRate x multiplier).
    private func frames(_ n: Int64, sub: Int64 = 0) -> MediaTime? {
        guard let den = product(frameRate, multiplier.num, subFrameRate), den <= Int64(Int32.max),
            let count = product(n, subFrameRate), let value = product(count + sub, multiplier.den)
        else { return nil }
        return MediaTime(value: value, timescale: Int32(den))
    }

    /// The product, or nil when it overflows.
    private func product(_ values: Int64...) -> Int64? {
        var p: Int64 = 1
        for v in values {
            let (r, overflow) = p.multipliedReportingOverflow(by: v)
            if overflow { return nil }
            p = r
        }
        return p
    }

    /// `digits[.digits]` as an exact time of units of `scale.num / scale.den` seconds.
    private func decimal(_ text: Substring, scale: (num: Int64, den: Int64)) -> MediaTime? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 12, whole.allSatisfy(\.isASCIIDigit),
            let w = Int64(whole)
        else { return nil }
        var fraction: Int64 = 0, fdiv: Int64 = 1
        if parts.count == 2 {
            let f = parts[1].prefix(6)
            guard !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit), let fv = Int64(f) else { return nil }
            fraction = fv
            for _ in 0..<f.count { fdiv *= 10 }
        }
        let timescale = scale.den * fdiv
        guard timescale <= Int64(Int32.max) else { return nil }
        guard let value = product(w, fdiv).flatMap({ product($0 + fraction, scale.num) }) else { return nil }
        return MediaTime(value: value, timescale: Int32(timescale))
    }

    /// The time of a clock-time or offset-time expression.
    func time(_ raw: String) throws(ReelError) -> MediaTime {
        // Some tools write drop-frame labels with `;` before the frames, as SMPTE does.
        let text = Substring(raw.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ";", with: ":"))
        func bad() -> ReelError { ReelError(.captionFormat, "time expression \"\(raw.prefix(40))\" is malformed") }
        if text.contains(":") {
            let fields = text.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 3 || fields.count == 4,
                fields[0].count >= 2, fields[0].count <= 6, fields[0].allSatisfy(\.isASCIIDigit), let h = Int64(fields[0]),
                fields[1].count == 2, fields[1].allSatisfy(\.isASCIIDigit), let m = Int64(fields[1]), m < 60
            else { throw bad() }
            if fields.count == 3 {
                guard fields[2].prefix(2).count == 2, let s = decimal(fields[2], scale: (1, 1)), s < MediaTime(value: 61, timescale: 1) else { throw bad() }
                return MediaTime(value: (h * 60 + m) * 60, timescale: 1) + s
            }
            let frameParts = fields[3].split(separator: ".", omittingEmptySubsequences: false)
            guard fields[2].count == 2, fields[2].allSatisfy(\.isASCIIDigit), let s = Int64(fields[2]), s < 60,
                frameParts.count <= 2, let f = Int64(frameParts[0]), frameParts[0].count <= 4, f < frameRate,
                frameParts[0].allSatisfy(\.isASCIIDigit)
            else { throw bad() }
            let sub = frameParts.count == 2 ? Int64(frameParts[1].prefix(6)) ?? 0 : 0
            let label = Timecode(hours: Int(h), minutes: Int(m), seconds: Int(s), frames: Int(f), dropFrame: dropFrame)
            guard label.isValid(nominalRate: Int(frameRate)) else { throw bad() }
            guard let t = frames(Int64(label.frameNumber(nominalRate: Int(frameRate))), sub: min(sub, subFrameRate - 1)) else { throw bad() }
            return t
        }
        let units: [(String, (Int64, Int64))] = [("ms", (1, 1000)), ("h", (3600, 1)), ("m", (60, 1)), ("s", (1, 1))]
        for (unit, scale) in units where text.hasSuffix(unit) {
            guard let t = decimal(text.dropLast(unit.count), scale: scale) else { throw bad() }
            return t
        }
        if text.hasSuffix("f"), let n = Int64(text.dropLast()), n >= 0, let t = frames(n) { return t }
        if text.hasSuffix("t"), let n = Int64(text.dropLast()), n >= 0, n < 1 << 50, tickRate <= Int64(Int32.max) {
            return MediaTime(value: n, timescale: Int32(tickRate))
        }
        throw bad()
    }
}
