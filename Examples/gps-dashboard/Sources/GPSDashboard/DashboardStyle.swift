import Foundation
import Reel
import ReelText

/// Fonts, colours and units of one dashboard, fixed for a render.
struct DashboardStyle: Sendable {
    let face: FontFace
    let units: DashboardParameters.Units
    let text: Color
    let accent: Color
    let panel: Color
    let shadow = Color(red: 0, green: 0, blue: 0, alpha: 0.55)
    let elements: Set<DashboardParameters.Element>

    /// Fonts by pixel size, made once per size.
    private let fonts = FontCache()

    init(parameters: DashboardParameters, baseDirectory: URL?) throws(ReelError) {
        var fontPath = parameters.font ?? FontFace.dejaVuSansPath
        if !fontPath.hasPrefix("/"), let base = baseDirectory { fontPath = base.appendingPathComponent(fontPath).path }
        do {
            face = try FontFace(path: fontPath)
        } catch {
            throw ReelError(error.code, error.message, path: error.path, field: "compositor.parameters.font")
        }
        units = parameters.units ?? .metric
        text = parameters.color?.color ?? .white
        accent = parameters.accent?.color ?? Color(red: 1, green: 0.784, blue: 0.239)
        panel = parameters.panelColor?.color ?? Color(red: 0, green: 0, blue: 0, alpha: 0.5)
        elements = Set(parameters.elements ?? DashboardParameters.Element.allCases)
    }

    func font(_ pixelSize: Int) -> Font { fonts.font(face: face, pixelSize: pixelSize) }

    // MARK: Formatting

    func speed(_ metresPerSecond: Double?) -> (value: String, unit: String) {
        let unit = units == .metric ? "km/h" : "mph"
        guard let v = metresPerSecond, v.isFinite else { return ("--", unit) }
        let converted = units == .metric ? v * 3.6 : v * 2.236_936
        return (String(format: "%.1f", max(converted, 0)), unit)
    }

    func altitude(_ metres: Double?) -> String {
        guard let m = metres, m.isFinite else { return "--" }
        return units == .metric ? String(format: "%.1f m", m) : String(format: "%.0f ft", m * 3.280_84)
    }

    static func coordinates(_ fix: GPSFix) -> String {
        String(format: "%.5f° ", abs(fix.latitude)) + (fix.latitude >= 0 ? "N" : "S")
            + String(format: "   %.5f° ", abs(fix.longitude)) + (fix.longitude >= 0 ? "E" : "W")
    }

    static func time(_ date: Date?) -> String {
        guard let date else { return "--:--:--" }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(secondsFromGMT: 0) ?? utc.timeZone
        let d = utc.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        return String(
            format: "%04d-%02d-%02d  %02d:%02d:%02d.%d UTC", d.year ?? 0, d.month ?? 0, d.day ?? 0,
            d.hour ?? 0, d.minute ?? 0, d.second ?? 0, (d.nanosecond ?? 0) / 100_000_000)
    }
}

/// Fonts of one face by size, shared by concurrent requests.
final class FontCache: Sendable {
    private let table = Lock<[Int: Font]>([:])

    func font(face: FontFace, pixelSize: Int) -> Font {
        table.withLock { t in
            if let f = t[pixelSize] { return f }
            let f = Font(face: face, pixelSize: pixelSize)
            t[pixelSize] = f
            return f
        }
    }
}
