import Foundation
import HLS
import MediaFormats
import TestSupport
import Testing
@testable import Loader
@testable import LoaderCore
@testable import Origin
import LoaderEvents

/// The origin's router over real ffmpeg media, without sockets: real encrypted bytes and real playlists for the Loader's core.
enum RealMedia {
    static let cache = TestPackage.mediaCache
    static let router = TestOrigins.router(startedAt: 0)

    static func get(_ path: String, now: Double = Date().timeIntervalSince1970) -> OriginResponse {
        router.respond(OriginRequest(target: path), now: now)
    }

    static func playlist(_ path: String, imported: [String: String] = [:]) -> ParseResult {
        PlaylistParser.parseLenient(
            String(decoding: get(path).body, as: UTF8.self),
            options: ParseOptions(importedVariables: imported, url: "http://origin.test" + path))
    }
}

@Suite("Loader core: keys as servers send them")
struct KeyMaterialTests {
    let key: [UInt8] = Array(0..<16)

    @Test("16 bytes are used as they are")
    func plain() throws {
        let r = try KeyMaterial.decode(key)
        #expect(r.key == key && r.repair == nil)
    }

    @Test("a trailing newline or spaces is removed and named", arguments: [[0x0A], [0x0D, 0x0A], [0x20, 0x20]] as [[UInt8]])
    func trailing(_ tail: [UInt8]) throws {
        let r = try KeyMaterial.decode(key + tail)
        #expect(r.key == key && r.repair == .trailingWhitespace)
    }

    @Test(
        "32 hex characters (with 0x, newline or upper case) are decoded and named",
        arguments: [
            "000102030405060708090a0b0c0d0e0f", "000102030405060708090A0B0C0D0E0F\n", "0x000102030405060708090a0b0c0d0e0f",
            " 000102030405060708090a0b0c0d0e0f \r\n",
        ])
    func hex(_ text: String) throws {
        let r = try KeyMaterial.decode(Array(text.utf8))
        #expect(r.key == key && r.repair == .hexText)
    }

    @Test("anything else is refused with its length")
    func refused() {
        #expect(throws: KeyError(description: "the key is 15 bytes; AES-128 needs 16 (or 32 hex characters)")) {
            _ = try KeyMaterial.decode(Array(key.prefix(15)))
        }
        #expect(throws: KeyError.self) { _ = try KeyMaterial.decode(Array("zz0102030405060708090a0b0c0d0e0f".utf8)) }
        #expect(throws: KeyError.self) { _ = try KeyMaterial.decode(key + [0x41]) }
    }

    @Test("the fingerprint is 8 hex digits of SHA-256 and never shows the key")
    func fingerprint() {
        let fp = KeyMaterial.fingerprint(key)
        #expect(fp.count == 8 && fp.allSatisfy(\.isHexDigit))
        #expect(!"000102030405060708090a0b0c0d0e0f".contains(fp))
        #expect(fp != KeyMaterial.fingerprint(Array(key.reversed())))
    }

    @Test("the IV: the attribute's 128-bit number, else the media sequence number (RFC 8216bis §5.2)")
    func iv() {
        #expect(KeyMaterial.iv(attribute: "0x1", mediaSequence: 9) == [UInt8](repeating: 0, count: 15) + [1])
        #expect(KeyMaterial.iv(attribute: "0x00000000000000000000000000000A0b", mediaSequence: 0)?.suffix(2) == [0x0A, 0x0B])
        #expect(KeyMaterial.iv(attribute: nil, mediaSequence: 258) == [UInt8](repeating: 0, count: 14) + [1, 2])
        #expect(KeyMaterial.iv(attribute: "0xZZ", mediaSequence: 0) == nil)
        #expect(KeyMaterial.iv(attribute: "12", mediaSequence: 0) == nil)
    }
}

@Suite("Loader core: AES-128 decryption checked, on real segments from the origin")
struct DecryptionTests {
    @Test("the right key and IV give back the clear MPEG-TS, byte for byte")
    func right() throws {
        let enc = RealMedia.get("/aes-vod/v144/seg4.ts").body
        let clear = RealMedia.get("/vod-ts/v144/seg4.ts").body
        let key = OriginKeys.key(scenario: "aes-vod", id: 1)
        let out = try SegmentDecryption.decrypt(enc, key: key, iv: KeyMaterial.iv(attribute: "0x1", mediaSequence: 4)!, msn: 4)
        #expect(out == clear)
        #expect(TransportStream.looksValid(out))
    }

