import ReelTestSupport
import Testing

@testable import ReelMetadata

@Suite("GPMFStructLayout: TYPE strings")
struct GPMFStructLayoutTests {
    @Test(arguments: [("JlllSSSSBB", 8 + 12 + 8 + 2), ("f[8]L", 36), ("Ff", 8), ("lllllllSS", 32), ("c[4]d", 12), ("Lffff\0", 20)])
    func sizes(type: String, size: Int) throws {
        #expect(try GPMFStructLayout(parsing: type).size == size)
    }

    @Test func arraysAndDescription() throws {
        let layout = try GPMFStructLayout(parsing: "f[8]L")
        #expect(layout.fields == [.init(type: .float, count: 8), .init(type: .uint32)])
        #expect(layout.description == "f[8]L")
    }

    @Test(arguments: ["", "[3]", "f[", "f[]", "f[0]", "f[x]", "f[999]", "?", "Z", "f]"])
    func rejectsBadStrings(type: String) {
        expectReelError(.metadataFormat) { try GPMFStructLayout(parsing: type) }
    }
}
