import HLS
import HLSReport
import JSONValue
import MediaFormats
import Testing

/// SCTE-35 messages and the breaks a playlist announces (docs/EVENTS.md). The messages are real ones from public playlists;
/// the values expected were read off them by an independent decoder (the Python `threefive` package) and by hand.
@Suite("SCTE-35 and breaks: each message decoded, each break planned against what the playlist holds")
struct CueTests {
    /// time_signal with a Provider Placement Opportunity Start (duration, AiringID UPID).
    static let timeSignal = "/DA0AAAAAAAAAAAABQb+ADAQ6QAeAhxDVUVJQAAAO3/PAAEUrEoICAAAAAAg+2UBNAAANvrtoQ=="
    /// splice_insert out of the network, a 15 s break with auto return.
    static let spliceInsert = "/DAlAAAAAAAAAP/wFAUAAAABf+/+ANgNkv4AFJlwAAEBAQAA5xULLA=="
    /// time_signal with a Provider Placement Opportunity End, then an avail descriptor.
    static let placementEnd = "/DA5AAAAAAAA/wCABQb+aDhDgAAjAhdDVUVJQAAAV3+fCAgAAAAAIxDjqDUCAAAIQ1VFSQAAAABSV+PX"
    /// `spliceInsert` as EXT-X-DATERANGE writes it (RFC 8216bis §4.4.5.1.1).
    static let spliceInsertHex = "0xFC302500000000000000FFF01405000000017FEFFE00D80D92FE00149970000101010000E7150B2C"