    @Test("a wrong key, a wrong IV or a cut body is a one-line diagnosis naming the segment and the key's fingerprint")
    func wrong() throws {
        let enc = RealMedia.get("/aes-vod/v144/seg4.ts").body
        let good = OriginKeys.key(scenario: "aes-vod", id: 1)
        let bad = OriginKeys.key(scenario: "aes-vod", id: 2)
        do {
            _ = try SegmentDecryption.decrypt(enc, key: bad, iv: KeyMaterial.iv(attribute: "0x1", mediaSequence: 4)!, msn: 4)
            Issue.record("a wrong key decrypted")
        } catch {
            #expect(error.cause == .badPadding || error.cause == .notMedia)
            #expect(error.description.hasPrefix("segment 4: key \(KeyMaterial.fingerprint(bad))… does not decrypt it"))
        }
        #expect(throws: DecryptionError(msn: 4, fingerprint: KeyMaterial.fingerprint(good), cause: .notMedia)) {
            _ = try SegmentDecryption.decrypt(enc, key: good, iv: KeyMaterial.iv(attribute: "0x2", mediaSequence: 4)!, msn: 4)
        }
        #expect(throws: DecryptionError(msn: 4, fingerprint: KeyMaterial.fingerprint(good), cause: .notBlockAligned)) {
            _ = try SegmentDecryption.decrypt(
                Array(enc.dropLast(5)), key: good, iv: KeyMaterial.iv(attribute: "0x1", mediaSequence: 4)!, msn: 4)
        }
    }
}

@Suite("Loader core: AES-128 decrypted as the bytes arrive")
struct StreamingDecryptionTests {
    let enc = RealMedia.get("/aes-vod/v144/seg4.ts").body
    let key = OriginKeys.key(scenario: "aes-vod", id: 1)
    let iv = KeyMaterial.iv(attribute: "0x1", mediaSequence: 4)!

    @Test(
        "fed in chunks of any size, the clear bytes equal the whole segment's; nothing goes out before the start is checked",
        arguments: [1, 7, 16, 100, 1_000, 65_536])
    func chunks(_ size: Int) throws {
        var d = StreamingDecryption(key: key, iv: iv, msn: 4)
        var out: [UInt8] = []
        var offset = 0
        while offset < enc.count {
            let released = try d.feed(enc[offset..<min(enc.count, offset + size)])
            // Before 1 KB is clear and checked nothing is released; the last block is always held for the padding.
            if offset + size < 1_024 + 16 { #expect(released.isEmpty) }
            out += released
            offset += size
            #expect(out.count <= max(0, min(offset, enc.count) - 16))
        }
        out += try d.finish()
        #expect(out == RealMedia.get("/vod-ts/v144/seg4.ts").body)
    }

    @Test("a wrong key fails on the first kilobyte, before a byte is released; a cut or mispadded end fails at the end")
    func failures() throws {
        var wrong = StreamingDecryption(key: OriginKeys.key(scenario: "aes-vod", id: 2), iv: iv, msn: 4)
        #expect(
            throws: DecryptionError(
                msn: 4, fingerprint: KeyMaterial.fingerprint(OriginKeys.key(scenario: "aes-vod", id: 2)), cause: .notMedia)
        ) {
            for chunk in stride(from: 0, to: 4_096, by: 512) {
                if try !wrong.feed(enc[chunk..<chunk + 512]).isEmpty { Issue.record("bytes released") }
            }
        }
        var cut = StreamingDecryption(key: key, iv: iv, msn: 4)
        _ = try cut.feed(enc.dropLast(5))
        #expect(throws: DecryptionError(msn: 4, fingerprint: KeyMaterial.fingerprint(key), cause: .notBlockAligned)) {
            _ = try cut.finish()
        }
        // The padding's last byte turned to 0 (never valid PKCS#7): flipping the block before it flips the same bits of the last
        // block's clear text. Replacing the last block by another would read as valid padding once in a few hundred segments.
        let pad = UInt8(16 - RealMedia.get("/vod-ts/v144/seg4.ts").body.count % 16)
        var forged = Array(enc)
        forged[forged.count - 17] ^= pad
        var padded = StreamingDecryption(key: key, iv: iv, msn: 4)
        _ = try padded.feed(forged[...])
        #expect(throws: DecryptionError(msn: 4, fingerprint: KeyMaterial.fingerprint(key), cause: .badPadding)) { _ = try padded.finish() }
    }
}

