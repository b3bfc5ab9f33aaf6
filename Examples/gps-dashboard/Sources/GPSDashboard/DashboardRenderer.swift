import Foundation
import Reel
import ReelText

/// Draws one dashboard (speed, altitude, coordinates, GPS time and the route map) for one
/// fix into an area of a frame.
///
/// Layout scales with the area (sizes below are for 1920 x 1080): the GPS time at
/// the top left, the map at the top right, the speed and altitude at the bottom left, the
/// coordinates at the bottom right, each on a translucent panel.
struct DashboardRenderer {
    let style: DashboardStyle

    /// The scale of an area: the layout is drawn for 1920 x 1080 and scaled to fit the
    /// area (at least a quarter, so text stays readable).
    static func scale(for area: Rect) -> Double { max(min(area.height / 1080, area.width / 1920), 0.25) }

    /// The side of the map box in an area.
    static func mapSize(for area: Rect) -> Int { Int((min(area.width, area.height) * 0.3).rounded()) }

    func draw(on canvas: Canvas, area: Rect, fix: GPSFix, map: RouteMap?, index: Int, fraction: Double) {
        let s = Self.scale(for: area)
        func px(_ v: Double) -> Int { Int((v * s).rounded()) }
        let margin = px(32)
        let left = Int(area.minX) + margin, right = Int(area.maxX) - margin
        let top = Int(area.minY) + margin, bottom = Int(area.maxY) - margin
        let pad = px(14)

        // GPS time, top left.
        if style.elements.contains(.time) {
            let font = style.font(px(30))
            let label = DashboardStyle.time(fix.time)
            let w = font.width(of: label)
            canvas.fill(x: left, y: top, width: w + 2 * pad, height: font.lineHeight + 2 * pad, color: style.panel)
            text(canvas, label, font, x: left + pad, baseline: top + pad + font.ascender, color: style.text)
        }

        // Route map, top right.
        if style.elements.contains(.map), let map {
            let x = right - map.size, y = top
            canvas.fill(x: x, y: y, width: map.size, height: map.size, color: style.panel)
            canvas.draw(map.fullRoute, x: x, y: y, color: Color(red: 1, green: 1, blue: 1, alpha: 0.35))
            canvas.draw(map.routeSoFar(index: index, fraction: fraction), x: x, y: y, color: style.accent)
            let p = map.position(index: index, fraction: fraction)
            var dot = CoverageMask(width: px(28), height: px(28))
            let c = Double(dot.width) / 2
            dot.fillCircle(center: Point(x: c, y: c), radius: c - 2)
            canvas.draw(dot, x: x + Int(p.x) - dot.width / 2, y: y + Int(p.y) - dot.height / 2, color: style.text)
            dot.clear()
            dot.fillCircle(center: Point(x: c, y: c), radius: c / 2)
            canvas.draw(dot, x: x + Int(p.x) - dot.width / 2, y: y + Int(p.y) - dot.height / 2, color: style.accent)
        }

        // Speed and altitude, bottom left.
        let showSpeed = style.elements.contains(.speed), showAltitude = style.elements.contains(.altitude)
        if showSpeed || showAltitude {
            let big = style.font(px(110)), unitFont = style.font(px(34)), small = style.font(px(34))
            let speed = style.speed(fix.speed2D ?? fix.speed3D)
            let altitude = "ALT  " + style.altitude(fix.altitude)
            let speedWidth = showSpeed ? big.width(of: "888.8") + px(12) + unitFont.width(of: speed.unit) : 0
            let width = max(speedWidth, showAltitude ? small.width(of: "ALT  -8888.8 m") : 0) + 2 * pad
            let height = (showSpeed ? big.ascender + big.descender : 0) + (showAltitude ? small.lineHeight + pad : 0) + 2 * pad
            let y = bottom - height
            canvas.fill(x: left, y: y, width: width, height: height, color: style.panel)
            var baseline = y + pad
            if showSpeed {
                baseline += big.ascender
                let valueRight = left + pad + big.width(of: "888.8")
                text(canvas, speed.value, big, x: valueRight, baseline: baseline, color: style.accent, alignment: .right)
                text(canvas, speed.unit, unitFont, x: valueRight + px(12), baseline: baseline, color: style.text)
                baseline += big.descender
            }
            if showAltitude {
                baseline += pad + small.ascender
                text(canvas, altitude, small, x: left + pad, baseline: baseline, color: style.text)
            }
        }

        // Coordinates, bottom right.
        if style.elements.contains(.coordinates) {
            let font = style.font(px(30))
            let label = DashboardStyle.coordinates(fix)
            let w = font.width(of: label)
            let h = font.lineHeight + 2 * pad
            canvas.fill(x: right - w - 2 * pad, y: bottom - h, width: w + 2 * pad, height: h, color: style.panel)
            text(canvas, label, font, x: right - pad, baseline: bottom - pad - font.descender, color: style.text, alignment: .right)
        }
    }

    /// Text with a soft shadow one pixel down and right, readable over any footage.
    private func text(
        _ canvas: Canvas, _ string: String, _ font: Font, x: Int, baseline: Int, color: Color,
        alignment: TextAlignment = .left
    ) {
        let offset = max(font.pixelSize / 24, 1)
        canvas.draw(string, font: font, x: x + offset, baseline: baseline + offset, color: style.shadow, alignment: alignment)
        canvas.draw(string, font: font, x: x, baseline: baseline, color: color, alignment: alignment)
    }
}
