import Foundation
import Testing

@testable import ReelCaptions

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("iTT")
struct ITTTests {
    /// An iTT file as Apple's tools write them: SMPTE time base, drop-frame labels, styles
    /// and regions in the head.
    static let apple = """
        <?xml version="1.0" encoding="UTF-8" standalone="no"?>
        <tt xmlns="http://www.w3.org/ns/ttml" xmlns:tts="http://www.w3.org/ns/ttml#styling" xmlns:ttm="http://www.w3.org/ns/ttml#metadata"
            xmlns:ttp="http://www.w3.org/ns/ttml#parameter" xmlns:tt_ext="http://www.w3.org/ns/ttml/extension/"
            ttp:timeBase="smpte" ttp:frameRate="30" ttp:frameRateMultiplier="1000 1001" ttp:dropMode="dropNTSC" xml:lang="fr">
          <head>
            <metadata><ttm:title>Film</ttm:title></metadata>
            <styling>
              <style xml:id="normal" tts:fontFamily="sansSerif" tts:fontWeight="normal" tts:fontStyle="normal" tts:color="white" tts:fontSize="100%" tts:textAlign="center"/>
              <style xml:id="loud" style="normal" tts:fontWeight="bold"/>
            </styling>
            <layout>
              <region xml:id="top" tts:origin="0% 0%" tts:extent="100% 15%" tts:displayAlign="before"/>
              <region xml:id="bottom" tts:origin="0% 85%" tts:extent="100% 15%" tts:displayAlign="after"/>
            </layout>
          </head>
          <body style="normal" region="bottom">
            <div begin="00:00:00:00">
              <p begin="00:00:01:00" end="00:01:00:02">Une <span style="loud">ligne</span>
                 et<br/>   <span tts:fontStyle="italic" tts:color="#00ff00">deux</span></p>
              <p region="top" begin="2.5s" dur="500ms" tts:textAlign="left">En haut &amp; <span tts:textDecoration="underline">souligné</span></p>
              <p begin="90f" end="100t">trames</p>
            </div>
          </body>
        </tt>
        """

    @Test func readsApplesStructure() throws {
        let doc = try ITT.read(Data(Self.apple.utf8))
        #expect(doc.warnings.isEmpty)
        #expect(doc.captions.count == 3)
        let first = doc.captions[0]
        #expect(first.text == "Une ligne et\ndeux")
        // Frame 30 and drop-frame 00:01:00;02 (frame 1800) at 30000/1001.
        #expect(first.timeRange == TimeRange(start: MediaTime(value: 30 * 1001, timescale: 30000), end: MediaTime(value: 1800 * 1001, timescale: 30000)))
        #expect(first.style(at: 4).fontWeight == .bold)
        #expect(first.style(at: 0).fontWeight == .normal)
        #expect(first.style(at: 13).italic == true)
        #expect(first.style(at: 13).textColor == .green)
        #expect(first.textAlignment == .center)
        #expect(first.region?.identifier == "bottom")
        let second = doc.captions[1]
        #expect(second.text == "En haut & souligné")
        #expect(second.timeRange == CaptionSamples.range(2500, 3000))
        #expect(second.region == CaptionRegion.top)
        #expect(second.textAlignment == .left)
        #expect(second.style(at: 10).underline == true)
        let third = doc.captions[2]
        #expect(third.timeRange.start == MediaTime(value: 90 * 1001, timescale: 30000))
        // Ticks count at the frame rate when no tick rate is given.
        #expect(third.timeRange.end == MediaTime(value: 100, timescale: 30))
    }

