import Testing

@testable import HLS

/// EXT-X-MEDIA across tags: language tags (RFC 5646), audio CHANNELS, and the choice the variants' groups offer.
@Suite("Renditions linted: language tags, channels, groups that offer the same choice")
struct LintRenditionsTests {
    static func lint(_ media: String, variants: String = #"#EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="a"\#nv1.m3u8"#) -> [Diagnostic] {
        let text = "#EXTM3U\n\(media)\n\(variants)\n"
        let p = PlaylistParser.parseLenient(text).playlist
        return Lint.check(p).filter {
            $0.message.contains("language tag") || $0.message.contains("CHANNELS") || $0.message.contains("groups offer")
        }
    }

    @Test("RFC 5646's form: languages, extlangs, scripts, regions, variants, extensions, private use; the usual mistakes named")
    func tags() {
        for ok in [
            "en", "de", "en-US", "zh-Hant-TW", "sr-Latn-RS", "es-419", "de-CH-1901", "en-a-bbb-x-a-ccc", "zh-yue-HK", "x-klingon",
            "i-klingon", "sgn-ase", "mis",
        ] {
            #expect(LanguageTag.problem(ok) == nil, "\(ok): \(LanguageTag.problem(ok) ?? "")")
        }
        #expect(LanguageTag.problem("en_US") == "subtags are joined by \"-\", not \"_\"")
        #expect(LanguageTag.problem("english-") == "an empty subtag")
        #expect(LanguageTag.problem("e") == "the language \"e\" is not 2 to 8 letters")
        #expect(LanguageTag.problem("en-US-x") == "\"x\" with no private-use subtag")
        #expect(LanguageTag.problem("en-a") == "the extension \"a\" has no subtag")
        #expect(LanguageTag.problem("en-US-US") == "\"US\" is out of place")
        #expect(LanguageTag.problem("en US") == "a subtag that is not letters and digits")
    }

    @Test("a malformed LANGUAGE is an error; audio without CHANNELS a SHOULD; clean renditions say nothing")
    func renditions() {
        let bad = Self.lint(#"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",LANGUAGE="en_US",CHANNELS="2",URI="en.m3u8""#)
        #expect(bad.map(\.severity) == [.error] && bad.first?.rule == "RFC 8216bis §4.4.6.1", "\(bad)")
        #expect(
            bad.first?.message
                == #"EXT-X-MEDIA NAME="English": LANGUAGE="en_US" is not an RFC 5646 language tag (subtags are joined by "-", not "_")"#)
        let noChannels = Self.lint(#"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",LANGUAGE="en",URI="en.m3u8""#)
        #expect(noChannels.map(\.rule) == ["lint (RFC 8216bis §4.4.6.1 SHOULD)"], "\(noChannels)")
        let clean = Self.lint(
            #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",LANGUAGE="en-GB",ASSOC-LANGUAGE="en",CHANNELS="2",URI="en.m3u8""#)
        #expect(clean.isEmpty, "\(clean)")
    }

    @Test("variants whose audio groups offer different languages: a warning naming each group's; the same choice: nothing")
    func groups() {
        let media = """
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",CHANNELS="2",URI="aac-en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",LANGUAGE="de",CHANNELS="2",URI="aac-de.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="ec3",NAME="English",LANGUAGE="en",CHANNELS="6",URI="ec3-en.m3u8"
            """
        let variants = """
            #EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="aac"
            v1.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="ec3"
            v2.m3u8
            """
        let d = Self.lint(media, variants: variants)
        #expect(d.count == 1 && d.first?.rule == "lint (Apple HLS authoring spec)", "\(d)")
        #expect(
            d.first?.message
                == #"the variants' AUDIO groups offer different renditions ("aac" de, en; "ec3" en): a rung switch changes what can be chosen"#
        )
        let same = media + "\n" + #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="ec3",NAME="Deutsch",LANGUAGE="de",CHANNELS="6",URI="ec3-de.m3u8""#
        #expect(Self.lint(same, variants: variants).isEmpty)
    }
}
