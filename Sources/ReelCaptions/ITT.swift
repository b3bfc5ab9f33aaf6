import Foundation

/// iTunes Timed Text (`.itt`): the TTML 1.0 profile Apple's caption tools read and write.
///
/// Written: a `tt` document in the TTML namespace with `xml:lang`, `ttp:timeBase="media"`,
/// `ttp:frameRate`/`ttp:frameRateMultiplier` (29.97), a `head` with one default style and a
/// `layout` region per caption region, and a `body/div` with one `p` per caption timed
/// `begin`/`end` to the millisecond; styled runs become `span`s with `tts:` attributes
/// (TTML2's `tts:ruby` for ruby), line breaks `<br/>`.
///
/// Read (through Foundation's `XMLParser`): media and SMPTE time bases, clock times
/// (`HH:MM:SS.fff`, `HH:MM:SS:FF`, drop-frame), offset times (`1.5s`, `40f`, `100t`,
/// `2ms`), `begin`/`end`/`dur` on `body`, `div`, `p` (nested times add up), styles by
/// reference and inline, regions (`tts:origin`, `tts:extent` in `%` or `c`), `tts:textAlign`.
public enum ITT {
    static let ttmlNamespace = "http://www.w3.org/ns/ttml"

    /// The captions of an iTT (TTML) document.
    /// - Throws: `.captionFormat` naming the line when the text is not well-formed XML, the
    ///   root is not a TTML `tt` element, or a time expression is malformed.
    public static func read(_ data: Data) throws(ReelError) -> CaptionDocument {
        try ITTReader.read(data)
    }

    /// An iTT document for `captions`, in language `language` (BCP 47).
    public static func write(_ captions: [Caption], language: String = "en") -> Data {
        var regions: [CaptionRegion] = [.bottom]
        var regionIDs: [String] = ["bottom"]
        func regionID(_ r: CaptionRegion?) -> String {
            let region = r ?? .bottom
            if let i = regions.firstIndex(of: region) { return regionIDs[i] }
            var id = region.identifier.map(xmlName) ?? "region\(regions.count)"
            while regionIDs.contains(id) { id += "_\(regions.count)" }
            regions.append(region)
            regionIDs.append(id)
            return id
        }
        var body = ""
        for caption in captions {
            let region = regionID(caption.region)
            body += "      <p begin=\"\(clock(caption.timeRange.start))\" end=\"\(clock(caption.timeRange.end))\""
            if region != "bottom" { body += " region=\"\(region)\"" }
            if let a = caption.textAlignment { body += " tts:textAlign=\"\(a.rawValue)\"" }
            body += ">"
            for span in caption.spans {
                let lines = span.text.split(separator: "\n", omittingEmptySubsequences: false)
                let text = lines.map { escape(String($0)) }.joined(separator: "<br/>")
                let s = span.style.normalized
                if s.isPlain { body += text; continue }
                var attrs = ""
                if s.fontWeight == .bold { attrs += " tts:fontWeight=\"bold\"" }
                if s.italic == true { attrs += " tts:fontStyle=\"italic\"" }
                if s.underline == true { attrs += " tts:textDecoration=\"underline\"" }
                if let c = s.textColor { attrs += " tts:color=\"\(c)\"" }
                if let c = s.backgroundColor { attrs += " tts:backgroundColor=\"\(c)\"" }
                if let size = s.fontSizePercent { attrs += " tts:fontSize=\"\(CaptionRegion.Dimension.percent(size))\"" }
                if let ruby = s.ruby {
                    body +=
                        "<span tts:ruby=\"container\"\(attrs)><span tts:ruby=\"base\">\(text)</span>"
                        + "<span tts:ruby=\"text\" tts:rubyPosition=\"\(ruby.position)\">\(escape(ruby.text))</span></span>"
                } else {
                    body += "<span\(attrs)>\(text)</span>"
                }
            }
            body += "</p>\n"
        }
        var layout = ""
        for (region, id) in zip(regions, regionIDs) {
            layout +=
                "      <region xml:id=\"\(id)\" tts:origin=\"\(region.x) \(region.y)\" tts:extent=\"\(region.width) \(region.height)\""
                + " tts:displayAlign=\"\(region.displayAlignment)\"/>\n"
        }
        let doc = """
            <?xml version="1.0" encoding="UTF-8"?>
            <tt xmlns="\(ttmlNamespace)" xmlns:tts="\(ttmlNamespace)#styling" xmlns:ttp="\(ttmlNamespace)#parameter" \
            xmlns:ttm="\(ttmlNamespace)#metadata" xml:lang="\(escape(language))" ttp:timeBase="media" \
            ttp:frameRate="30" ttp:frameRateMultiplier="1000 1001">
              <head>
                <styling>
                  <style xml:id="normal" tts:fontFamily="sansSerif" tts:fontWeight="normal" tts:fontStyle="normal" \
            tts:color="white" tts:fontSize="100%"/>
                </styling>
                <layout>
            \(layout)    </layout>
              </head>
              <body style="normal" region="bottom">
                <div>
            \(body)    </div>
              </body>
            </tt>

            """
        return Data(doc.utf8)
    }

    /// `HH:MM:SS.mmm`.
    static func clock(_ time: MediaTime) -> String {
        CueClock.string(milliseconds: CueClock.milliseconds(time), separator: ".")
    }

    /// Text for XML content and attribute values. Characters XML 1.0 cannot hold at all
    /// (most C0 controls) are left out.
    static func escape(_ s: String) -> String {
        let allowed = s.unicodeScalars.filter { ($0.value >= 0x20 && $0.value != 0xFFFE && $0.value != 0xFFFF) || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(String.UnicodeScalarView(allowed)).xmlEscaped
    }

    /// An identifier made a valid XML name (letters, digits, `-`, `_`, `.`; not starting
    /// with a digit).
    static func xmlName(_ s: String) -> String {
        var out = String(s.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        if out.isEmpty || out.first!.isNumber || out.first == "-" || out.first == "." { out = "r" + out }
        return out
    }
}
