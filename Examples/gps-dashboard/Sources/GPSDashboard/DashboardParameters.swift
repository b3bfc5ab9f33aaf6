import Reel
import ReelDocuments

/// The `gps-dashboard` compositor's parameters (the composition file's
/// `compositor.parameters`); every field is optional.
///
/// ```json
/// "parameters": {
///   "units": "metric",
///   "color": "#FFFFFF", "accent": "#FFC83D", "panelColor": "#00000080",
///   "font": "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
///   "elements": ["speed", "altitude", "coordinates", "time", "map"],
///   "panels": [{"metadataTrackID": 2, "area": {"x": 0, "y": 0, "width": 960, "height": 1080}}]
/// }
/// ```
public struct DashboardParameters: Sendable, Hashable, Decodable {
    /// `metric` (km/h, m) or `imperial` (mph, ft).
    public var units: Units?
    /// Text colour.
    public var color: CompositionFile.ColorValue?
    /// The speed figure and the route so far.
    public var accent: CompositionFile.ColorValue?
    /// The translucent panels under the text and the map.
    public var panelColor: CompositionFile.ColorValue?
    /// A TrueType/OpenType font file; DejaVu Sans by default. Relative paths are taken
    /// from the composition file's folder.
    public var font: String?
    /// What to draw; all of them by default.
    public var elements: [Element]?
    /// Where to draw the dashboard of which metadata track. By default one dashboard over
    /// the whole frame for the first metadata track a request delivers.
    public var panels: [Panel]?

    public enum Units: String, Sendable, Hashable, Decodable {
        case metric, imperial
    }

    public enum Element: String, Sendable, Hashable, Decodable, CaseIterable {
        case speed, altitude, coordinates, time, map
    }

    /// One dashboard: the metadata track it shows and the area of the frame it lays out in
    /// (render coordinates; the whole frame when absent).
    public struct Panel: Sendable, Hashable, Decodable {
        public var metadataTrackID: Int32
        public var area: CompositionFile.RectValue?
    }

    public init(units: Units? = nil, panels: [Panel]? = nil) {
        self.units = units
        self.panels = panels
    }
}