@Suite("Loader core: EXT-X-BYTERANGE sub-ranges served whole")
struct SubRangeTests {
    @Test("the upstream Range covers the sub-range, or the player's range inside it; a range that does not fit is refused")
    func ranges() {
        let r = ByteRange(length: 1000, offset: 5000)
        #expect(SubRange.request(r, player: nil)! == ("bytes=5000-5999", nil))
        #expect(SubRange.request(r, player: "bytes=0-99")! == ("bytes=5000-5099", 0...99))
        #expect(SubRange.request(r, player: "bytes=900-")! == ("bytes=5900-5999", 900...999))
        #expect(SubRange.request(r, player: "bytes=900-5000")! == ("bytes=5900-5999", 900...999))
        #expect(SubRange.request(r, player: "bytes=-100")! == ("bytes=5900-5999", 900...999))
        #expect(SubRange.request(r, player: "bytes=1000-") == nil)
        #expect(SubRange.request(r, player: "bytes=5-2") == nil)
        #expect(SubRange.request(r, player: "bytes=0-1,5-9") == nil)
        #expect(SubRange.request(r, player: "items=0-1") == nil)
        #expect(SubRange.request(ByteRange(length: 0, offset: 0), player: nil) == nil)
    }
}

@Suite("Loader core: DRM named and explained")
struct DRMTests {
    func media(_ keyLines: String) -> MediaPlaylist {
        PlaylistParser.parseLenient("#EXTM3U\n#EXT-X-VERSION:5\n#EXT-X-TARGETDURATION:4\n\(keyLines)\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n")
            .playlist.media!
    }

    @Test("FairPlay-only rungs are named with the reason and the rungs that play instead")
    func fairPlay() {
        let fp = media(
            "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://key1\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\"")
        let aes = media("#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\"")
        let lines = DRMExplainer.explain(rungs: [("1080p", fp), ("720p", fp), ("360p", aes)])
        #expect(
            lines == [
                "1080p, 720p need FairPlay (SAMPLE-AES): FairPlay Streaming needs Apple's CDM and an SPC/CKC exchange with the license server; only Apple platforms have it; playable instead: 360p"
            ])
        #expect(DRMExplainer.playable(aes) && !DRMExplainer.playable(fp))
    }

    @Test("a segment with FairPlay, Widevine and an identity key plays through the identity key")
    func multiKey() {
        let m = media(
            """
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://k",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI="data:text/plain;base64,AAAA",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="k.key"
            """)
        #expect(DRMExplainer.playable(m))
        #expect(DRMExplainer.systems(m).map(\.system) == [.fairPlay, .widevine, .identity])
        #expect(DRMExplainer.explain(rungs: [("a", m)]).isEmpty)
    }

    @Test("Widevine and PlayReady alone: nothing plays, and the line says so")
    func nothingPlays() {
        let wv = media("#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"data:,x\",KEYFORMAT=\"urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed\"")
        let pr = media("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"data:,x\",KEYFORMAT=\"com.microsoft.playready\"")
        let lines = DRMExplainer.explain(rungs: [("hd", wv), ("sd", pr)])
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains("no clear or AES-128 rung exists") })
        #expect(lines[0].hasPrefix("hd needs Widevine") && lines[1].hasPrefix("sd needs PlayReady"))
    }
}

@Suite("Loader core: virtual playlists for the player")
struct VirtualPlaylistTests {
    let naming = VirtualPlaylists { upstream, kind in
        "http://127.0.0.1:1/t0k3n/\(kind.rawValue)/" + upstream.utf8.map { String(format: "%02x", $0) }.joined()
    }

