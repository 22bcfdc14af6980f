import HLS
import HLSReport
import MediaFormats
import Testing

/// CEA-608 captions written into H.264 as A/53 `cc_data` (what the origin's captioned video carries; docs/SUBTITLES.md).
@Suite("CEA-608 in H.264: parity, the SEI, one per frame")
struct CEA608Tests {
    @Test("each byte has odd parity: bit 7 set exactly when the low seven bits have an even count")
    func parity() {
        #expect(CEA608.parity(0x14) == 0x94, "two bits: parity bit set")
        #expect(CEA608.parity(0x20) == 0x20, "one bit: left clear")
        #expect(CEA608.parity(0x00) == 0x80)
        #expect(CEA608.Pair(0x14, 0x2F) == CEA608.endOfCaption)
        #expect((0...0x7F).allSatisfy { CEA608.parity(UInt8($0)).nonzeroBitCount % 2 == 1 })
    }

    @Test("a pop-on caption: load (twice), row 15 (twice), the text two characters a pair, end of caption (twice)")
    func popOn() {
        let pairs = CEA608.popOn("ABC")
        #expect(pairs.count == 4 + 2 + 2)
        #expect(pairs[4] == CEA608.Pair(0x41, 0x42))
        #expect(pairs[5] == CEA608.Pair(0x43, 0x00), "an odd length padded with a null")
        #expect(pairs.suffix(2) == [CEA608.endOfCaption, CEA608.endOfCaption])
        #expect(CEA608.popOn("é")[4] == CEA608.Pair(0x5C, 0x00), "é is a standard character of CEA-608's own")
        #expect(CEA608.popOn("€")[4] == CEA608.Pair(0x20, 0x00), "a character CEA-608 has not: a space")
    }

    @Test("the SEI: payload type 4, ITU-T T.35 USA / ATSC GA94 cc_data, the count in five bits, stop bit; no start code inside")
    func sei() {
        let nal = CEA608.sei([CEA608.Pair(0x41, 0x42)])
        #expect(nal[0] == 0x06)
        #expect(nal[1] == 0x04, "user_data_registered_itu_t_t35")
        #expect(Array(nal[3...9]) == [0xB5, 0x00, 0x31] + Array("GA94".utf8))
        #expect(Array(nal[10...13]) == [0x03, 0x41, 0xFF, 0xFC], "user data type 3, process flag and one pair, em_data, marker")
        #expect(nal.last == 0x80)
        // Emulation prevention: a null pair's zero bytes never make 00 00 0x.
        let padded = CEA608.sei(Array(repeating: .padding, count: 3) + [CEA608.Pair(0, 0)])
        let zeros = zip(padded, zip(padded.dropFirst(), padded.dropFirst(2))).contains { $0 == 0 && $1.0 == 0 && $1.1 <= 3 }
        #expect(!zeros)
    }

    @Test("inserted before the first slice of each frame: frame n carries its pairs, the rest padding; other NAL units kept")
    func inserting() {
        // AUD, SPS, IDR slice (first_mb 0), a second slice of the same frame (first_mb ≠ 0), then a P frame.
        let stream: [UInt8] = [
            0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x65, 0x88, 0x10, 0, 0, 1, 0x65, 0x40, 0x11, 0, 0, 1, 0x41, 0x9A,
        ]
        let out = CEA608.inserting([1: [CEA608.Pair(0x41, 0x42)]], into: stream)
        #expect(H264.nalTypes(annexB: out) == [0x09, 0x07, 0x06, 0x05, 0x05, 0x06, 0x01])
        let first = CEA608.sei([.padding])
        let second = CEA608.sei([CEA608.Pair(0x41, 0x42)])
        #expect(out.windows(first) && out.windows(second))
    }
}

@Suite("Captions in the media: found in a segment's bytes, held to CLOSED-CAPTIONS")
struct CaptionPresenceTests {
    static let frame: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x65, 0x88, 0x10]

    @Test("a caption pair or CEA-708 data is captions; null padding, an invalid pair or no cc_data is not")
    func present() {
        #expect(CEA608.present(in: CEA608.inserting([0: [CEA608.Pair(0x41, 0x42)]], into: Self.frame)))
        #expect(!CEA608.present(in: CEA608.inserting([:], into: Self.frame)), "padding only")
        #expect(!CEA608.present(in: Self.frame))
        // A CEA-708 packet start (cc_type 3) and an invalid 608 pair.
        let payload: [UInt8] = [0xB5, 0x00, 0x31] + Array("GA94".utf8) + [0x03, 0x42, 0xFF, 0xFF, 0x02, 0x21, 0xF8, 0x41, 0x42, 0xFF]
        #expect(CEA608.present(in: [0, 0, 1, 0x06, 0x04, UInt8(payload.count)] + payload))
        let invalid: [UInt8] = [0xB5, 0x00, 0x31] + Array("GA94".utf8) + [0x03, 0x41, 0xFF, 0xF8, 0x41, 0x42, 0xFF]
        #expect(!CEA608.present(in: [0, 0, 1, 0x06, 0x04, UInt8(invalid.count)] + invalid), "cc_valid 0")
    }

    static func variant(_ declared: String?, carrying: [Bool]) -> VariantMeasure {
        var v = VariantMeasure(index: 0, name: "360p", measured: carrying.count, listed: carrying.count, peak: 800_000, average: 760_000)
        v.videoCodec = "avc1.4d401e"
        v.closedCaptions = declared
        v.segments = carrying.enumerated().map { i, c in
            var s = SegmentMeasure(msn: i, duration: 2, discontinuity: false)
            s.captions = c
            return s
        }
        return v
    }

    @Test("NONE over captions: captions-none (must); a group over video with none: captions-missing (should); else nothing")
    func findings() {
        let none = MediaChecks.findings(Self.variant("NONE", carrying: [false, true]))
        #expect(none.map(\.rule) == ["captions-none"] && none[0].must && none[0].section == "RFC 8216bis §4.4.6.2")
        #expect(none[0].message.contains("1 of the 2 segments"))
        let missing = MediaChecks.findings(Self.variant("cc", carrying: [false, false]))
        #expect(missing.map(\.rule) == ["captions-missing"] && !missing[0].must)
        #expect(MediaChecks.findings(Self.variant("cc", carrying: [false, true])).isEmpty, "one segment with captions is enough")
        #expect(MediaChecks.findings(Self.variant("NONE", carrying: [false])).isEmpty)
        #expect(MediaChecks.findings(Self.variant(nil, carrying: [true])).isEmpty, "absent: the video may carry some")
    }
}

extension Array where Element == UInt8 {
    fileprivate func windows(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