    @Test("time_signal and segmentation descriptors: moment, event, type, duration, UPID; the CRC checked")
    func timeSignalDecoded() throws {
        let i = try SCTE35.decode(text: Self.timeSignal).get()
        #expect(i.command == .timeSignal(pts: 3_150_057) && i.crc == 0x36FA_EDA1 && i.tier == 0 && !i.encrypted)
        guard case .segmentation(let s)? = i.descriptors.first else { Issue.record("\(i.descriptors)"); return }
        #expect(s.eventID == 0x4000_003B && !s.cancel && s.duration == 18_132_042 && s.typeID == 0x34)
        #expect(s.typeName == "Provider Placement Opportunity Start" && s.upidType == 8 && s.upid == [0, 0, 0, 0, 0x20, 0xFB, 0x65, 0x01])
        #expect(s.segmentNum == 0 && s.segmentsExpected == 0)
        #expect(
            SCTE35.summary(i)
                == "time_signal at 35.001 s; Provider Placement Opportunity Start (event 1073741883, 201.467 s, AiringID 0x0000000020FB6501)"
        )
        let end = try SCTE35.decode(text: Self.placementEnd).get()
        #expect(end.command == .timeSignal(pts: 0x6838_4380) && end.tier == 8 && end.descriptors.count == 2)
        guard case .segmentation(let e)? = end.descriptors.first, case .other(tag: 0, _)? = end.descriptors.last else {
            Issue.record("\(end.descriptors)")
            return
        }
        #expect(e.eventID == 0x4000_0057 && e.duration == nil && e.typeName == "Provider Placement Opportunity End" && e.segmentNum == 2)
    }

    @Test("splice_insert: out, its moment and break; base64 and 0x-hex give the same message")
    func spliceInsertDecoded() throws {
        let i = try SCTE35.decode(text: Self.spliceInsert).get()
        guard case .spliceInsert(let s) = i.command else { Issue.record("\(i.command)"); return }
        #expect(s.eventID == 1 && !s.cancel && s.outOfNetwork && !s.immediate && s.pts == 14_159_250)
        #expect(s.breakDuration == 1_350_000 && s.autoReturn && s.uniqueProgramID == 1 && s.availNum == 1 && s.availsExpected == 1)
        #expect(i.tier == 0xFFF && i.crc == 0xE715_0B2C)
        #expect(SCTE35.summary(i) == "splice_insert event 1 out at 157.325 s, break 15.000 s (auto return)")
        #expect(try SCTE35.decode(text: Self.spliceInsertHex).get() == i)
    }

    @Test("a message that is not one says why: a changed byte (CRC), cut short, not a section, not text")
    func undecodable() {
        var bad = Array(Self.spliceInsertHex)
        bad[42] = bad[42] == "E" ? "F" : "E"
        guard case .failure(.crc) = SCTE35.decode(text: String(bad)) else { Issue.record("a changed byte decoded"); return }
        #expect(SCTE35.decode(text: String(Self.spliceInsertHex.dropLast(8))) == .failure(.truncated("the section (section_length 37)")))
        #expect(SCTE35.decode(text: "0x1234567890ABCDEF1234567890ABCDEF12") == .failure(.tableID(0x12)))
        #expect(SCTE35.decode(text: "0xFC01") == .failure(.tooShort(2)))
        #expect(SCTE35.decode(text: "/DA0AAAA+…AAg+2UBNAAANvrtoQ==") == .failure(.notText))
        #expect(
            SCTE35.DecodeError.crc(expected: 0xE715_0B2C, found: 0xE715_0B2D).description
                == "CRC_32 0xE7150B2D where the bytes give 0xE7150B2C")
    }

    static func media(_ text: String) throws -> MediaPlaylist {
        try #require(PlaylistParser.parseLenient(text).playlist.media)
    }

    static let vod = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-TARGETDURATION:8
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXTINF:8.008,
        1.ts
        #EXT-OATCLS-SCTE35:\(timeSignal)
        #EXT-X-CUE-OUT:DURATION=15
        #EXTINF:8,
        2.ts
        #EXT-X-CUE-OUT-CONT:ElapsedTime=8,Duration=15,SCTE35=\(spliceInsert)
        #EXTINF:7,
        3.ts
        #EXT-X-CUE-IN
        #EXTINF:8.008,
        4.ts
        #EXT-X-ENDLIST
        """

    @Test("CUE-OUT … CUE-IN: where it starts, planned against the segments in it, its messages in order; no diagnostic")
    func cueOutBreak() throws {
        let r = PlaylistParser.parseLenient(Self.vod)
        let m = try #require(r.playlist.media)
        let b = Cues.breaks(in: m)
        #expect(b.count == 1 && r.diagnostics.isEmpty, "\(r.diagnostics)")
        let k = try #require(b.first)
        #expect(k.source == .cueOut && k.startMSN == 1 && abs(k.start - 8.008) < 1e-9 && k.planned == 15 && k.actual == 15 && k.closed)
        #expect(
            k.cues.map(\.tag) == ["EXT-OATCLS-SCTE35", "EXT-X-CUE-OUT-CONT"] && k.cues.map(\.text) == [Self.timeSignal, Self.spliceInsert])
        let text = BreaksReport.text(m)
        #expect(text.first == "breaks (1):" && text[1] == "  CUE-OUT at MSN 1  8.008 s  planned 15 s, lasts 15 s", "\(text)")
        #expect(text[3] == "    EXT-X-CUE-OUT-CONT: splice_insert event 1 out at 157.325 s, break 15.000 s (auto return)")
    }

    @Test("a break joined inside (live), one inside another, an IN without an OUT, an OUT never ended, a plan the segments miss")
    func cueChecks() throws {
        // A live window that starts 12 s into a 30 s break: it began 12 s before its first segment.
        let live = try Self.media(
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:40\n#EXT-X-CUE-OUT-CONT:12/30\n#EXTINF:6,\na.ts\n#EXT-X-CUE-OUT-CONT:18/30\n#EXTINF:6,\nb.ts\n"
        )
        let j = try #require(Cues.breaks(in: live).first)
        #expect(j.startMSN == 40 && j.start == -12 && j.planned == 30 && j.actual == 24 && !j.closed, "\(j)")
        #expect(BreaksReport.text(live)[1] == "  CUE-OUT at MSN 40  -12 s  planned 30 s, so far 24 s (no end in the playlist)")
        // A provider's break inside a network's: each CUE-IN ends the innermost.
        let nested = PlaylistParser.parseLenient(
            "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-CUE-OUT:16\n#EXTINF:4,\na.ts\n#EXT-X-CUE-OUT:4\n#EXTINF:4,\nb.ts\n#EXT-X-CUE-IN\n#EXTINF:4,\nc.ts\n#EXTINF:4,\nd.ts\n#EXT-X-CUE-IN\n#EXTINF:4,\ne.ts\n#EXT-X-ENDLIST\n"
        )
        let n = Cues.breaks(in: try #require(nested.playlist.media))
        #expect(n.map(\.startMSN) == [0, 1] && n.map(\.actual) == [16, 4] && n.allSatisfy(\.closed), "\(n)")
        #expect(nested.diagnostics.map(\.severity) == [.info], "\(nested.diagnostics)")
        // An IN with no OUT; an OUT the ended playlist never ends; a 30 s plan whose break holds 12 s (more than 4 s apart).
        let wrong = PlaylistParser.parseLenient(
            "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-CUE-IN\n#EXTINF:4,\na.ts\n#EXT-X-CUE-OUT:30\n#EXTINF:4,\nb.ts\n#EXTINF:4,\nc.ts\n#EXTINF:4,\nd.ts\n#EXT-X-CUE-IN\n#EXT-X-CUE-OUT:8\n#EXTINF:4,\ne.ts\n#EXT-X-ENDLIST\n"
        )
        let messages = wrong.diagnostics.map(\.description)
        #expect(
            messages == [
                "line 3: warning: EXT-X-CUE-IN before msn 0 ends no break (no EXT-X-CUE-OUT before it) (cue)",
                "line 6: warning: the break at msn 1 is planned 30 s and holds 12 s of segments, more than a target duration (4 s) apart (cue)",
                "line 14: warning: EXT-X-CUE-OUT at msn 4 has no EXT-X-CUE-IN: the playlist ends inside the break (cue)",
            ], "\(messages)")
    }

    @Test("EXT-X-DATERANGE with SCTE35-OUT then SCTE35-IN of one ID: one break, its messages decoded, kept when written back")
    func dateRangeBreak() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:4
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
            #EXTINF:4,
            a.ts
            #EXT-X-DATERANGE:ID="splice-1",START-DATE="2026-01-01T00:00:04.000Z",PLANNED-DURATION=15,SCTE35-OUT=\(Self.spliceInsertHex)
            #EXTINF:4,
            b.ts
            #EXTINF:4,
            c.ts
            #EXT-X-DATERANGE:ID="splice-1",START-DATE="2026-01-01T00:00:04.000Z",END-DATE="2026-01-01T00:00:12.000Z",SCTE35-IN=0xFC01
            #EXTINF:4,
            d.ts
            """
        let r = PlaylistParser.parseLenient(text)
        let m = try #require(r.playlist.media)
        let b = Cues.breaks(in: m)
        #expect(b.count == 1)
        let k = try #require(b.first)
        #expect(k.source == .dateRange(id: "splice-1") && k.startMSN == 1 && k.start == 4 && k.planned == 15 && k.actual == 8 && k.closed)
        #expect(k.cues.map(\.tag) == ["SCTE35-OUT", "SCTE35-IN"])
        let lines = BreaksReport.text(m)
        #expect(lines[2] == "    SCTE35-OUT: splice_insert event 1 out at 157.325 s, break 15.000 s (auto return)", "\(lines)")
        #expect(lines[3] == "    SCTE35-IN: cannot decode SCTE-35 (line 12): 2 bytes, shorter than a splice_info_section")
        let json = BreaksReport.json(m)
        guard case .array(let breaks) = json, case .object(let first)? = breaks.first else { Issue.record("\(json)"); return }
        let fields = Dictionary(first, uniquingKeysWith: { a, _ in a })
        #expect(fields["source"] == .string("daterange") && fields["id"] == .string("splice-1") && fields["actual"] == .double(8))
        // Written back, the SCTE35 attributes are still there (the parser checks them, the writer keeps them).
        let again = PlaylistWriter.write(r.playlist)
        #expect(again.contains("SCTE35-OUT=\(Self.spliceInsertHex)") && again.contains("SCTE35-IN=0xFC01"), "\(again)")
    }
}
