import Foundation
import Reel
import ReelDocuments
import ReelTesting

/// In-memory sources and composition files for the render tests: no media files needed.
enum RenderTestSupport {
    /// A valid composition file: one source "camera", video track 1 and GPS track 2 over
    /// 2 s, one gps-dashboard instruction.
    static let dashboardJSON = """
        {
          "version": 1,
          "sources": [{"name": "camera", "path": "camera.mp4"}],
          "tracks": [
            {"trackID": 1, "mediaType": "video", "segments": [{"source": "camera"}]},
            {"trackID": 2, "mediaType": "metadata", "segments": [{"source": "camera"}]}
          ],
          "renderSize": {"width": 480, "height": 270},
          "frameDuration": "1/30",
          "sourceSampleDataTrackIDs": [2],
          "instructions": [
            {"timeRange": {"start": 0, "end": "end"}, "requiredSourceSampleDataTrackIDs": [2],
             "layerInstructions": [{"trackID": 1}]}
          ],
          "compositor": {"name": "gps-dashboard", "parameters": {"units": "metric"}}
        }
        """

    static let duration = MediaTime(value: 2, timescale: 1)

    /// What the source "camera" holds: a 480x270 video track 1 and a metadata track 2, 2 s each.
    static var cameraDescription: SourceDescription {
        SourceDescription(
            identifier: "camera",
            tracks: [
                SourceTrackDescription(
                    reference: SourceTrackReference(sourceIdentifier: "camera", trackID: 1), mediaType: .video,
                    timeRange: TimeRange(start: .zero, duration: duration), naturalSize: Size(width: 480, height: 270),
                    nominalFrameDuration: MediaTime(value: 1, timescale: 30)),
                SourceTrackDescription(
                    reference: SourceTrackReference(sourceIdentifier: "camera", trackID: 2), mediaType: .metadata,
                    timeRange: TimeRange(start: .zero, duration: duration)),
            ])
    }

    /// GPS at 5 Hz going north-east and speeding up: 10 fixes over 2 s.
    static func gpsGroups() throws -> [TimedMetadataGroup] {
        var samples: [GPSSample] = []
        for i in 0..<10 {
            let t = Double(i) * 0.2
            var sample = GPSSample(
                seconds: t, latitude: 33.1268 + 0.0001 * Double(i) + 0.00002 * Double(i * i),
                longitude: -117.3273 + 0.00015 * Double(i), altitude: -22.9 + Double(i),
                speed2D: 2 + Double(i), course: 45)
            sample.fix.time = Date(timeIntervalSince1970: 1_574_120_714 + t)
            samples.append(sample)
        }
        return try SyntheticMetadata.gpsGroups(samples)
    }

    /// Sources for the engine: gradient frames and the GPS groups.
    static func sources() throws -> RenderSources {
        var sources = RenderSources()
        let frame = background
        let frames = InMemoryVideoFrameSource(count: 60, frameDuration: MediaTime(value: 1, timescale: 30)) { _ in frame }
        sources.add(frames, for: SourceTrackReference(sourceIdentifier: "camera", trackID: 1))
        sources.add(InMemoryTimedMetadataSource(groups: try gpsGroups()), for: SourceTrackReference(sourceIdentifier: "camera", trackID: 2))
        return sources
    }

    /// The picture of every source frame: a gradient (made once; converting it is slow in
    /// debug builds).
    static let background = SyntheticFrame.make(
        .horizontalGradient(from: Color(red: 0.1, green: 0.3, blue: 0.5), to: Color(red: 0.6, green: 0.5, blue: 0.2)),
        width: 480, height: 270, format: .yuv420p)

    /// Decodes `json`, expecting an error, and returns it as the CLI prints it.
    static func error(decoding json: String) -> ReelError? {
        do {
            _ = try CompositionFile.decode(Data(json.utf8), path: "c.json")
            return nil
        } catch {
            return error
        }
    }
}