    @Test func writesAWellFormedDocumentWithTheProfilesRequiredStructure() throws {
        var captions = CaptionSamples.portable
        captions.append(
            Caption(
                spans: [
                    .init("big", CaptionStyle(fontWeight: .bold, backgroundColor: .black, fontSizePercent: 150)),
                    .init("漢字", CaptionStyle(ruby: .init("かんじ", position: .after))),
                ],
                timeRange: CaptionSamples.range(9000, 9999),
                region: CaptionRegion(identifier: "9 odd id", x: .cells(2), y: .cells(3), width: .percent(50), height: .percent(20))))
        let data = ITT.write(captions, language: "de")
        // An independent XML parser (libxml2's tree builder) reads it.
        let xml = try XMLDocument(data: data, options: [])
        let root = try #require(xml.rootElement())
        let tt = "http://www.w3.org/ns/ttml"
        #expect(root.localName == "tt")
        #expect(root.uri == tt)
        #expect(root.attribute(forName: "xml:lang")?.stringValue == "de")
        for name in ["ttp:timeBase", "ttp:frameRate", "ttp:frameRateMultiplier"] {
            #expect(root.attribute(forName: name) != nil, "tt lacks \(name)")
        }
        let head = try #require(root.elements(forName: "head").first)
        #expect(head.elements(forName: "styling").first?.elements(forName: "style").isEmpty == false)
        let regions = try #require(head.elements(forName: "layout").first).elements(forName: "region")
        for region in regions {
            #expect(region.attribute(forName: "xml:id") != nil)
            #expect(region.attribute(forName: "tts:origin") != nil)
            #expect(region.attribute(forName: "tts:extent") != nil)
        }
        let regionIDs = Set(regions.compactMap { $0.attribute(forName: "xml:id")?.stringValue })
        let body = try #require(root.elements(forName: "body").first)
        let ps = try #require(body.elements(forName: "div").first).elements(forName: "p")
        #expect(ps.count == captions.count)
        func attribute(_ e: XMLElement, _ name: String) -> String? { e.attributes?.first { $0.name == name }?.stringValue }
        for p in ps {
            #expect(attribute(p, "begin")?.count == 12)
            #expect(attribute(p, "end")?.count == 12)
            if let r = attribute(p, "region") { #expect(regionIDs.contains(r)) }
        }
        let back = try ITT.read(data)
        CaptionSamples.expectSame(back.captions, captions, tolerance: .zero)
        #expect(back.captions[3].region?.x == .cells(2))
        #expect(back.captions[3].style(at: 0).fontSizePercent == 150)
        #expect(back.captions[3].style(at: 3).ruby == CaptionStyle.Ruby("かんじ", position: .after))
    }

    @Test(arguments: [
        ("not xml at all", "not well-formed XML"),
        ("<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"1s\" end=\"2s\">unclosed</body></tt>", "not well-formed XML"),
        ("<html><body/></html>", "not a TTML <tt>"),
        ("<tt><body><div><p begin=\"00:00:0x\" end=\"2s\">a</p></div></body></tt>", "time expression"),
        ("<tt ttp:frameRate=\"-3\" xmlns:ttp=\"p\"/>", "ttp:frameRate"),
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<tt/>", "encoding"),
    ])
    func badInputIsAnErrorNamingTheLine(text: String, phrase: String) {
        #expect {
            try ITT.read(Data(text.utf8))
        } throws: { error in
            guard let e = error as? ReelError else { return false }
            return e.code == .captionFormat && e.field?.hasPrefix("line ") == true && e.message.contains(phrase)
        }
    }

    /// FoundationXML traps on a name with bytes invalid in UTF-8 (found by fuzzing), so such
    /// documents are refused before parsing, naming the line.
    @Test func bytesThatAreNotUTF8AreAnErrorNotACrash() {
        let data = Data("<tt>\n<body tts:".utf8) + Data([0xFF, 0xFF]) + Data("=\"1\"/></tt>".utf8)
        #expect {
            try ITT.read(data)
        } throws: { ($0 as? ReelError)?.field == "line 2" && ($0 as? ReelError)?.message.contains("not UTF-8") == true }
    }

    @Test func aParagraphWithoutAnEndIsSkippedWithAWarning() throws {
        let doc = try ITT.read(Data("<tt>\n<body><div>\n<p begin=\"1s\">open</p><p begin=\"1s\" end=\"2s\">ok</p></div></body></tt>".utf8))
        #expect(doc.captions.map(\.text) == ["ok"])
        #expect(doc.warnings.first?.line == 3)
    }
}
