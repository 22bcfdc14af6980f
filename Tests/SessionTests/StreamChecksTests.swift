import HLS
import LoaderEvents
import Testing

@testable import Session

/// The stream checks' transitions (`Session/StreamChecks.swift`), one at a time.
@Suite("Stream checks: each finding said once per playlist, rule and segment, counted and kept (pure)")
struct StreamChecksTests {
    /// A live playlist of 2 s segments from MSN `first`, its segment `renamed` under another URI.
    static func live(from first: Int, renamed: Int? = nil) -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        for msn in first..<(first + 4) { text += "#EXTINF:2,\n\(msn == renamed ? "other" : "s")\(msn).ts\n" }
        return PlaylistParser.parseLenient(text).playlist.media!
    }

    static func read(_ c: inout StreamChecks, _ m: MediaPlaylist, url: String = "http://o/v/index.m3u8", at t: Double) -> [String] {
        c.reloaded(PlaylistEvent(url: url, rung: 0, rendition: nil, playlist: m, received: t), key: "rung 0", url: url, name: "360p", at: t)
            .map(\.rule.rawValue)
    }

    @Test("a segment renamed under its MSN: said once, counted and kept with where; another server's copy is not compared")
    func reloads() {
        var c = StreamChecks(judgesVersions: false)
        #expect(Self.read(&c, Self.live(from: 10), at: 1).isEmpty)
        #expect(Self.read(&c, Self.live(from: 11, renamed: 12), at: 3) == ["uri-changed"])
        #expect(Self.read(&c, Self.live(from: 11, renamed: 12), at: 3.5).isEmpty && Self.read(&c, Self.live(from: 12), at: 5).isEmpty)
        #expect(c.count == 1 && c.violations.map(\.source) == ["360p playlist"])
        #expect(Self.read(&c, Self.live(from: 8), url: "http://cdn-b/v/index.m3u8", at: 6).isEmpty)
    }

    @Test("a segment that opens without a key frame: must under EXT-X-INDEPENDENT-SEGMENTS, should without; once per segment")
    func media() {
        let s = SegmentMedia(msn: 5, duration: 2, discontinuity: false, videoStart: 10, audioStart: 10, independent: false)
        var c = StreamChecks()
        let should = c.segment(s, rung: 0, name: "360p", inBreak: { _ in nil }, at: 1)
        let again = c.segment(s, rung: 0, name: "360p", inBreak: { _ in nil }, at: 2)
        #expect(should.map(\.severity) == [.warning] && again.isEmpty && c.count == 1)
        var declared = StreamChecks()
        declared.opened(independentSegments: true)
        #expect(declared.segment(s, rung: 0, name: "360p", inBreak: { _ in nil }, at: 1).map(\.severity) == [.error])
    }

    @Test("a subtitle rule: once per rendition and rule, counted, not kept for the panel")
    func subtitles() {
        var c = StreamChecks()
        let f = ContinuityFinding(.webvttHeader, .error, "RFC 8216bis §3.1.4", msn: 3, "no WEBVTT header")
        let first = c.subtitle(f, rendition: "en")
        let second = c.subtitle(f, rendition: "en")
        let other = c.subtitle(f, rendition: "de")
        #expect(first && !second && other && c.count == 2 && c.violations.isEmpty)
    }
}
