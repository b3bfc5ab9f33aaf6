/// Finds keys a composition file does not define (a misspelt `"renderSise"` would
/// otherwise be silently ignored), naming the JSON path and the nearest known key.
enum UnknownFields {
    /// A node of the expected shape: the keys an object may have and the shape of each.
    indirect enum Shape: Sendable {
        case object([String: Shape])
        case array(Shape)
        /// Anything (a number, a string, or an object no one checks, such as parameters).
        case any
    }

    static let time = Shape.any
    static let timeRange = Shape.object(["start": time, "duration": time, "end": time])
    static let transform = Shape.object([
        "a": .any, "b": .any, "c": .any, "d": .any, "tx": .any, "ty": .any,
        "scale": .any, "rotate": .any, "translate": .any,
    ])
    static let rect = Shape.object(["x": .any, "y": .any, "width": .any, "height": .any])
    static func ramp(_ value: Shape) -> Shape { .array(.object(["from": value, "to": value, "timeRange": timeRange])) }

    static let document = Shape.object([
        "$schema": .any, "description": .any, "version": .any,
        "sources": .array(.object(["name": .any, "path": .any])),
        "tracks": .array(
            .object([
                "trackID": .any, "mediaType": .any,
                "segments": .array(
                    .object([
                        "source": .any, "sourceTrackID": .any, "sourceStart": time, "duration": time,
                        "empty": time, "scaledDuration": time,
                    ])),
            ])),
        "renderSize": .object(["width": .any, "height": .any]),
        "renderScale": .any, "frameDuration": time, "sourceTrackIDForFrameTiming": .any, "sourceSampleDataTrackIDs": .any,
        "instructions": .array(
            .object([
                "timeRange": timeRange, "requiredSourceSampleDataTrackIDs": .any, "requiredSourceCaptionTrackIDs": .any, "passthroughTrackID": .any,
                "backgroundColor": .any, "containsTweening": .any,
                "layerInstructions": .array(
                    .object([
                        "trackID": .any, "opacity": .any, "transform": transform, "cropRectangle": rect,
                        "opacityRamps": ramp(.any), "transformRamps": ramp(transform), "cropRectangleRamps": ramp(rect),
                    ])),
            ])),
        "compositor": .object(["name": .any, "parameters": .any]),
        "audioMix": .array(.object(["trackID": .any, "volume": .any, "volumeRamps": ramp(.any)])),
        "output": .object([
            "container": .any, "metadataTrackIDs": .any, "metadataFormat": .any, "audio": .any, "audioCodec": .any, "audioSampleRate": .any,
            "audioChannels": .any, "captions": .any,
            "chapters": .array(.object(["title": .any, "start": .any, "duration": .any])),
            "video": .object([
                "codec": .any, "crf": .any, "qp": .any, "bitRate": .any, "preset": .any, "keyframeInterval": .any, "independentGroups": .any,
                "smartRender": .any,
                "pixelFormat": .any,
            ]),
        ]),
    ])

    /// The first unknown key in `document` order (keys sorted, depth first).
    static func first(in top: [String: JSONValue]) -> (field: String, message: String)? {
        check(.object(top), against: document, path: "")
    }

    private static func check(_ value: JSONValue, against shape: Shape, path: String) -> (field: String, message: String)? {
        switch (shape, value) {
        case (.object(let keys), .object(let members)):
            for key in members.keys.sorted() {
                let field = path.isEmpty ? key : path + "." + key
                guard let sub = keys[key] else {
                    let hint = nearest(key, in: Array(keys.keys)).map { " (did you mean \"\($0)\"?)" } ?? ""
                    let known = keys.keys.filter { !$0.hasPrefix("$") }.sorted().joined(separator: ", ")
                    return (field, "is not a field here\(hint); the fields are \(known)")
                }
                if let v = members[key], let problem = check(v, against: sub, path: field) { return problem }
            }
        case (.array(let element), .array(let items)):
            for (i, item) in items.enumerated() {
                if let problem = check(item, against: element, path: "\(path)[\(i)]") { return problem }
            }
        default:
            break
        }
        return nil
    }

    /// The known key closest to `key` when it is a likely typo (edit distance at most 2).
    static func nearest(_ key: String, in keys: [String]) -> String? {
        let scored = keys.map { ($0, distance(Array(key.lowercased()), Array($0.lowercased()))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