    @Test("the multivariant keeps only the chosen variant and the renditions its groups use, with DEFINE resolved")
    func multivariant() throws {
        let mv = RealMedia.playlist("/define/master.m3u8?token=abc")
        #expect(!mv.hasErrors)
        let v = naming.multivariant(mv.playlist, base: "http://origin.test/define/master.m3u8?token=abc", variants: [1], subtitles: false)
        let text = PlaylistWriter.write(v)
        #expect(!text.contains("{$") && !text.contains("EXT-X-DEFINE") && !text.contains("I-FRAME"))
        let m = try #require(v.multivariant)
        #expect(m.variants.count == 1 && m.variants[0].resolution?.height == 240)
        #expect(
            m.renditions.map(\.type).sorted() == ["AUDIO", "AUDIO", "CLOSED-CAPTIONS"],
            "both audio renditions and the captions in the video (the player decodes them), no subtitles")
        let hex = Array(m.variants[0].uri.split(separator: "/").last!.utf8)
        let upstream = String(
            decoding: stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)! },
            as: UTF8.self)
        #expect(upstream == "http://origin.test/define/v240/index.m3u8?token=abc")
        #expect(!PlaylistParser.parseLenient(text).hasErrors)
    }

    @Test("an audio choice: its group holds that rendition alone, DEFAULT and AUTOSELECT; subtitles only for a proxy's player")
    func audioChoice() throws {
        let mv = RealMedia.playlist("/vod-ts/master.m3u8")
        let all = try #require(mv.playlist.multivariant?.renditions)
        let german = try #require(all.first { $0.type == "AUDIO" && $0.language == "de" })
        #expect(!german.isDefault, "the origin's German rendition is not its group's DEFAULT")
        let v = try #require(
            naming.multivariant(mv.playlist, base: "http://origin.test/vod-ts/master.m3u8", variants: [0], audio: german, subtitles: false)
                .multivariant)
        let audio = v.renditions.filter { $0.type == "AUDIO" }
        #expect(audio.count == 1 && audio[0].name == german.name && audio[0].isDefault && audio[0].autoselect)
        #expect(!v.renditions.contains { $0.type == "SUBTITLES" } && v.variants[0].subtitles == nil, "no subtitles for the player")
        // The muxed rendition (no URI) chosen: the player fetches no rendition playlist at all.
        let english = try #require(all.first { $0.type == "AUDIO" && $0.uri == nil })
        let muxed = try #require(
            naming.multivariant(mv.playlist, base: "http://origin.test/vod-ts/master.m3u8", variants: [0], audio: english).multivariant)
        #expect(muxed.renditions.filter { $0.type == "AUDIO" }.map(\.uri) == [nil])
        // No choice (a proxy's player): every rendition of the groups, subtitles too, as listed.
        let none = try #require(naming.multivariant(mv.playlist, base: "http://origin.test/vod-ts/master.m3u8", variants: [0]).multivariant)
        #expect(none.renditions.filter { $0.type == "AUDIO" }.count == all.filter { $0.type == "AUDIO" }.count)
        #expect(none.renditions.contains { $0.type == "SUBTITLES" } && none.variants[0].subtitles != nil)
    }

    @Test("media playlists: every URI through the Loader, AES-128 keys dropped when the Loader decrypts, GAP flags kept")
    func media() throws {
        let aes = RealMedia.playlist("/aes-vod/v144/index.m3u8")
        let decrypted = naming.media(aes.playlist, base: "http://origin.test/aes-vod/v144/index.m3u8", decryptAES: true)
        let d = try #require(decrypted.media)
        #expect(d.segments.allSatisfy { $0.keys.isEmpty && $0.uri.hasPrefix("http://127.0.0.1:1/t0k3n/segment/") })
        let kept = naming.media(aes.playlist, base: "http://origin.test/aes-vod/v144/index.m3u8", decryptAES: false)
        #expect(kept.media!.segments[0].keys.first?.uri?.hasPrefix("http://127.0.0.1:1/t0k3n/key/") == true)
        let gap = RealMedia.playlist("/gap-one/v360/index.m3u8")
        let g = try #require(naming.media(gap.playlist, base: "http://origin.test/gap-one/v360/index.m3u8", decryptAES: true).media)
        #expect(g.segments.map(\.gap) == gap.playlist.media!.segments.map(\.gap))
        let fmp4 = RealMedia.playlist("/vod-fmp4/v144/index.m3u8")
        let f = try #require(naming.media(fmp4.playlist, base: "http://origin.test/vod-fmp4/v144/index.m3u8", decryptAES: true).media)
        #expect(f.segments[0].map?.uri.hasPrefix("http://127.0.0.1:1/t0k3n/init/") == true)
        #expect(!PlaylistParser.parseLenient(PlaylistWriter.write(decrypted)).hasErrors)
    }

    static func window(from first: Int, count: Int = 8, discontinuityAt: Int? = nil) -> MediaPlaylist {
        var t = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for n in first..<first + count {
            if n == discontinuityAt { t += "#EXT-X-DISCONTINUITY\n" }
            t += "#EXTINF:2.0,\ns\(n).m4s\n"
        }
        return PlaylistParser.parseLenient(t).playlist.media!
    }

    @Test("a reload at a segment that just left the live window starts there, while RFC 8216bis §6.2.2 keeps it available")
    func leftTheWindow() throws {
        var recent = RecentSegments()
        recent.note(Self.window(from: 958, discontinuityAt: 960), at: 0)
        // Read again 4 s later: 958 and 959 left the window.
        let now = Self.window(from: 960, discontinuityAt: 960)
        recent.note(now, at: 4)
        let earlier = recent.before(now, from: 959, at: 4)
        #expect(earlier.map(\.mediaSequence) == [959])
        let served = VirtualPlaylists.starting(at: 959, now, earlier: earlier)
        #expect(served.mediaSequence == 959 && served.segments.map(\.mediaSequence) == Array(959..<968))
        #expect(served.segments[0].programDateTime != nil && !served.segments[0].discontinuity, "the first segment carries its date")
        #expect(served.segments[1].discontinuity, "the discontinuity the earlier read listed is kept")
        #expect(!PlaylistParser.parseLenient(PlaylistWriter.write(Playlist(body: .media(served)))).hasErrors)
        // Inside the window: as before. Longer ago than the server keeps segments (2 s + 16 s listed): the window's first.
        #expect(VirtualPlaylists.starting(at: 962, now).segments.first?.mediaSequence == 962)
        #expect(recent.before(now, from: 959, at: 4 + 18.5).isEmpty)
        #expect(recent.before(now, from: 950, at: 4).isEmpty, "a segment never seen is not invented")
        // VOD segments never leave: nothing is remembered.
        var vod = RecentSegments()
        var v = Self.window(from: 0)
        v.endList = true
        vod.note(v, at: 0)
        #expect(vod.count == 0)
    }
}

