import Foundation
import ReelMetadata

/// The box writer's round trip: a file that parses, with a `mebx` location track
/// appended by ``MP4TrackAppender``, parses again with one more track, and every track
/// keeps its sample bytes.
let folder: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("reel-fuzz-mp4-append-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()
let input = folder.appendingPathComponent("in.mp4")
let output = folder.appendingPathComponent("out.mp4")
let sampleData = folder.appendingPathComponent("samples.bin")
let location = QuickTimeMetadataKey(localID: 1, key: "com.apple.quicktime.location.ISO6709", dataType: .wellKnown(1))
let sample: Data = {
    var table = QuickTimeMetadataKeyTable(keys: [location])
    let item = MetadataItem(identifier: .quickTimeMetadataLocationISO6709, value: .string("+46.5000+006.6000/"))
    let data = try! QuickTimeMetadataSample.encode([item], keys: &table)
    try! data.write(to: sampleData)
    return data
}()
let track = MP4AppendedTrack(
    sampleEntry: MP4SampleEntry(format: "mebx", metadataKeys: [location]),
    handlerName: MP4AppendedTrack.coreMediaMetadataHandlerName, timescale: 1000,
    samples: [.init(offset: 0, size: sample.count, time: 0, duration: 1000)])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    _ = sample
    guard (try? FuzzInput.data(start, count).write(to: input)) != nil else { fatalError("cannot write \(input.path)") }
    guard let source = FuzzInput.run("MP4File(contentsOf:)", { () throws(ReelError) in try MP4File(contentsOf: input) }),
        let before = MP4Fuzzing.exercise(source)
    else { return 0 }
    try? FileManager.default.removeItem(at: output)
    guard
        FuzzInput.run(
            "MP4TrackAppender.write",
            { () throws(ReelError) in
                try MP4TrackAppender.write(input, adding: [track], sampleData: sampleData, to: output)
            }) != nil
    else {
        FuzzInput.require(!FileManager.default.fileExists(atPath: output.path), "a failed append left \(output.path) behind")
        return 0
    }
    let after: [MP4Track], written: MP4File
    do {
        written = try MP4File(contentsOf: output)
        after = try written.tracks()
    } catch {
        FuzzInput.require(false, "the appended file does not parse: \(error)")
        return 0
    }
    FuzzInput.require(after.count == before.count + 1, "\(before.count) tracks became \(after.count)")
    FuzzInput.require(after.last?.format == "mebx" && after.last?.sampleEntries.first?.metadataKeys == [location], "the new track lost its keys")
    let boxes = FuzzInput.run("topLevelBoxes", { () throws(ReelError) in try source.topLevelBoxes() }) ?? []
    for (old, new) in zip(before + [nil], after) {
        let oldSamples = old.flatMap { MP4Fuzzing.samples(of: $0, "old samples") }
        let newSamples = MP4Fuzzing.samples(of: new, "new samples")
        guard let oldSamples else { continue }
        FuzzInput.require(newSamples?.count == oldSamples.count, "track \(new.trackID) has \(newSamples?.count ?? -1) of \(oldSamples.count) samples")
        for (a, b) in zip(oldSamples, newSamples ?? []).prefix(4) {
            // Only bytes inside one box other than the rewritten moov are kept as they were.
            guard boxes.contains(where: { $0.type != "moov" && $0.offset <= a.offset && a.offset + Int64(a.size) <= $0.end }),
                let bytesBefore = FuzzInput.run("old bytes", { () throws(ReelError) in try source.data(of: a) })
            else { continue }
            let bytesAfter = FuzzInput.run("new bytes", { () throws(ReelError) in try written.data(of: b) })
            FuzzInput.require(bytesBefore == bytesAfter, "track \(new.trackID) sample \(a.index) changed")
        }
    }
    let newSamples = FuzzInput.run("appended samples", { () throws(ReelError) in try after.last!.samples() }) ?? []
    FuzzInput.require(
        newSamples.count == 1 && FuzzInput.run("appended bytes", { () throws(ReelError) in try written.data(of: newSamples[0]) }) == sample,
        "the appended sample does not read back")
    return 0
}
