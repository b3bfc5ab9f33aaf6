import Foundation
import ReelCore
import ReelTestSupport
import Testing

@testable import ReelCaptions

@Suite("SCC")
struct SCCTests {
    static func frame(_ n: Int64) -> MediaTime { MediaTime(value: n * 1001, timescale: 30000) }

    @Test func writesPopOnCaptionsWhoseEndOfCaptionFallsOnTheFirstFrame() throws {
        let (data, warnings) = try SCC.write(CaptionSamples.portable)
        #expect(warnings.isEmpty)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("Scenarist_SCC V1.0\n\n"))
        // 1 s is frame 30 (00:00:01;00): the first end-of-caption word is sent then.
        var eocFrames: [Int64] = []
        var edmFrames: [Int64] = []
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            let label = try #require(SCC.timecode(fields[0]))
            #expect(label.isDropFrame)
            let start = Int64(label.frameNumber(nominalRate: 30))
            for (k, w) in fields.dropFirst().enumerated() {
                if w == "942f", fields.dropFirst().dropFirst(k).first == "942f", k == 0 || fields[k] != "942f" { eocFrames.append(start + Int64(k)) }
                if w == "942c", k == 0 || fields[k] != "942c" { edmFrames.append(start + Int64(k)) }
            }
        }
        #expect(eocFrames == [30, 90, 180])
        // 2.5 s is frame 74.925 -> 75; 5 s -> 150; 8 s -> 240.
        #expect(edmFrames == [75, 150, 240])
        // They start lines of their own, for readers that time a line by its timecode.
        #expect(text.contains("\n00:00:01;00\t942f 942f"))
        #expect(text.contains("\n00:00:02;15\t942c 942c"))
    }

    @Test func readsBackWhatItWritesToTheFrame() throws {
        let (data, _) = try SCC.write(CaptionSamples.portable)
        let doc = try SCC.read(data)
        #expect(doc.warnings.isEmpty)
        CaptionSamples.expectSame(doc.captions, CaptionSamples.portable, tolerance: CaptionSamples.halfFrame)
        #expect(doc.captions.map(\.timeRange.start) == [Self.frame(30), Self.frame(90), Self.frame(180)])
    }

    @Test(arguments: [2, 3, 4])
    func channelsAreKeptApart(channel: Int) throws {
        let (data, _) = try SCC.write(CaptionSamples.portable, channel: channel)
        #expect(try SCC.read(data, channel: channel).captions.map(\.text) == CaptionSamples.portable.map(\.text))
        #expect(try SCC.read(data, channel: 1).captions.isEmpty)
    }

    @Test func captionsTooCloseToLoadShowLateWithAWarning() throws {
        let captions = [
            Caption("A long first caption line", timeRange: CaptionSamples.range(0, 1000)),
            Caption("Second caption, many frames", timeRange: CaptionSamples.range(1034, 3000)),
        ]
        let (data, warnings) = try SCC.write(captions)
        #expect(warnings.count == 2)  // the first cannot load before 0 either
        let back = try SCC.read(data).captions
        #expect(back.map(\.text) == captions.map(\.text))
        #expect(back[1].timeRange.start > captions[1].timeRange.start)
    }

    @Test func overlappingCaptionsEndWhenTheNextStarts() throws {
        let captions = [Caption("one", timeRange: CaptionSamples.range(1000, 4000)), Caption("two", timeRange: CaptionSamples.range(2000, 3000))]
        let (data, warnings) = try SCC.write(captions)
        #expect(warnings.count == 1)
        let back = try SCC.read(data).captions
        #expect(back.map(\.text) == ["one", "two"])
        #expect(back[0].timeRange.end == back[1].timeRange.start)
    }

    @Test func decodesRollUp() throws {
        let scc = """
            Scenarist_SCC V1.0

            00:00:01;00\t9425 9425 94ad 94ad 9470 9470 c849

            00:00:02;00\t94ad 94ad 9470 9470 d94f d520

            00:00:03;00\t942c 942c
            """
        let captions = try SCC.read(Data(scc.utf8)).captions
        #expect(captions.map(\.text) == ["HI", "HI\nYOU"])
        #expect(captions.map(\.timeRange) == [TimeRange(start: Self.frame(36), end: Self.frame(64)), TimeRange(start: Self.frame(64), end: Self.frame(90))])
        #expect(captions.allSatisfy { $0.animation == .characterReveal })
    }

    @Test func decodesPaintOnSpecialAndExtendedCharacters() throws {
        // RDC, PAC row 15, "A", special ♪ (1137), "E" then extended É (12 21) replacing it.
        let scc = "Scenarist_SCC V1.0\n\n00:00:00;10\t9429 9429 9470 9470 c180 9137 9137 4580 92a1 92a1\n\n00:00:01;00\t942c 942c\n"
        let captions = try SCC.read(Data(scc.utf8)).captions
        #expect(captions.map(\.text) == ["A♪É"])
        #expect(captions.first?.timeRange == TimeRange(start: Self.frame(14), end: Self.frame(30)))
    }

    @Test func badParityIsSkippedWithAWarningNamingLineAndTime() throws {
        // 9420 with its parity bit cleared (1420) on line 3, third word (frame 2).
        let scc = "Scenarist_SCC V1.0\n\n00:00:00;00\t94ae 94ae 1420 9420 c849 942f 942f\n\n00:00:01;00\t942c 942c\n"
        let doc = try SCC.read(Data(scc.utf8))
        #expect(doc.captions.map(\.text) == ["HI"])
        #expect(doc.warnings.count == 1)
        #expect(doc.warnings.first?.line == 3)
        #expect(doc.warnings.first?.time == Self.frame(2))
        #expect(doc.warnings.first?.description.contains("parity") == true)
    }

    @Test(arguments: [
        ("Scenarist_SCC V1.0\n\n00:00:00;00\t94ae 94g0\n", "line 3", "not four hex digits"),
        ("Scenarist_SCC V1.0\n\n00:00:00;00\t94ae 942\n", "line 3", "not four hex digits"),
        ("Scenarist_SCC V1.0\n\n00:00:00\t94ae\n", "line 3", "not a timecode"),
        ("Scenarist_SCC V1.0\n\n00:01:00;00\t94ae\n", "line 3", "not a timecode"),
        ("WEBVTT\n\n00:00:00;00\t94ae\n", "line 1", "Scenarist_SCC"),
        ("", "line 1", "empty"),
    ])
    func malformedInputIsAnErrorNamingTheLine(text: String, field: String, phrase: String) {
        #expect {
            try SCC.read(Data(text.utf8))
        } throws: { error in
            guard let e = error as? ReelError else { return false }
            return e.code == .captionFormat && e.field == field && e.message.contains(phrase)
        }
    }

    @Test func channelsOutsideOneToFourAreRefused() {
        expectReelError(.invalidArgument) { try SCC.write([], channel: 5) }
        expectReelError(.invalidArgument) { try SCC.read(Data(), channel: 0) }
    }

    /// FFmpeg's SCC demuxer and CEA-608 decoder (cc_dec) read Reel's file to the same text
    /// and times.
    @Test(.requires(.ffmpeg))
    func ffmpegReadsTheSameCaptions() throws {
        let (data, _) = try SCC.write(CaptionSamples.portable)
        let srt = try FFmpegTool.convert(data, input: "in.scc", outputName: "out.srt")
        let theirs = try SRT.read(srt).captions
        // cc_dec writes the indent of a centred line as ASS hard spaces.
        #expect(theirs.map { $0.text.replacingOccurrences(of: "\\h", with: "") } == CaptionSamples.portable.map(\.text))
        let ours = try SCC.read(data).captions
        // FFmpeg reads a drop-frame label as a clock time (00:00:03;00 is 3 s, frame 90 is
        // 3.003 s): the same frame, named by its label.
        func labelTime(_ t: MediaTime) throws -> MediaTime {
            let tc = Timecode(frameNumber: Int(try #require(SCC.frame(t))), nominalRate: 30, dropFrame: true)
            return MediaTime(value: Int64(((tc.hours * 60 + tc.minutes) * 60 + tc.seconds) * 30 + tc.frames), timescale: 30)
        }
        for (a, b) in zip(theirs, ours) {
            // cc_dec's events pass through ASS, which holds centiseconds: within 10 ms.
            let centisecond = MediaTime(value: 1, timescale: 100)
            #expect((a.timeRange.start - (try labelTime(b.timeRange.start))).magnitude <= centisecond, "\(a.text)")
            #expect((a.timeRange.end - (try labelTime(b.timeRange.end))).magnitude <= centisecond, "\(a.text)")
        }
    }

    // MARK: Roll-up and paint-on

    static func seconds(_ s: Double, _ e: Double) -> TimeRange { TimeRange(start: frame(Int64(s * 30)), end: frame(Int64(e * 30))) }

    /// Roll-up as a live captioner sends it: words growing on the base row, rolling up
    /// when a new row starts; three rows, so the top one leaves at the fourth.
    static let rollUp = [
        ("HELLO", 1.0, 1.5), ("HELLO THERE", 1.5, 2.0), ("HELLO THERE\nHOW ARE", 2.0, 2.5), ("HELLO THERE\nHOW ARE YOU", 2.5, 3.0),
        ("HELLO THERE\nHOW ARE YOU\nFINE", 3.0, 3.5), ("HOW ARE YOU\nFINE", 3.5, 3.6), ("HOW ARE YOU\nFINE\nTHANKS", 3.6, 5.0),
    ].map { Caption($0.0, timeRange: seconds($0.1, $0.2), animation: .characterReveal) }

    @Test func writesRollUpThatReadsBackTheSame() throws {
        let (data, warnings) = try SCC.write(Self.rollUp)
        #expect(warnings.isEmpty, "\(warnings)")
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("9426 9426"), "RU3 on CC1")
        #expect(!text.contains("942f"), "no pop-on end of caption")
        let back = try SCC.read(data).captions
        #expect(back.map(\.text) == Self.rollUp.map(\.text))
        #expect(back.map(\.timeRange) == Self.rollUp.map(\.timeRange))
        #expect(back.allSatisfy { $0.animation == .characterReveal })
    }

    @Test func rollUpReadFromAFileIsWrittenAsRollUpAgain() throws {
        // Two-row roll-up on CC3 (field 2), with a mid-row italic word.
        let scc = """
            Scenarist_SCC V1.0

            00:00:01;00\t1525 1525 15ad 15ad 9470 9470 c849

            00:00:02;00\t15ad 15ad 9470 9470 d94f d580 91ae 91ae 4fcb

            00:00:03;00\t15ad 15ad

            00:00:04;00\t152c 152c
            """
        let first = try SCC.read(Data(scc.utf8), channel: 3).captions
        #expect(first.map(\.text) == ["HI", "HI\nYOU OK", "YOU OK"])
        let (data, warnings) = try SCC.write(first, channel: 3)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(String(decoding: data, as: UTF8.self).contains("1525 1525"), "RU2 on CC3")
        let again = try SCC.read(data, channel: 3).captions
        #expect(again.map(\.text) == first.map(\.text))
        #expect(again.map(\.timeRange) == first.map(\.timeRange))
    }

    @Test func writesPaintOnThatReadsBackTheSame() throws {
        // In the upper half, two rows at once, then a third below: paint-on.
        let captions = [("NEWS\nAT TEN", 1.0, 2.0), ("NEWS\nAT TEN\nTONIGHT", 2.0, 3.0), ("NEWS\nAT TEN\nTONIGHT!", 3.0, 4.0)]
            .map { Caption($0.0, timeRange: Self.seconds($0.1, $0.2), region: .top, animation: .characterReveal) }
        let (data, warnings) = try SCC.write(captions)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(String(decoding: data, as: UTF8.self).contains("9429 9429"), "RDC on CC1")
        let back = try SCC.read(data).captions
        #expect(back.map(\.text) == captions.map(\.text))
        #expect(back.map(\.timeRange) == captions.map(\.timeRange))
        #expect(back.allSatisfy { $0.animation == .characterReveal && $0.region == .top })
    }

    @Test func aPaintOnCaptionThatDoesNotContinueIsRedrawnWithAWarning() throws {
        let captions = [
            Caption("FIRST", timeRange: Self.seconds(1, 2), region: .top, animation: .characterReveal),
            Caption("OTHER", timeRange: Self.seconds(2, 3), region: .top, animation: .characterReveal),
        ]
        let (data, warnings) = try SCC.write(captions)
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("erased and drawn again") == true)
        let back = try SCC.read(data).captions
        #expect(back.map(\.text) == ["FIRST", "OTHER"])
        #expect(back[1].timeRange.start > captions[1].timeRange.start)
        #expect(back[1].timeRange.end == captions[1].timeRange.end)
    }

    @Test func popOnAndRollUpMix() throws {
        let captions = [
            Caption("POP", timeRange: Self.seconds(1, 2)),
            Caption("ROLL", timeRange: Self.seconds(2, 3), animation: .characterReveal),
            Caption("ROLL ON", timeRange: Self.seconds(3, 4), animation: .characterReveal),
            Caption("POP AGAIN", timeRange: Self.seconds(5, 6)),
        ]
        let (data, warnings) = try SCC.write(captions)
        #expect(warnings.isEmpty, "\(warnings)")
        let back = try SCC.read(data).captions
        #expect(back.map(\.text) == captions.map(\.text))
        #expect(back.map(\.timeRange) == captions.map(\.timeRange))
    }

    /// FFmpeg's SCC demuxer and cc_dec read Reel's roll-up file to the same text. cc_dec
    /// gives one event a row: the rows showing each time the window rolls, and at the end.
    @Test(.requires(.ffmpeg))
    func ffmpegReadsRollUpToTheSameText() throws {
        let (data, _) = try SCC.write(Self.rollUp)
        let srt = try FFmpegTool.convert(data, input: "in.scc", outputName: "out.srt")
        let theirs = try SRT.read(srt).captions
        // Ours just before each carriage return (at 2, 3 and 3.5 s) and the last.
        let beforeEachRoll = [1, 3, 4, 6].map { Self.rollUp[$0].text }
        #expect(theirs.map { $0.text.replacingOccurrences(of: "\\h", with: "") } == beforeEachRoll)
        // The erase at 5 s (00:00:05;00) ends the last.
        #expect(theirs.last?.timeRange.end == MediaTime(value: 5, timescale: 1))
    }
}
