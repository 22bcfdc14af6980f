import HLS
import LoaderEvents
@testable import Session
import Testing

/// The segments' media as the session reads it from their first bytes (docs/VALIDATION.md): the same rules as `inspect
/// --media`, each said once, as the Loader fetches.
@Suite("Segment media in the session: a start without an independent frame, a timestamp jump, audio moved against video")
struct SegmentMediaSessionTests {
    /// A rung's playlist of 2 s segments from msn 100, a discontinuity before 106, inside a CUE-OUT break from 104 to 108.
    static func playlist() throws -> SessionEvent {
        var t = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:100\n"
        for m in 100..<110 {
            if m == 104 { t += "#EXT-X-CUE-OUT:8\n" }
            if m == 106 { t += "#EXT-X-DISCONTINUITY\n" }
            if m == 108 { t += "#EXT-X-CUE-IN\n" }
            t += "#EXTINF:2,\ns\(m).ts\n"
        }
        let m = try #require(PlaylistParser.parseLenient(t).playlist.media)
        return .loader(.playlist(PlaylistEvent(url: "http://o/v/index.m3u8", rung: 0, rendition: nil, playlist: m, received: 0)))
    }

    static func start(_ msn: Int, video: Double, audio: Double, independent: Bool = true) -> SessionEvent {
        .loader(.mediaStart(rung: 0, msn: msn, videoStart: video, audioStart: audio, independent: independent))
    }

    static func violations(_ f: [SessionFact]) -> [ContinuityFinding] {
        f.compactMap { if case .violation(_, _, let v) = $0 { return v } else { return nil } }
    }

    @Test("clean segments: nothing; each rule named at its segment, once, the A/V move with its break")
    func rules() throws {
        var s = SessionState(url: "http://o/v/index.m3u8")
        _ = s.apply(try Self.playlist(), at: 0)
        var said: [ContinuityFinding] = []
        // Video from 10 s, audio 50 ms before it; msn 103 without its IDR; 106 (after the discontinuity) with audio 300 ms
        // later; 108 starts 10 s late with no discontinuity.
        for m in 100..<110 {
            let video = 10 + Double(m - 100) * 2 + (m >= 108 ? 10 : 0)
            let audio = video - 0.05 + (m >= 106 ? 0.3 : 0)
            said += Self.violations(s.apply(Self.start(m, video: video, audio: audio, independent: m != 103), at: Double(m)))
        }
        // Again: each said once.
        said += Self.violations(s.apply(Self.start(106, video: 22, audio: 22.25), at: 20))
        #expect(said.map(\.rule) == [.segmentNotIndependent, .avOffset, .timestampsContinuous], "\(said.map(\.message))")
        #expect(said.map(\.msn) == [103, 106, 108])
        #expect(said[0].severity == .warning && said[0].section == "Apple HLS authoring spec")
        #expect(
            said[1].message
                == "at msn 106 (after a discontinuity) audio starts 250 ms after video, in msn 105 50 ms before video: 300 ms out of step (in the break at msn 104)"
        )
        #expect(said[2].severity == .error && said[2].section == "RFC 8216bis §4.4.4.3")
        #expect(said[2].message.hasPrefix("msn 108 starts 12.000 s after msn 107"))
        #expect(s.log.contains { $0.text.hasPrefix("rung 0 media: msn 103 opens with a frame that needs an earlier one") })
    }
}
