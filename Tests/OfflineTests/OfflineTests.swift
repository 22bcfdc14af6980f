import Foundation
import HLS
import Testing

@testable import Offline

/// A multivariant playlist shaped like a real ladder: AVC and HEVC rungs, PQ, an audio group with three languages, subtitles.
let ladder = """
    #EXTM3U
    #EXT-X-VERSION:7
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="a/en.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Français",LANGUAGE="fr",URI="a/fr.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",LANGUAGE="de-DE",URI="a/de.m3u8"
    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="s/en.m3u8"
    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Español",LANGUAGE="es",URI="s/es.m3u8"
    #EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=700000,CODECS="avc1.4d401e,mp4a.40.2",RESOLUTION=640x360,AUDIO="aac",SUBTITLES="subs"
    v360/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=2500000,AVERAGE-BANDWIDTH=2200000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1280x720,AUDIO="aac",SUBTITLES="subs"
    v720/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=2000000,AVERAGE-BANDWIDTH=1800000,CODECS="hvc1.2.4.L123.B0,mp4a.40.2",RESOLUTION=1280x720,VIDEO-RANGE=PQ,AUDIO="aac",SUBTITLES="subs"
    h720/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=6000000,AVERAGE-BANDWIDTH=5500000,CODECS="avc1.640032,mp4a.40.2",RESOLUTION=1920x1080,AUDIO="aac",SUBTITLES="subs"
    v1080/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=70000,CODECS="mp4a.40.2",AUDIO="aac"
    a/en.m3u8
    """

func multivariant(_ text: String = ladder) -> MultivariantPlaylist {
    guard case .multivariant(let m) = PlaylistParser.parseLenient(text).playlist.body else { fatalError("not a multivariant") }
    return m
}

func select(_ o: SelectionOptions, refused: Set<Int> = []) -> Selection? {
    if case .success(let s) = Selector.select(multivariant(), o, refused: refused) { return s }
    return nil
}

func qualifier(_ s: String) -> VariantQualifier {
    if case .success(let q) = VariantQualifier.parse(s) { return q }
    fatalError("not a qualifier: \(s)")
}

@Suite("Download selection: which variant and renditions are kept, and why (pure)")
struct SelectionTests {
    @Test("no option: the highest video variant, the default audio, every subtitle")
    func defaults() throws {
        let s = try #require(select(SelectionOptions()))
        let m = multivariant()
        #expect(m.variants[s.variant].uri == "v1080/index.m3u8")
        #expect(s.audio.map { m.renditions[$0].language } == ["en"])
        #expect(s.subtitles.map { m.renditions[$0].language } == ["en", "es"])
        #expect(s.reasons.first?.contains("1920x1080") == true)
    }

    @Test("--max-resolution and --max-bitrate cap the ladder; the audio-only variant is never preferred to video")
    func caps() throws {
        var o = SelectionOptions()
        o.maxHeight = 360
        #expect(multivariant().variants[try #require(select(o)).variant].uri == "v360/index.m3u8")
        o.maxHeight = nil
        o.maxBitrate = 2_000_000 // AVERAGE-BANDWIDTH counts: h720 (1.8M) fits, v720 (2.2M) does not
        #expect(multivariant().variants[try #require(select(o)).variant].uri == "h720/index.m3u8")
        o.maxBitrate = 100_000
        #expect(multivariant().variants[try #require(select(o)).variant].uri == "a/en.m3u8")
        o.maxBitrate = 1000
        guard case .failure(let e) = Selector.select(multivariant(), o) else {
            Issue.record("a cap below the ladder chose a variant"); return
        }
        #expect(e.description.contains("no variant within"))
    }

