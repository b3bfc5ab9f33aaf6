import Foundation
import ReelCore
import ReelIO
import Testing

@Suite("Digest")
struct DigestTests {
    // FIPS 180-2's examples.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256OfBytes(text: String, hex: String) throws {
        #expect(try Digest(sha256: Data(text.utf8)).hex == hex)
    }

    @Test func sha256OfAFileReadsItAllInBlocks() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reel-digest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        // Three blocks and a bit: a million 'a's is FIPS 180-2's third example.
        try Data(repeating: UInt8(ascii: "a"), count: 1_000_000).write(to: url)
        #expect(try Digest(sha256OfFileAt: url).hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        var bigger = Data(repeating: 7, count: 3 << 20)
        bigger.append(1)
        try bigger.write(to: url)
        #expect(try Digest(sha256OfFileAt: url) == Digest(sha256: bigger))
    }

    @Test func aMissingFileIsNamed() {
        #expect { try Digest(sha256OfFileAt: URL(fileURLWithPath: "/nonexistent/file.json")) } throws: { error in
            (error as? ReelError)?.code == .fileNotFound && (error as? ReelError)?.path == "/nonexistent/file.json"
        }
    }
}
