import Foundation
import HLS
import HLSReport
import JSONValue
import Testing

@Suite("inspect report and JSON")
struct InspectReportTests {
    @Test("the JSON has every documented field, with null for absent values")
    func jsonFields() throws {
        let doc = InspectJSON.document(parse(ladder)).text
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(doc.utf8)) as? [String: Any])
        #expect(obj["kind"] as? String == "multivariant")
        #expect(obj["version"] as? Int == 6)
        #expect(obj["independentSegments"] as? Bool == true)
        #expect(obj["media"] is NSNull)
        let mv = try #require(obj["multivariant"] as? [String: Any])
        let v = try #require((mv["variants"] as? [[String: Any]])?.first)
        for key in [
            "uri", "bandwidth", "averageBandwidth", "resolution", "frameRate", "codecs", "audio", "video", "subtitles", "closedCaptions",
        ] {
            #expect(v.keys.contains(key), "variant lacks \(key)")
        }
        #expect(v["resolution"] as? String == "1280x720")
        #expect(v["video"] is NSNull)
        let r = try #require((mv["renditions"] as? [[String: Any]])?.first)
        for key in ["type", "groupId", "name", "language", "default", "autoselect", "uri"] { #expect(r.keys.contains(key)) }
        let i = try #require((mv["iFrameVariants"] as? [[String: Any]])?.first)
        for key in ["uri", "bandwidth", "resolution", "codecs"] { #expect(i.keys.contains(key)) }
    }

    @Test("media segments carry byte range, effective PDT in ms, key, map, gap and parts")
    func jsonSegments() throws {
        let r = parse(
            mediaText(
                """
                #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.123456Z
                #EXT-X-KEY:METHOD=AES-128,URI="k1",IV=0x01
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-BYTERANGE:10@5
                #EXTINF:4,t
                a.mp4
                #EXT-X-GAP
                #EXTINF:4,
                b.mp4
                """, version: 7))
        let doc = InspectJSON.document(r).text
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(doc.utf8)) as? [String: Any])
        #expect(obj["multivariant"] is NSNull)
        let media = try #require(obj["media"] as? [String: Any])
        #expect(media["targetDuration"] as? Int == 6 && media["endList"] as? Bool == true && media["playlistType"] is NSNull)
        let segs = try #require(media["segments"] as? [[String: Any]])
        #expect(segs[0]["programDateTime"] as? String == "2026-01-01T00:00:00.123Z")
        #expect(segs[1]["programDateTime"] as? String == "2026-01-01T00:00:04.123Z")
        #expect((segs[0]["byteRange"] as? [String: Any])?["offset"] as? Int == 5)
        #expect((segs[0]["key"] as? [String: Any])?["method"] as? String == "AES-128")
        #expect((segs[0]["key"] as? [String: Any])?["keyFormat"] is NSNull)
        #expect((segs[0]["map"] as? [String: Any])?["uri"] as? String == "init.mp4")
        #expect(segs[1]["gap"] as? Bool == true && segs[0]["parts"] as? Int == 0 && segs[0]["title"] as? String == "t")
        let diags = try #require(obj["diagnostics"] as? [[String: Any]])
        #expect(diags.allSatisfy { $0["severity"] is String && $0.keys.contains("line") && $0["message"] is String })
    }

    @Test("the readable report shows the ladder, keys, gaps and located diagnostics")
    func text() {
        let r = parse(ladder)
        let out = InspectText.report(r, source: "demo.m3u8")
        #expect(out.contains("demo.m3u8: multivariant playlist, version 6, independent segments"))
        #expect(out.contains("1280x720") && out.contains("2.2M") && out.contains("v720.m3u8"))
        #expect(out.contains("renditions (4):"))
        #expect(out.contains("no problems found") || out.contains("0 errors"))
        let m = parse(mediaText("#EXT-X-KEY:METHOD=AES-128,URI=\"k1\"\n#EXTINF:4,\na.ts\n#EXT-X-GAP\n#EXTINF:8,\nb.ts", target: 6))
        let t = InspectText.report(m, source: "m.m3u8")
        #expect(t.contains("AES-128 identity k1  MSN 0…1"))
        #expect(t.contains("gaps (1):") && t.contains("MSN 1…1  4–12 s"))
        #expect(t.contains("line 8: error: segment 1: EXTINF 8 s rounds above EXT-X-TARGETDURATION 6"))
    }
}
