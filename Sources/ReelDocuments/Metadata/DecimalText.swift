import Foundation
import Reel

/// Numbers as the import and export messages write them: the shortest form that reads
/// back as the same Double, without an exponent.
enum DecimalText {
    static func string(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        let shortest = String(value)
        guard shortest.contains("e") || shortest.contains("E") else {
            return shortest.hasSuffix(".0") ? String(shortest.dropLast(2)) : shortest
        }
        var s = String(format: "%.12f", value)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }

    /// Seconds with at most six decimals (microseconds), trailing zeros trimmed.
    static func seconds(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        var s = String(format: "%.6f", value)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }
}