@Suite("Start-up reads: what the Loader reads before the player asks")
struct StartReadsTests {
    static func media(_ body: String, live: Bool = false) -> MediaPlaylist {
        let text =
            "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:10\n" + body + (live ? "" : "#EXT-X-ENDLIST\n")
        return PlaylistParser.parseLenient(text).playlist.media!
    }
    static let base = "http://origin.test/v/index.m3u8"
    static func segments(_ n: Int) -> String { (0..<n).map { "#EXTINF:2,\ns\($0).m4s\n" }.joined() }

    @Test("VOD: the init section and the first two segments; live: from the third from the end; a start MSN: from it")
    func plan() {
        let vod = Self.media("#EXT-X-MAP:URI=\"init.mp4\"\n" + Self.segments(6))
        #expect(
            StartReads.plan(vod, base: Self.base, startMSN: nil) == [
                .init(url: "http://origin.test/v/init.mp4", kind: .initSection, msn: 10),
                .init(url: "http://origin.test/v/s0.m4s", kind: .segment, msn: 10, duration: 2, next: "http://origin.test/v/s1.m4s"),
                .init(url: "http://origin.test/v/s1.m4s", kind: .segment, msn: 11, duration: 2, next: "http://origin.test/v/s2.m4s"),
            ])
        let live = Self.media(Self.segments(6), live: true)
        #expect(StartReads.plan(live, base: Self.base, startMSN: nil).map(\.msn) == [13, 14])
        #expect(StartReads.plan(live, base: Self.base, startMSN: 15).map(\.msn) == [15])
        #expect(StartReads.plan(live, base: Self.base, startMSN: 99).isEmpty, "a start not in the playlist: nothing guessed")
        // A live fMP4 window with a timestamp reset at msn 14: the player's playlist ends before it (an ended playlist, played
        // from its first segment), so the reads are its first two, not two across the reset.
        let looped = Self.media(
            "#EXT-X-MAP:URI=\"init.mp4\"\n"
                + (0..<6).map { ($0 == 4 ? "#EXT-X-DISCONTINUITY\n" : "") + "#EXTINF:2,\ns\($0).m4s\n" }.joined(),
            live: true)
        #expect(StartReads.plan(looped, base: Self.base, startMSN: nil).map(\.msn) == [10, 10, 11])
    }

    /// A live LL-HLS window of three complete fMP4 segments (10–12) and segment 13 in progress with two parts published.
    static let lowLatency = media(
        "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3\n#EXT-X-PART-INF:PART-TARGET=1\n#EXT-X-MAP:URI=\"init.mp4\"\n"
            + segments(3) + "#EXT-X-PART:DURATION=1,URI=\"s3.0.m4s\",INDEPENDENT=YES\n#EXT-X-PART:DURATION=1,URI=\"s3.1.m4s\"\n"
            + "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"s3.2.m4s\"\n",
        live: true)

    @Test(
        "LL-HLS: from the start the session chose, complete segments only; a start inside the segment in progress reads the init section and its parts listed so far"
    )
    func lowLatency() {
        let m = Self.lowLatency
        #expect(
            StartReads.plan(m, base: Self.base, startMSN: 11) == [
                .init(url: "http://origin.test/v/init.mp4", kind: .initSection, msn: 11),
                .init(url: "http://origin.test/v/s1.m4s", kind: .segment, msn: 11, duration: 2, next: "http://origin.test/v/s2.m4s"),
                .init(url: "http://origin.test/v/s2.m4s", kind: .segment, msn: 12, duration: 2, next: nil),
            ])
        #expect(StartReads.plan(m, base: Self.base, startMSN: 12).map(\.msn) == [12, 12], "the segment in progress is not read whole")
        #expect(
            StartReads.plan(m, base: Self.base, startMSN: 13) == [
                .init(url: "http://origin.test/v/init.mp4", kind: .initSection, msn: 13),
                .init(url: "http://origin.test/v/s3.0.m4s", kind: .part, msn: 13, part: 0),
                .init(url: "http://origin.test/v/s3.1.m4s", kind: .part, msn: 13, part: 1),
            ], "not the hinted part: the server holds it until it exists")
        #expect(
            StartReads.plan(m, base: Self.base, startMSN: nil).isEmpty,
            "no start chosen: where FFmpeg starts in a listing with parts is not guessed")
        #expect(StartReads.plan(m, base: Self.base, startMSN: 14).isEmpty)
    }

    @Test("none from a GAP, an encrypted or a sub-range segment on")
    func refused() {
        #expect(
            StartReads.plan(Self.media("#EXTINF:2,\ns0.ts\n#EXT-X-GAP\n#EXTINF:2,\ns1.ts\n"), base: Self.base, startMSN: nil).map(\.msn)
                == [10])
        let keyed = Self.media("#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n" + Self.segments(3))
        #expect(StartReads.plan(keyed, base: Self.base, startMSN: nil).isEmpty)
        let ranged = Self.media("#EXT-X-BYTERANGE:1000@0\n#EXTINF:2,\nall.ts\n")
        #expect(StartReads.plan(ranged, base: Self.base, startMSN: nil).isEmpty)
    }
}