    @Test("--variant: the first qualifier that matches wins; a | list is a preference order")
    func qualifiers() throws {
        var o = SelectionOptions()
        o.qualifiers = [qualifier("avg<=3M,codec=hvc1|avc1")]
        #expect(multivariant().variants[try #require(select(o)).variant].uri == "h720/index.m3u8")
        o.qualifiers = [qualifier("avg<=3M,codec=avc1|hvc1")]
        #expect(multivariant().variants[try #require(select(o)).variant].uri == "v720/index.m3u8")
        o.qualifiers = [qualifier("codec=av01"), qualifier("range=PQ")]
        #expect(multivariant().variants[try #require(select(o)).variant].uri == "h720/index.m3u8")
        o.qualifiers = [qualifier("codec=av01")]
        #expect(select(o) == nil)
        #expect(throws: Never.self) { _ = qualifier("height<=720p,fps<=30") }
        if case .success = VariantQualifier.parse("speed<=3") { Issue.record("an unknown condition parsed") }
        if case .success = VariantQualifier.parse("avg<=lots") { Issue.record("a bad bitrate parsed") }
    }

    @Test("a variant refused for DRM is passed over for the next that qualifies")
    func refused() throws {
        let m = multivariant()
        let top = try #require(m.variants.firstIndex { $0.uri == "v1080/index.m3u8" })
        let s = try #require(select(SelectionOptions(), refused: [top]))
        #expect(m.variants[s.variant].uri == "v720/index.m3u8")
        #expect(s.reasons.contains { $0.contains("DRM") })
    }

    @Test("--audio languages match by prefix, all keeps the group, a missing language is a warning and the default stays")
    func audio() throws {
        let m = multivariant()
        var o = SelectionOptions()
        o.audio = AudioChoice.parse("de,fr")
        var s = try #require(select(o))
        #expect(Set(s.audio.map { m.renditions[$0].language ?? "" }) == ["de-DE", "fr"])
        o.audio = .all
        s = try #require(select(o))
        #expect(s.audio.count == 3)
        o.audio = AudioChoice.parse("ja")
        s = try #require(select(o))
        #expect(s.audio.map { m.renditions[$0].language } == ["en"])
        #expect(s.warnings.contains { $0.contains("no audio rendition in ja") })
        o.subtitles = .none
        #expect(try #require(select(o)).subtitles.isEmpty)
        o.subtitles = SubtitleChoice.parse("es")
        #expect(try #require(select(o)).subtitles.map { m.renditions[$0].language } == ["es"])
    }

    @Test("units: rates, heights and durations")
    func units() {
        #expect(parseRate("3M") == 3_000_000 && parseRate("800k") == 800_000 && parseRate("-1") == nil)
        #expect(parseHeight("720p") == 720 && parseHeight("1280x720") == 720 && parseHeight("x") == nil)
        #expect(parseDuration("30d") == 30 * 86400 && parseDuration("48h") == 48 * 3600 && parseDuration("45s") == 45)
        #expect(parseDuration("0") == nil && parseDuration("soon") == nil)
    }
}

@Suite("Download keys: storage and playback clocks (pure)")
struct ExpiryTests {
    func key(storage: Double?, playback: Double?, firstPlay: Double? = nil) -> StoredKey {
        var k = StoredKey(
            uri: "https://o/k0.key", file: "keys/k0.sealed", id: "k0", method: "AES-128", fingerprint: "5bd4a1c2", fetched: 1000)
        k.storageDuration = storage
        k.playbackDuration = playback
        k.firstPlay = firstPlay
        return k
    }

    @Test("storage runs from the fetch; playback only once armed by the first play")
    func clocks() {
        let k = key(storage: 100, playback: 10)
        #expect(k.expiry(now: 1099) == nil)
        #expect(k.expiry(now: 1100)?.clock == .storage)
        #expect(k.countdown(now: 1050) == "storage 50s, playback 10s from first play")
        var m = DownloadManifest(source: "s", created: 1000, entry: "index.m3u8", live: false)
        m.keys = [k]
        m.armPlayback(now: 1020)
        #expect(m.keys[0].firstPlay == 1020)
        m.armPlayback(now: 1025)
        #expect(m.keys[0].firstPlay == 1020, "a second play does not rearm")
        #expect(m.expired(now: 1029) == nil)
        let e = m.expired(now: 1030)
        #expect(e?.clock == .playback && e?.at == 1030)
        #expect(e?.description.hasPrefix("key 5bd4… expired (playback) at 1970-01-01T00:17:10Z") == true)
    }

