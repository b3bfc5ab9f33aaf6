import Foundation
import ReelCore
import ReelIO

// Decodes every frame of a clip's first video track to BGRA through AssetReader and
// prints the frame count, the wall time and the frame rate.
//
//   ReelBenchDecode IN.mp4 [bgra|rgba|yuv420p|nv12|gray8]

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: ReelBenchDecode IN [pixel format]\n".utf8))
    exit(2)
}
let format = arguments.count >= 3 ? PixelFormat(rawValue: arguments[2]) ?? .bgra : .bgra

do {
    let reader = try AssetReader(url: URL(fileURLWithPath: arguments[1]))
    guard let track = reader.tracks(withMediaType: .video).first else {
        FileHandle.standardError.write(Data("\(arguments[1]): no video track\n".utf8))
        exit(1)
    }
    let output = AssetReaderTrackOutput(trackID: track.trackID, settings: .video(pixelFormat: format))
    try reader.add(output)
    let start = DispatchTime.now().uptimeNanoseconds
    try reader.startReading()
    var frames = 0
    var checksum = 0
    while let frame = try output.nextFrame() {
        frames += 1
        // Touch the pixels so nothing is optimised away.
        checksum &+= frame.pixelBuffer.withUnsafeBytes(plane: 0) { Int($0[$0.count / 2]) }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print("frames=\(frames) seconds=\(String(format: "%.3f", seconds)) fps=\(String(format: "%.1f", Double(frames) / seconds)) checksum=\(checksum)")
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