@Suite("MPEG-TS first-section check")
struct PATTests {
    @Test("real segments start with an intact PSI section; one flipped bit in it is caught")
    func pat() {
        var b = RealMedia.get("/vod-ts/v240/seg1.ts").body
        #expect(TransportStream.firstSectionIsIntact(b) == true)
        b[15] ^= 0x01
        #expect(TransportStream.firstSectionIsIntact(b) == false)
        #expect(TransportStream.firstSectionIsIntact(Array(repeating: 0x47, count: 188)) == nil)
    }
}

@Suite("--key-command: a real shell, bounded")
struct KeyCommandTests {
    @Test("the command gets the URI and its output is the key; failure, signal and timeout are named")
    func outcomes() async throws {
        let ok = try await KeyCommand.run("printf '%s'", "https://x.test/k0.key")
        #expect(String(decoding: ok, as: UTF8.self) == "https://x.test/k0.key")
        await #expect { try await KeyCommand.run("exit 3 #", "u") } throws: { "\($0)".contains("exited with 3") }
        await #expect { try await KeyCommand.run("kill -9 $$ #", "u") } throws: { "\($0)".contains("killed by signal 9") }
        let start = Date()
        await #expect { try await KeyCommand.run("sleep 30 #", "u", timeout: 0.5) } throws: { "\($0)".contains("gave no key within") }
        #expect(Date().timeIntervalSince(start) < 10)
    }
}