    @Test("no durations: never expires")
    func none() {
        #expect(key(storage: nil, playback: nil).expiry(now: .greatestFiniteMagnitude) == nil)
        #expect(key(storage: nil, playback: nil).countdown(now: 0) == "no expiry")
    }
}

@Suite("Download playlists: local, relative, without what only a live origin answers (pure)")
struct RewriteTests {
    let source = """
        #EXTM3U
        #EXT-X-VERSION:9
        #EXT-X-TARGETDURATION:4
        #EXT-X-MEDIA-SEQUENCE:100
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3
        #EXT-X-PART-INF:PART-TARGET=1
        #EXT-X-MAP:URI="https://cdn/init.mp4?t=1",BYTERANGE="700@0"
        #EXT-X-KEY:METHOD=SAMPLE-AES,URI="https://keys/k1",IV=0x01,KEYFORMAT="identity"
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z
        #EXTINF:4,
        #EXT-X-BYTERANGE:1000@700
        all.mp4
        #EXTINF:4,
        #EXT-X-BYTERANGE:1000
        all.mp4
        #EXT-X-PART:DURATION=1,URI="p0.m4s"
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="p1.m4s"
        """

    @Test("segments by MSN, one file per byte range, keys and init local, LL-HLS tags gone, a capture closed as VOD")
    func mediaPlaylist() throws {
        let source = PlaylistParser.parseLenient(self.source).playlist
        guard case .media(let m) = source.body else { Issue.record("not media"); return }
        let out = OfflineRewrite.media(
            source, segments: m.segments, final: true, key: { _ in "../keys/k0.key" }, map: { _ in "init-0.mp4" })
        let text = PlaylistWriter.write(out)
        #expect(text.contains("000100.mp4") && text.contains("000101.mp4"))
        #expect(!text.contains("BYTERANGE") && !text.contains("PART") && !text.contains("PRELOAD") && !text.contains("SERVER-CONTROL"))
        #expect(text.contains("URI=\"../keys/k0.key\"") && text.contains("URI=\"init-0.mp4\""))
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:100") && text.contains("#EXT-X-ENDLIST") && text.contains("#EXT-X-PLAYLIST-TYPE:VOD"))
        let strict = try PlaylistParser.parse(text, options: ParseOptions(strict: true))
        #expect(!strict.hasErrors)
        let open = PlaylistWriter.write(
            OfflineRewrite.media(source, segments: m.segments, final: false, key: { _ in nil }, map: { _ in "init-0.mp4" }))
        #expect(open.contains("#EXT-X-PLAYLIST-TYPE:EVENT") && !open.contains("ENDLIST"))
    }

    @Test("the multivariant keeps the chosen variant and renditions; a lone kept rendition becomes the group's default")
    func multivariantKept() throws {
        let p = PlaylistParser.parseLenient(ladder).playlist
        let m = multivariant()
        let fr = try #require(m.renditions.firstIndex { $0.language == "fr" })
        let v = try #require(m.variants.firstIndex { $0.uri == "v360/index.m3u8" })
        let out = OfflineRewrite.multivariant(
            p, variant: v, variantURI: "v360/index.m3u8", renditions: [fr: "fr/index.m3u8"], keptMuxed: [])
        let text = PlaylistWriter.write(out)
        #expect(text.contains("URI=\"fr/index.m3u8\"") && text.contains("DEFAULT=YES"))
        #expect(!text.contains("en.m3u8") && !text.contains("SUBTITLES") && !text.contains("v720"))
        #expect(!(try PlaylistParser.parse(text, options: ParseOptions(strict: true))).hasErrors)
    }

