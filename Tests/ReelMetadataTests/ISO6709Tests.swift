import Foundation
import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("ISO 6709 location strings")
struct ISO6709Tests {
    @Test func appleForm() throws {
        let l = try ISO6709.parse("+27.1281+100.2508+000.000/")
        #expect(l.latitude == 27.1281)
        #expect(l.longitude == 100.2508)
        #expect(l.altitude == 0)
        let m = try ISO6709.parse("+33.1268-117.3273/")
        #expect(m.latitude == 33.1268 && m.longitude == -117.3273 && m.altitude == nil)
        let n = try ISO6709.parse("-33.8688+151.2093-012.5CRSWGS_84/")
        #expect(n.altitude == -12.5)
        #expect(n.crs == "CRSWGS_84")
    }

    @Test func degreesMinutesSeconds() throws {
        let dm = try ISO6709.parse("+4030.0-07400.0/")
        #expect(close(dm.latitude, 40.5))
        #expect(close(dm.longitude, -74))
        let dms = try ISO6709.parse("+403000-0740030/")
        #expect(close(dms.latitude, 40.5))
        #expect(close(dms.longitude, -(74 + 30.0 / 3600)))
    }

    @Test func formatsLikeQuickTime() throws {
        #expect(ISO6709.string(latitude: 27.1281, longitude: 100.2508, altitude: 0) == "+27.1281+100.2508+000.000/")
        #expect(ISO6709.string(latitude: 33.12677, longitude: -117.3273436) == "+33.1268-117.3273/")
        #expect(ISO6709.string(latitude: -5.5, longitude: 7.25, fractionDigits: 2) == "-05.50+007.25/")
        let s = ISO6709.string(latitude: 12.345678, longitude: -98.765432, altitude: 1234.5, fractionDigits: 6)
        let back = try ISO6709.parse(s)
        #expect(back.latitude == 12.345678 && back.longitude == -98.765432 && back.altitude == 1234.5)
    }

    @Test(arguments: ["", "27.1/", "+27.1/", "+91.0+000.0/", "+27.1+181.0/", "+2.1+100.0/", "+27.1+100.2x/", "+2760.0+100.0/", "+27.1+100.2+/"])
    func rejects(text: String) {
        do {
            _ = try ISO6709.parse(text)
            Issue.record("\"\(text)\" should not parse")
        } catch {
            #expect(error.code == .metadataFormat)
            #expect(error.message.contains("ISO 6709"))
        }
    }

    @Test func randomStringsNeverCrash() {
        var rng = SeededGenerator(seed: 3)
        let alphabet = Array("+-0123456789./CRS ")
        for _ in 0..<3000 {
            let text = String((0..<Int.random(in: 0...30, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            survives { () throws(ReelError) in try ISO6709.parse(text) }
        }
    }

    /// Found by fuzzing: an altitude of hundreds of digits parsed as infinity, which the
    /// writer then wrote as "+inf" and could not read back.
    @Test func anAltitudeTooLongToBeANumberIsAnError() throws {
        let digits = String(repeating: "4", count: 400)
        let error = expectReelError(.metadataFormat) { try ISO6709.parse("+40+151+\(digits)/") }
        #expect(error?.message.contains("altitude") == true)
        #expect(ISO6709.string(latitude: 40, longitude: 151, altitude: .infinity) == ISO6709.string(latitude: 40, longitude: 151))
    }
}