@Suite("fMP4 first decode time")
struct FirstTimeTests {
    @Test(
        "read from the first bytes of a segment larger than the probe (the moof is complete, the mdat is not)", arguments: ["v144", "v360"])
    func prefix(rung: String) throws {
        let tracks = FragmentedMP4.tracks(initSection: RealMedia.get("/vod-fmp4/\(rung)/init.mp4").body)
        let seg = RealMedia.get("/vod-fmp4/\(rung)/seg3.m4s").body
        let whole = try #require(FragmentedMP4.firstTime(segment: seg, tracks: tracks))
        // Segment 3 decodes from 6 s; the video track's edit list opens with a 66 ms empty edit (FFmpeg's B-frame delay).
        let video = try #require(tracks.first { $0.handler == "vide" })
        #expect(abs(video.emptyEdit - 0.066) < 0.001)
        #expect(abs(whole - 6.066) < 0.001)
        #expect(FragmentedMP4.firstTime(segment: Array(seg.prefix(8192)), tracks: tracks) == whole)
        #expect(FragmentedMP4.firstTime(segment: Array(seg.prefix(100)), tracks: tracks) == nil)
    }

    @Test("an edit list's opening empty edit moves the start: broadcast fMP4 presents from 3600 s")
    func emptyEdit() throws {
        let tracks = FragmentedMP4.tracks(initSection: RealMedia.get("/broadcast-vod-fmp4/v144/init.mp4").body)
        let seg = RealMedia.get("/broadcast-vod-fmp4/v144/seg1.m4s").body
        let t = try #require(FragmentedMP4.firstTime(segment: seg, tracks: tracks))
        // 3600 s offset + segment 1 at frame 60 (60 × 1001/30000 = 2.002 s) + the video's 40 ms lead, one whole frame
        // (33.4 ms) after the decode-order shift the empty edit carries: FFmpeg's mov reader starts this video at 3602.035.
        #expect(abs(t - 3602.035) < 0.001, "\(t)")
    }
}

@Suite("Loader core: the order a failed rung's segment tries the others (pure)")
struct FailoverOrderTests {
    // Rungs 0–2 on cdn-a (300k, 500k, 900k), 3–5 their copies on cdn-b.
    let bandwidth = [0: 300_000, 1: 500_000, 2: 900_000, 3: 300_000, 4: 500_000, 5: 900_000]

    @Test("the same bandwidth first (a copy on another host), then the nearest below, then the nearest above; only what the route allows")
    func order() {
        let all = SpliceRoute(rung: 1, fill: [1, 4, 0, 3, 2, 5])
        #expect(all.failoverOrder(from: 1, bandwidth: bandwidth) == [4, 0, 3, 2, 5])
        #expect(all.failoverOrder(from: 2, bandwidth: bandwidth) == [5, 1, 4, 0, 3])
        #expect(all.failoverOrder(from: 0, bandwidth: bandwidth) == [3, 1, 4, 2, 5])
        let capped = SpliceRoute(rung: 1, fill: [1, 0])
        #expect(capped.failoverOrder(from: 1, bandwidth: bandwidth) == [0], "the caps leave one rung")
        #expect(capped.failoverOrder(from: nil, bandwidth: bandwidth) == [1, 0], "no failed rung: the route's own order")
        #expect(SpliceRoute(rung: 1, fill: [1, 0]).failoverOrder(from: 7, bandwidth: bandwidth) == [1, 0], "an unknown rung: in order")
    }
}

