import ReelCore
import Testing

@Suite("CaptionGroup")
struct CaptionGroupTests {
    static func s(_ v: Int64) -> MediaTime { MediaTime(value: v, timescale: 1) }

    @Test func groupsCutWhereAnyCaptionStartsOrEnds() {
        let a = Caption("a", timeRange: TimeRange(start: Self.s(0), end: Self.s(4)))
        let b = Caption("b", timeRange: TimeRange(start: Self.s(2), end: Self.s(6)))
        let c = Caption("c", timeRange: TimeRange(start: Self.s(8), end: Self.s(9)))
        let empty = Caption("never", timeRange: TimeRange(start: Self.s(3), end: Self.s(3)))
        let groups = CaptionGroup.groups(for: [a, b, c, empty])
        #expect(
            groups.map(\.timeRange) == [
                TimeRange(start: Self.s(0), end: Self.s(2)), TimeRange(start: Self.s(2), end: Self.s(4)),
                TimeRange(start: Self.s(4), end: Self.s(6)), TimeRange(start: Self.s(6), end: Self.s(8)),
                TimeRange(start: Self.s(8), end: Self.s(9)),
            ])
        #expect(groups.map { $0.captions.map(\.text) } == [["a"], ["a", "b"], ["b"], [], ["c"]])
    }

    @Test func noCaptionsNoGroups() {
        #expect(CaptionGroup.groups(for: []).isEmpty)
    }
}
