import ReelPreview
import Testing

@Suite struct ByteRangeRequestTests {
    @Test(
        "one range of a body of 100 bytes",
        arguments: [
            ("bytes=0-9", ByteRangeRequest.part(0...9)),
            ("bytes=10-", .part(10...99)),
            ("bytes=90-200", .part(90...99)),
            ("bytes=-10", .part(90...99)),
            ("bytes=-500", .part(0...99)),
            (" Bytes = 5 - 6 ", .part(5...6)),
            ("bytes=99-99", .part(99...99)),
        ])
    func aRange(header: String, expected: ByteRangeRequest) {
        #expect(ByteRangeRequest.parse(header, length: 100) == expected)
    }

    @Test(
        "what cannot be served from a body of 100 bytes: 416",
        arguments: ["bytes=100-", "bytes=100-200", "bytes=-0", "bytes=99999999999999999999999-"])
    func unsatisfiable(header: String) {
        #expect(ByteRangeRequest.parse(header, length: 100) == .unsatisfiable)
    }

    @Test(
        "a header not honoured is ignored: the whole body",
        arguments: [
            nil, "", "bytes", "bytes=", "bytes=-", "items=0-9", "bytes=5-1", "bytes=0-9,20-29", "bytes=a-9", "bytes=0-9x", "bytes=+1-2",
            "bytes=1--2",
        ])
    func ignored(header: String?) {
        #expect(ByteRangeRequest.parse(header, length: 100) == .whole)
    }

    @Test("an empty body has no range to give")
    func emptyBody() {
        #expect(ByteRangeRequest.parse("bytes=0-", length: 0) == .unsatisfiable)
        #expect(ByteRangeRequest.parse("bytes=-1", length: 0) == .unsatisfiable)
        #expect(ByteRangeRequest.parse(nil, length: 0) == .whole)
    }
}
