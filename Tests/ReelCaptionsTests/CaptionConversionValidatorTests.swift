import Testing

@testable import ReelCaptions

@Suite("CaptionConversionValidator")
struct CaptionConversionValidatorTests {
    static let captions: [Caption] = [
        Caption("one\ntwo\nthree\nfour\nfive", timeRange: CaptionSamples.range(0, 1000)),
        Caption(
            spans: [.init("bold", CaptionStyle(fontWeight: .bold)), .init(" orange", CaptionStyle(textColor: CaptionColor(red: 255, green: 128, blue: 0)))],
            timeRange: CaptionSamples.range(500, 2000)),
        Caption("a line far longer than the thirty-two columns of 608", timeRange: CaptionSamples.range(3000, 4000)),
        Caption("emoji 🎬 and ✓", timeRange: CaptionSamples.range(5000, 6000)),
        Caption("backwards", timeRange: TimeRange(start: CaptionSamples.ms(7000), duration: .zero)),
    ]

    @Test func listsEachSCCProblemWithTheCaptionsTimeAndText() {
        let warnings = CaptionConversionValidator(captions: Self.captions, format: .scc).validate()
        #expect(
            warnings.map(\.reason) == [
                .tooManyLines(5, maximum: 4),
                .unsupportedStyle(.bold),
                .unsupportedColor(CaptionColor(red: 255, green: 128, blue: 0)),
                .overlaps(previousIndex: 0),
                .lineTooLong(line: 1, length: 52, maximum: 32),
                .unsupportedCharacters(["🎬", "✓"]),
                .invalidTimeRange,
            ])
        #expect(warnings.map(\.captionIndex) == [0, 1, 1, 1, 2, 3, 4])
        #expect(warnings[0].description == "caption 1 at 0 s \"one / two / three / four / five\": 5 lines, SCC shows at most 4")
        #expect(warnings[3].description == "caption 2 at 0.5 s \"bold orange\": overlaps caption 1; SCC shows one caption at a time")
        #expect(warnings[5].description.hasSuffix("characters outside the CEA-608 set: \"🎬\" (U+1F3AC), \"✓\" (U+2713)"))
    }

    @Test func formatsHoldWhatTheyHold() {
        let itt = CaptionConversionValidator(captions: Array(Self.captions.prefix(4)), format: .itt).validate()
        #expect(itt.isEmpty)
        let srt = CaptionConversionValidator(captions: Array(Self.captions.prefix(4)), format: .srt).validate()
        #expect(srt.map(\.reason) == [.overlaps(previousIndex: 0)])
        let ruby = Caption(spans: [.init("漢字", CaptionStyle(ruby: .init("かんじ")))], timeRange: CaptionSamples.range(0, 1))
        #expect(CaptionConversionValidator(captions: [ruby], format: .srt).validate().map(\.reason) == [.unsupportedStyle(.ruby)])
        #expect(CaptionConversionValidator(captions: CaptionSamples.portable, format: .scc).validate().isEmpty)
    }
}
