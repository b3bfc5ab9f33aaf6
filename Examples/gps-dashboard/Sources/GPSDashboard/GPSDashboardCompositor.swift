import Foundation
import Reel
import ReelDocuments
import ReelText

/// The `gps-dashboard` compositor: the video as the layer instructions place it, with a
/// dashboard over it for each GPS metadata track the request delivers: speed, altitude,
/// coordinates, GPS time and the route so far on a mini-map, every value interpolated to
/// the frame's time.
///
/// Renders in the source's own format (planar YUV 4:2:0 for camera footage, or BGRA), so
/// the frame is copied once and only the pixels under the dashboard are blended.
public struct GPSDashboardCompositor: AsyncVideoCompositing {
    let style: DashboardStyle
    let panels: [DashboardParameters.Panel]?
    let timelines: [Int32: GPSTrackTimeline]
    private let maps = RouteMapCache()

    /// The registry entry: `"compositor": {"name": "gps-dashboard", "parameters": {...}}`.
    public static let registration = CompositorRegistry.Registration(
        name: "gps-dashboard",
        summary: "speed, altitude, coordinates, GPS time and a route map drawn from GPS metadata tracks over the video"
    ) { configuration throws(ReelError) in
        AsyncVideoCompositorAdapter(try GPSDashboardCompositor(configuration: configuration))
    }

    /// A compositor for one composition: parameters checked, fonts opened, each metadata
    /// track's fixes indexed for interpolation.
    public init(configuration: CompositorConfiguration) throws(ReelError) {
        let parameters = try configuration.parameters.decode(DashboardParameters.self)
        style = try DashboardStyle(parameters: parameters, baseDirectory: configuration.baseDirectory)
        panels = parameters.panels
        timelines = configuration.timedMetadata.mapValues { GPSTrackTimeline(groups: $0) }
        if let panels {
            for (i, p) in panels.enumerated() where configuration.timedMetadata[p.metadataTrackID] == nil && !configuration.timedMetadata.isEmpty {
                throw ReelError(
                    .invalidComposition,
                    "names metadata track \(p.metadataTrackID), which is not in sourceSampleDataTrackIDs \(configuration.timedMetadata.keys.sorted())",
                    field: "compositor.parameters.panels[\(i)].metadataTrackID")
            }
        }
    }

    public var sourcePixelBufferAttributes: PixelBufferAttributes? { PixelBufferAttributes(pixelFormatType: [.yuv420p, .bgra]) }
    public var requiredPixelBufferAttributesForRenderContext: PixelBufferAttributes { PixelBufferAttributes(pixelFormatType: [.yuv420p, .bgra]) }

    public func compose(_ request: AsynchronousVideoCompositionRequest) async throws -> PixelBuffer {
        try Task.checkCancellation()
        let output = Self.baseFrame(for: request)
        let canvas = try Canvas(output)
        let frameArea = Rect(x: 0, y: 0, width: Double(output.width), height: Double(output.height))
        let delivered = request.sourceSampleDataTrackIDs
        let wanted: [(Int32, Rect)] =
            panels.map { $0.map { ($0.metadataTrackID, $0.area?.rect ?? frameArea) } }
            ?? delivered.prefix(1).map { ($0, frameArea) }
        let renderTransform = request.renderContext.renderTransform
        for (trackID, area) in wanted {
            // Rule 1: draw only what the request delivers at this time.
            guard let group = request.sourceTimedMetadata(byTrackID: trackID) else { continue }
            let timeline = timelines[trackID] ?? GPSTrackTimeline(groups: [group])
            guard let (fix, index, fraction) = timeline.fix(at: request.compositionTime) ?? GPSFix(group).map({ ($0, 0, 0) }) else { continue }
            let pixels = area.applying(renderTransform).intersection(frameArea)
            guard !pixels.isEmpty else { continue }
            let map = maps.map(trackID: trackID, timeline: timeline, area: pixels)
            DashboardRenderer(style: style).draw(on: canvas, area: pixels, fix: fix, map: map, index: index, fraction: fraction)
        }
        return output
    }

    /// The video under the dashboard: a straight copy of the one source frame when it fills
    /// the output unchanged (the common case, and the fast one), else the built-in
    /// compositor's rendering of the layer instructions.
    static func baseFrame(for request: AsynchronousVideoCompositionRequest) -> PixelBuffer {
        let context = request.renderContext
        let time = request.compositionTime
        if let standard = request.videoCompositionInstruction as? VideoCompositionInstruction,
            standard.layerInstructions.count == 1, let layer = standard.layerInstructions.first,
            let frame = request.sourceFrame(byTrackID: layer.trackID),
            frame.width == context.width, frame.height == context.height, frame.format == context.pixelFormat,
            context.renderScale == 1, layer.opacity(at: time) >= 1, layer.transform(at: time).isIdentity,
            layer.cropRectangle(at: time).isInfinite
        {
            let output = context.newPixelBuffer()
            frame.copyPixels(into: output)
            return output
        }
        return StandardVideoCompositor.compose(request)
    }
}

/// Route maps by track and area, made on first use and shared by concurrent requests.
final class RouteMapCache: Sendable {
    private let table = Lock<[String: RouteMap]>([:])

    func map(trackID: Int32, timeline: GPSTrackTimeline, area: Rect) -> RouteMap? {
        guard timeline.entries.count >= 2 else { return nil }
        let key = "\(trackID) \(area.minX) \(area.minY) \(area.width) \(area.height)"
        return table.withLock { t in
            if let m = t[key] { return m }
            let s = DashboardRenderer.scale(for: area)
            let m = RouteMap(timeline: timeline, size: DashboardRenderer.mapSize(for: area), lineWidth: max(4 * s, 2))
            t[key] = m
            return m
        }
    }
}