@Suite("Loader core: an interstitial's asset list read (RFC 8216bis Appendix D.2), and asked as a player asks it")
struct AssetListTests {
    func parse(_ text: String) -> Result<AssetList, AssetListError> {
        AssetList.parse(Array(text.utf8), from: "https://ads.example/x/list.json")
    }

    @Test("assets with their URIs resolved and durations summed; an empty list; each malformed one named")
    func parsing() throws {
        let ok = try parse(#"{"ASSETS":[{"URI":"a.m3u8","DURATION":10},{"URI":"https://cdn/b.m3u8","DURATION":15.5}]}"#).get()
        #expect(ok.assets.map(\.uri) == ["https://ads.example/x/a.m3u8", "https://cdn/b.m3u8"] && ok.duration == 25.5)
        #expect(try parse(#"{"ASSETS":[]}"#).get().assets.isEmpty)
        let wrong: [(String, String)] = [
            ("{", "not a JSON object"), ("[]", "not a JSON object"), (#"{"A":1}"#, "has no ASSETS"),
            (#"{"ASSETS":{}}"#, "ASSETS is not an array"), (#"{"ASSETS":[1]}"#, "ASSETS[0] is not an object"),
            (#"{"ASSETS":[{"DURATION":1}]}"#, "ASSETS[0] has no URI"),
            (#"{"ASSETS":[{"URI":"a","DURATION":"10"}]}"#, "ASSETS[0] has no DURATION (a number of seconds)"),
            (#"{"ASSETS":[{"URI":"a","DURATION":-1}]}"#, "ASSETS[0] has DURATION -1.0"),
        ]
        for (text, why) in wrong {
            guard case .failure(let e) = parse(text) else {
                Issue.record("\(text) was read")
                continue
            }
            #expect(e.description == why, "\(text)")
        }
    }

    @Test("the request carries _HLS_primary_id, and _HLS_start_offset when joined past the interstitial's start")
    func request() {
        #expect(AssetList.request("https://a/l.json", primaryID: "p1", startOffset: nil) == "https://a/l.json?_HLS_primary_id=p1")
        #expect(
            AssetList.request("https://a/l.json?x=1", primaryID: "p1", startOffset: 12.5)
                == "https://a/l.json?x=1&_HLS_primary_id=p1&_HLS_start_offset=12.500")
    }
}

@Suite("Filler after LL-HLS parts (pure)")
struct PartFillerTests {
    @Test("MPEG-TS: null packets (PID 0x1FFF), at least FFmpeg's 32 KB read; stripped, the media is what it was")
    func ts() {
        let f = PartFiller.bytes(fragmentedMP4: false)
        #expect(f.count % 188 == 0 && f.count >= PartFiller.minimum && f.count < PartFiller.minimum + 188)
        #expect(stride(from: 0, to: f.count, by: 188).allSatisfy { f[$0] == 0x47 && f[$0 + 1] & 0x1F == 0x1F && f[$0 + 2] == 0xFF })
        // A media packet (PID 0x100) on either side of the filler.
        let media = [0x47, 0x41, 0x00, 0x10] + [UInt8](repeating: 7, count: 184)
        #expect(PartFiller.strip(media + f + media, fragmentedMP4: false) == media + media)
    }

    @Test("fMP4: one top-level free box; stripped between fragments, the fragments are what they were")
    func fmp4() {
        let f = PartFiller.bytes(fragmentedMP4: true)
        #expect(f.count == PartFiller.minimum + 8 && Array(f[4..<8]) == Array("free".utf8))
        #expect(Int(f[0]) << 24 | Int(f[1]) << 16 | Int(f[2]) << 8 | Int(f[3]) == f.count)
        let moof: [UInt8] = [0, 0, 0, 12] + Array("moof".utf8) + [1, 2, 3, 4]
        let mdat: [UInt8] = [0, 0, 0, 10] + Array("mdat".utf8) + [9, 9]
        #expect(PartFiller.strip(moof + mdat + f + moof + mdat, fragmentedMP4: true) == moof + mdat + moof + mdat)
    }
}
