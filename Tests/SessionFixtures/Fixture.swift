import HLS
import LoaderEvents
import Session

/// Playlists, events and sessions the Session's and the dashboard's tests share (docs/TESTING.md): a four-rung ladder, a
/// 10-segment rung with GAPs and a key rotation, and sessions built from them through the Session's one entry point
/// (`SessionState.reduce`), as a pane builds its own.
public enum Fixture {
    public static let multivariant = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES
        #EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=700000,RESOLUTION=640x360,FRAME-RATE=30,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aac"
        v360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=256x144,FRAME-RATE=30,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aac"
        v144/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2500000,RESOLUTION=1280x720,FRAME-RATE=30,CODECS="hev1.1.6.L93.B0,mp4a.40.2",AUDIO="aac"
        v720/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,FRAME-RATE=60,CODECS="avc1.640028,mp4a.40.2",AUDIO="aac",HDCP-LEVEL=TYPE-0
        v1080/index.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=40000,RESOLUTION=640x360,CODECS="avc1.4d401e",URI="v360/iframes.m3u8"

        """

    /// A rung's playlist: ten 2 s segments from `sequence`, a key every four, `gaps` (indexes) marked EXT-X-GAP.
    public static func media(live: Bool = false, sequence: Int = 0, gaps: Set<Int> = [4, 5]) -> String {
        var s = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n"
        if !live { s += "#EXT-X-PLAYLIST-TYPE:VOD\n" }
        s += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for i in 0..<10 {
            if i % 4 == 0 { s += "#EXT-X-KEY:METHOD=AES-128,URI=\"k\(i / 4).key\"\n" }
            if gaps.contains(i) { s += "#EXT-X-GAP\n" }
            s += "#EXTINF:2.0,\nseg\(sequence + i).ts\n"
        }
        if !live { s += "#EXT-X-ENDLIST\n" }
        return s
    }

    public static func playlist(_ text: String, url: String = "http://origin.test/x/index.m3u8") -> Playlist {
        PlaylistParser.parseLenient(text, options: ParseOptions(url: url)).playlist
    }

    public static var ladder: Ladder { Ladder(playlist(multivariant)) }

    public static func request(
        _ msn: Int, rung: Int = 0, pts: Double? = nil, start: Double = 0, bytes: Int = 200_000, ms: Double = 20, error: String? = nil
    ) -> RequestEvent {
        RequestEvent(
            kind: .segment, url: "http://origin.test/v360/seg\(msn).ts", rung: rung, msn: msn, start: start, ttfbMs: 1, durationMs: ms,
            bytes: bytes, status: error == nil ? 200 : 404, local: error == "GAP", prefetch: false, retries: 0,
            outcome: error == "GAP" ? .gap : RequestOutcome(failure: error), firstPTS: pts)
    }

    /// A session that opened `multivariant` (with `--audio` and `--subs` as given), loaded rung 0 with `media` as its playlist,
    /// fetched segments 0–3 (first PTS 10, 12, 14, 16) and started playing.
    public static func started(_ multivariant: String, media: String, audio: String? = nil, subs: String? = nil) -> SessionState {
        var settings = SessionSettings()
        settings.audio = audio
        settings.subtitles = subs
        var s = SessionState(url: "http://origin.test/master.m3u8", settings: settings)
        s.apply(.opened(url: s.url, playlist: playlist(multivariant), diagnostics: []), at: 0)
        s.apply(.switched(VariantSwitch(t: 0.1, from: nil, to: 0, reason: .start, mechanism: .load)), at: 0.1)
        s.apply(.streamGiven(startMSN: nil), at: 0.1)
        s.apply(.audioGiven(rung: 0), at: 0.1)
        s.apply(
            .loader(
                .playlist(
                    PlaylistEvent(
                        url: "http://origin.test/v144/index.m3u8", rung: 0, rendition: nil, playlist: playlist(media).media!, received: 0.1)
                )),
            at: 0.1)
        for i in 0..<4 { s.apply(.loader(.request(request(i, pts: 10 + Double(i) * 2, start: 0.1 + Double(i) * 0.01))), at: 0.2) }
        s.apply(.playbackStarted, at: 0.3)
        return s
    }

    /// A session that opened `multivariant` at 0, was given `rung` at 0.1 and read its playlist, `media` (at `mediaURL`).
    public static func loaded(_ multivariant: String, rung: Int, media: String, mediaURL: String) -> SessionState {
        var s = SessionState(url: "http://origin.test/master.m3u8")
        s.apply(.opened(url: s.url, playlist: playlist(multivariant), diagnostics: []), at: 0)
        s.apply(.switched(VariantSwitch(t: 0.1, from: nil, to: rung, reason: .start, mechanism: .load)), at: 0.1)
        let m = playlist(media, url: mediaURL).media!
        s.apply(.loader(.playlist(PlaylistEvent(url: mediaURL, rung: rung, rendition: nil, playlist: m, received: 0.1))), at: 0.1)
        return s
    }

    /// A session that opened the ladder, loaded rung 0, read its playlist and fetched segments 0–3 with first PTS 10, 12, 14, 16.
    public static func session(live: Bool = false) -> SessionState {
        var s = loaded(multivariant, rung: 0, media: media(live: live), mediaURL: "http://origin.test/v360/index.m3u8")
        for i in 0..<4 { s.apply(.loader(.request(request(i, pts: 10 + Double(i) * 2, start: 0.1 + Double(i) * 0.01))), at: 0.2) }
        s.apply(.playbackStarted, at: 0.3)
        return s
    }
}

extension SessionState {
    /// Applies `event` at `t` through the Session's one entry point, as the pane does.
    fileprivate mutating func apply(_ event: SessionEvent, at t: Double) { _ = reduce(.event(event), at: t) }
}