    @Test("names: the source's extension, query left out; odd ones fall back")
    func names() {
        #expect(OfflineNames.ext("a/b/seg.TS?x=1", fallback: "ts") == "ts")
        #expect(OfflineNames.ext("a.b/segment", fallback: "ts") == "ts")
        #expect(OfflineNames.ext("x.m4s", fallback: "ts") == "m4s")
    }
}

@Suite("Download folders: a new download, the continuation of one, or a refusal naming why (pure)")
struct DownloadFolderTests {
    let source = "https://cdn.example/live/master.m3u8"

    func manifest(source: String, complete: Bool = false) throws -> Data {
        var m = DownloadManifest(source: source, created: 0, entry: "index.m3u8", live: false)
        m.complete = complete
        m.renditions = [StoredRendition(type: "VIDEO", name: "360p", language: nil, source: source, playlist: "v360/index.m3u8")]
        return try JSONEncoder().encode(m)
    }

    /// The refusal's line, nil when `body` was allowed.
    func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch { return (error as? FolderRefusal)?.description ?? "not a refusal: \(error)" }
    }

    @Test("an empty or new folder starts a download; an unfinished one of the same stream is continued")
    func allowed() throws {
        #expect(try DownloadFolder.previous(out: "dl", manifest: nil, holdsFiles: false, source: source) == nil)
        let m = try #require(try DownloadFolder.previous(out: "dl", manifest: manifest(source: source), holdsFiles: true, source: source))
        #expect(m.source == source && m.renditions.count == 1)
    }

    @Test("refused, each with its one line: a folder of other files, another stream's download, a finished one, an unreadable manifest")
    func refused() throws {
        let other = try manifest(source: "https://elsewhere/x.m3u8"), done = try manifest(source: source, complete: true)
        #expect(
            refusal { _ = try DownloadFolder.previous(out: "dl", manifest: nil, holdsFiles: true, source: source) }
                == "dl is not empty and holds no download; choose an empty or new folder")
        #expect(
            refusal { _ = try DownloadFolder.previous(out: "dl", manifest: other, holdsFiles: true, source: source) }
                == "dl holds a download of https://elsewhere/x.m3u8; choose another --out")
        #expect(
            refusal { _ = try DownloadFolder.previous(out: "dl", manifest: done, holdsFiles: true, source: source) }?
                .hasPrefix("dl is complete (1 renditions, 0 B); `hlstui offline renew`") == true)
        #expect(
            refusal { _ = try DownloadFolder.previous(out: "dl", manifest: Data("{".utf8), holdsFiles: true, source: source) }
                == "dl/hlstui-download.json cannot be read; remove the folder or choose another --out")
        let continued = try #require(
            try DownloadFolder.previous(out: "dl", manifest: manifest(source: source), holdsFiles: true, source: source))
        let chosen = [StoredRendition(type: "VIDEO", name: "720p", language: nil, source: "https://cdn.example/v720.m3u8", playlist: "")]
        #expect(refusal { try DownloadFolder.sameRenditions(continued, continued.renditions, out: "dl") } == nil)
        #expect(
            refusal { try DownloadFolder.sameRenditions(continued, chosen, out: "dl") }
                == "dl holds other renditions of this stream (360p); choose another --out")
    }

    @Test("rendition folders: the playlist's last folder, made unique, never `keys`; what the variant's groups had that was not stored")
    func folders() {
        var f = RenditionFolders()
        #expect(f.name(for: "https://cdn.example/v360/index.m3u8", fallback: "video") == "v360")
        #expect(f.name(for: "https://other.example/v360/index.m3u8?token=1", fallback: "video") == "v360-2")
        #expect(f.name(for: "https://cdn.example/keys/index.m3u8", fallback: "video") == "keys-2")
        #expect(f.name(for: "https://cdn.example/index.m3u8", fallback: "audio") == "audio")
        let m = multivariant()
        let left = RenditionFolders.notChosen(m, variant: m.variants[0], kept: [0, 3], muxed: [])
        #expect(left == ["audio Français (fr): not chosen", "audio Deutsch (de-DE): not chosen", "subtitles Español (es): not chosen"])
    }
}
