import Foundation
import Origin
import TestSupport
import Testing

let goodMedia = """
    #EXTM3U
    #EXT-X-VERSION:3
    #EXT-X-TARGETDURATION:2
    #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
    #EXTINF:2.000,
    seg0.ts
    #EXTINF:2.000,
    seg1.ts
    #EXT-X-ENDLIST

    """

let badMedia = """
    #EXTM3U
    #EXT-X-TARGETDURATION:2
    #EXTINF:2.5,
    seg0.ts
    #EXT-X-KEY:METHOD=AES-128
    #EXTINF:2,
    seg1.ts

    """

@Suite("hlstui inspect, run as a user would", .serialized)
struct InspectCLITests {
    @Test("a clean file: readable report, exit 0")
    func cleanFile() async throws {
        let dir = try CLI.directory(["good.m3u8": goodMedia])
        let r = try await CLI.run(["inspect", dir.appendingPathComponent("good.m3u8").path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("media playlist, version 3"))
        #expect(r.stdout.contains("segments: 2 (MSN 0…1), 4 s"))
        #expect(r.stdout.contains("program date-time: 2026-01-01T00:00:00.000Z … 2026-01-01T00:00:04.000Z"))
        #expect(r.stdout.contains("no problems found"))
    }

    @Test("errors: exit 1 with file lines; --strict stops at the first; --json is one object")
    func errors() async throws {
        let dir = try CLI.directory(["bad.m3u8": badMedia])
        let path = dir.appendingPathComponent("bad.m3u8").path
        let r = try await CLI.run(["inspect", path])
        #expect(r.status == 1)
        #expect(r.stdout.contains("line 3: error: floating-point EXTINF durations need EXT-X-VERSION 3"))
        #expect(r.stdout.contains("line 3: error: segment 0: EXTINF 2.5 s rounds above EXT-X-TARGETDURATION 2"))
        #expect(r.stdout.contains("line 5: error: EXT-X-KEY METHOD=AES-128 is missing its REQUIRED URI attribute"))
        let s = try await CLI.run(["inspect", "--strict", path])
        #expect(s.status == 1)
        #expect(
            s.stderr
                == "\(path):3: error: segment 0: EXTINF 2.5 s rounds above EXT-X-TARGETDURATION 2; it MUST be less than or equal (RFC 8216bis §4.4.3.1)\n"
        )
        let j = try await CLI.run(["inspect", "--json", path])
        #expect(j.status == 1)
        let obj = try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any]
        #expect(obj?["kind"] as? String == "media")
        #expect((obj?["diagnostics"] as? [[String: Any]])?.contains { $0["line"] as? Int == 5 } == true)
    }

    @Test("LL-HLS: the origin's ll-ts stream reads clean with what its server can do; a faulty LL playlist names each rule")
    func lowLatency() async throws {
        let url = "\(AppOrigin.base)/ll-ts/v240/index.m3u8"
        let live = try await CLI.run(["inspect", "--strict", url])
        #expect(live.status == 0, "\(live.stdout) \(live.stderr)")
        #expect(live.stdout.contains("part target: 1 s"), "\(live.stdout)")
        #expect(live.stdout.contains("server control: blocking reload, delta updates beyond 24 s, PART-HOLD-BACK 3 s, HOLD-BACK 12 s"))
        let delta = try await CLI.run(["inspect", url + "?_HLS_skip=YES"])
        #expect(delta.status == 0 && delta.stdout.contains("delta update: 5 segments skipped (EXT-X-SKIP)"), "\(delta.stdout)")
        let faulty = [
            "#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:4", "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12",
            "#EXT-X-PART-INF:PART-TARGET=1", "#EXT-X-MEDIA-SEQUENCE:7", "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z",
            "#EXT-X-PART:DURATION=1,URI=\"p7.0.ts\"", "#EXT-X-PART:DURATION=0.5,URI=\"p7.1.ts\"",
            "#EXT-X-PART:DURATION=1.5,URI=\"p7.2.ts\"", "#EXTINF:3,", "s7.ts", "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"p8.0.ts\"",
        ].joined(separator: "\n")
        let dir = try CLI.directory(["ll.m3u8": faulty + "\n"])
        let r = try await CLI.run(["inspect", dir.appendingPathComponent("ll.m3u8").path])
        #expect(r.status == 1)
        for rule in [
            "CAN-SKIP-UNTIL 12 is below six target durations (24 s)", "EXT-X-PART-INF without PART-HOLD-BACK",
            "line 9: error: EXT-X-PART p7.1.ts lasts 0.5 s, under 85 % of PART-TARGET 1",
            "line 10: error: EXT-X-PART DURATION 1.5 is above PART-TARGET 1", "no EXT-X-PART has INDEPENDENT=YES",
        ] {
            #expect(r.stdout.contains(rule), "\(rule) in \(r.stdout)")
        }
    }

    @Test("MP4: where moov is and what it costs a player, over HTTP with a few small ranges and from a file alike")
    func mp4() async throws {
        let base = AppOrigin.base
        let mark = AppOrigin.state.log().count
        let end = try await CLI.run(["inspect", "\(base)/progressive/moov-end.mp4"])
        #expect(end.status == 0, "\(end.stderr)")
        #expect(end.stdout.contains("moov: at the end") && end.stdout.contains("fragmented: no (progressive)"), "\(end.stdout)")
        #expect(
            end.stdout.contains("warning: moov at the end: a player needs a second round trip (bytes="),
            "one line names the cost: \(end.stdout)")
        let asked = AppOrigin.state.log(since: mark).filter { $0.path.hasSuffix("moov-end.mp4") }
        #expect(asked.count <= 4 && asked.allSatisfy { $0.range != nil }, "\(asked.map { $0.range ?? "-" })")
        #expect(try await CLI.run(["inspect", "--strict", "\(base)/progressive/moov-end.mp4"]).status == 1)
        let json = try await CLI.run(["inspect", "--json", "\(base)/progressive/moov-end.mp4"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let size = try #require(doc["size"] as? Int)
        #expect(doc["moov"] as? String == "end" && (doc["playerRequests"] as? [String])?.count == 3, "\(doc)")
        #expect((doc["bytesRead"] as? Int ?? size) < size / 2, "read \(doc["bytesRead"] ?? "") of \(size) bytes")
        let front = try await CLI.run(["inspect", "\(base)/progressive/faststart.mp4"])
        #expect(front.status == 0 && front.stdout.contains("moov: at the front") && !front.stdout.contains("warning"), "\(front.stdout)")
        let fragmented = try await CLI.run(["inspect", "\(base)/progressive/fragmented.mp4"])
        #expect(fragmented.stdout.contains("fragmented: yes"), "\(fragmented.stdout)")
        // The same file on disk.
        let file = try CLI.directory([:]).appendingPathComponent("movie.mp4")
        try Data(try await CLI.tool("curl", ["-s", "\(base)/progressive/moov-end.mp4"])).write(to: file)
        let local = try await CLI.run(["inspect", file.path])
        #expect(
            local.status == 0 && local.stdout.contains("moov: at the end") && !local.stdout.contains("range request"), "\(local.stdout)")
        let missing = try await CLI.run(["inspect", "\(base)/progressive/nope.mp4"])
        #expect(missing.status == 2 && missing.stderr.contains("HTTP 404"), "\(missing.stderr)")
    }

    @Test("a missing file, a directory and a binary file each get a one-line reason and exit 2")
    func unreadable() async throws {
        let dir = try CLI.directory([:])
        try Data([0xFF, 0xFE, 0x00, 0x01]).write(to: dir.appendingPathComponent("bin.m3u8"))
        let missing = try await CLI.run(["inspect", dir.appendingPathComponent("nope.m3u8").path])
        #expect(missing.status == 2 && missing.stderr.hasSuffix("nope.m3u8: no such file\n"))
        let isDir = try await CLI.run(["inspect", dir.path])
        #expect(isDir.status == 2 && isDir.stderr.contains("is a directory"))
        let binary = try await CLI.run(["inspect", dir.appendingPathComponent("bin.m3u8").path])
        #expect(binary.status == 2 && binary.stderr.contains("not UTF-8 text"))
    }

    @Test("over real HTTP: a playlist URL with QUERYPARAM, a redirect, 404, 500, refused, slow and truncated bodies")
    func http() async throws {
        let withQuery =
            "#EXTM3U\n#EXT-X-VERSION:8\n#EXT-X-TARGETDURATION:2\n#EXT-X-DEFINE:QUERYPARAM=\"tok\"\n#EXTINF:2,\ns.ts?t={$tok}\n#EXT-X-ENDLIST\n"
        let dir = try CLI.directory(["good.m3u8": goodMedia, "q.m3u8": withQuery])
        let server = try await FixtureServer.start(serving: dir)
        let ok = try await CLI.run(["inspect", "\(server.base)/good.m3u8"])
        #expect(ok.status == 0 && ok.stdout.contains("segments: 2"), "\(ok.stderr)")
        let q = try await CLI.run(["inspect", "--json", "\(server.base)/q.m3u8?tok=abc"])
        #expect(q.status == 0 && q.stdout.contains("\"s.ts?t=abc\""), "\(q.stdout)\(q.stderr)")
        let redirect = try await CLI.run(["inspect", "\(server.base)/redirect/good.m3u8"])
        #expect(redirect.status == 0)
        let notFound = try await CLI.run(["inspect", "\(server.base)/status/404"])
        #expect(notFound.status == 2 && notFound.stderr.contains("HTTP 404"), "\(notFound.stderr)")
        let serverError = try await CLI.run(["inspect", "\(server.base)/status/500"])
        #expect(serverError.status == 2 && serverError.stderr.contains("HTTP 500"))
        let slow = try await CLI.run(["inspect", "--timeout", "1", "\(server.base)/slow/5/good.m3u8"])
        #expect(slow.status == 2 && slow.stderr.contains("timed out"), "\(slow.stderr)")
        let truncated = try await CLI.run(["inspect", "\(server.base)/truncated"])
        #expect(truncated.status == 2 && truncated.stderr.contains("truncated"), "\(truncated.stderr)")
        // A port nobody listens on: take one from the fixture, then stop it.
        let dead = try await FixtureServer.start(serving: dir)
        let deadBase = dead.base
        await dead.stop()
        let refused = try await CLI.run(["inspect", "\(deadBase)/good.m3u8"])
        #expect(refused.status == 2 && refused.stderr.contains("connection refused"), "\(refused.stderr)")
    }

    @Test("--version names hlstui, libmpv's client API and ncurses")
    func version() async throws {
        let r = try await CLI.run(["--version"])
        #expect(r.stdout.hasPrefix("hlstui "))
        #expect(r.stdout.contains("libmpv client API 2."))
        #expect(r.stdout.contains("ncurses 6."))
    }
}

@Suite("hlstui inspect over HTTPS uses the Loader's client and TLS options")
struct InspectTLSTests {
    static let origin = TestOrigins.start(tls: true)

    @Test("a self-signed origin is refused as untrusted in one line, trusted by its pin, and --insecure is said")
    func tls() async throws {
        let url = try #require(Self.origin.httpsBase) + "/vod-ts/master.m3u8"
        let refused = try await CLI.run(["inspect", url])
        #expect(refused.status == 2 && refused.stderr.contains("TLS untrusted"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
        let pinned = try await CLI.run(["inspect", url, "--pin-sha256", Self.origin.identity!.spkiPin])
        #expect(pinned.status == 0 && pinned.stdout.contains("variants (4)"), "\(pinned.stderr)")
        let wrongPin = try await CLI.run(["inspect", url, "--pin-sha256", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="])
        #expect(wrongPin.status == 2 && wrongPin.stderr.contains("TLS pin mismatch"), "\(wrongPin.stderr)")
    }

    @Test(
        "a playlist with a UTF-8 BOM: a warning naming RFC 8216bis §4.1 when lenient (exit 0), an error with --strict (exit 1), file and URL alike"
    )
    func byteOrderMark() async throws {
        let dir = try CLI.directory([:])
        let path = dir.appendingPathComponent("bom.m3u8").path
        try Data([0xEF, 0xBB, 0xBF] + Array(goodMedia.utf8)).write(to: URL(fileURLWithPath: path))
        let lenient = try await CLI.run(["inspect", path])
        #expect(lenient.status == 0, "\(lenient.stdout)")
        #expect(
            lenient.stdout.contains("line 1:1: warning: playlist starts with a byte order mark")
                && lenient.stdout.contains("RFC 8216bis §4.1"), "\(lenient.stdout)")
        #expect(lenient.stdout.contains("segments: 2"), "the rest is read: \(lenient.stdout)")
        let strict = try await CLI.run(["inspect", "--strict", path])
        #expect(strict.status == 1, "\(strict.stdout)")
        #expect(
            (strict.stdout + strict.stderr).contains("error: playlist starts with a byte order mark"), "\(strict.stdout)\(strict.stderr)")
        let server = try await FixtureServer.start(serving: dir)
        defer { server.kill() }
        let url = "\(server.base)/bom.m3u8"
        let overHTTP = try await CLI.run(["inspect", url])
        #expect(overHTTP.stdout.contains("warning: playlist starts with a byte order mark"), "\(overHTTP.stdout)\(overHTTP.stderr)")
    }

    @Test("breaks: a live camera's CUE-OUT/CUE-IN and EXT-X-DATERANGE SCTE-35 over real HTTP, each message decoded; a missed plan warned")
    func breaks() async throws {
        let url = "\(AppOrigin.base)/cam-a/cam-a/index.m3u8?cues=4"
        let r = try await CLI.run(["inspect", url])
        #expect(r.status == 0 && r.stdout.contains("no problems found"), "\(r.stdout.suffix(600)) \(r.stderr)")
        // A 16 s window of 2 s segments holds a break every four: two or three, both ways.
        #expect(r.stdout.contains("breaks ("), "\(r.stdout)")
        #expect(
            r.stdout.contains("EXT-OATCLS-SCTE35: splice_insert event ")
                && r.stdout.contains(" out immediately, break 4.000 s (auto return)"))
        #expect(r.stdout.contains("SCTE35-IN: splice_insert event ") && r.stdout.contains(" in immediately"))
        #expect(!r.stdout.contains("cannot decode"))
        let j = try await CLI.run(["inspect", "--json", url])
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let media = try #require(obj["media"] as? [String: Any])
        let breaks = try #require(media["breaks"] as? [[String: Any]])
        let cueOut = breaks.filter { $0["source"] as? String == "cue-out" }
        let dateRanges = breaks.filter { $0["source"] as? String == "daterange" }
        // A window that starts at a break's last segment holds its CUE-IN alone (no break) but its EXT-X-DATERANGE's end.
        let atIn = (media["mediaSequence"] as? Int ?? 0) % 4 == 2 ? 1 : 0
        #expect(cueOut.count >= 2 && dateRanges.count == cueOut.count + atIn, "\(breaks)")
        // Every break the window holds whole lasts what it announced: two 2 s segments.
        let whole = cueOut.filter { $0["closed"] as? Bool == true }
        #expect(!whole.isEmpty && whole.allSatisfy { $0["planned"] as? Double == 4 && $0["actual"] as? Double == 4 }, "\(whole)")
        let messages = breaks.flatMap { $0["scte35"] as? [[String: Any]] ?? [] }
        #expect(!messages.isEmpty && messages.allSatisfy { $0["command"] as? String == "splice_insert" && $0["error"] == nil })
        // Announced 6 s longer than the two segments each break holds: each whole break is warned about, by line.
        let off = try await CLI.run(["inspect", "\(url)&cueplan=6"])
        #expect(
            off.status == 0
                && off.stdout.contains("is planned 10 s and holds 4 s of segments, more than a target duration (2 s) apart (cue)"))
    }

    @Test(
        "--media: the origin's ladder measured as declared; declared under its bytes, with another profile, size or frame rate, each named, exit 1; variables imported; a playlist that must fail said once"
    )
    func media() async throws {
        // The origin of the break tests: reading every rung's segments here would show in the shared origin's log.
        let clean = try await CLI.run(["inspect", "--media", "\(CueOrigin.base)/vod-ts/master.m3u8?imsc=1"])
        #expect(clean.status == 0 && clean.stdout.contains("media measured (40 segments):"), "\(clean.stdout) \(clean.stderr)")
        #expect(clean.stdout.contains("media: no problems found") && clean.stdout.contains("video avc1.4d401e"), "\(clean.stdout)")
        #expect(clean.stdout.contains("subtitles English [en]  10 of 10 segments, 10 cues, timed against the media"), "\(clean.stdout)")
        #expect(clean.stdout.contains("subtitles English IMSC1 [en]  10 of 10 segments, 10 cues, timed against the media"))
        #expect(clean.stdout.contains("I-frames #2 360p  10 of 10 ranges, each an independent frame"), "\(clean.stdout)")
        // Every I-frame range moved past its I-frame: each I-frame playlist named.
        let iframes = try await CLI.run([
            "inspect", "--media", "--json", "--sample", "2", "\(CueOrigin.base)/vod-ts/master.m3u8?iframebad=1",
        ])
        #expect(iframes.status == 1, "\(iframes.stderr)")
        let i = try #require(try JSONSerialization.jsonObject(with: Data(iframes.stdout.utf8)) as? [String: Any])
        #expect(
            (i["findings"] as? [[String: Any]])?.compactMap { $0["rule"] as? String }
                == Array(repeating: "iframe-not-independent", count: 3))
        #expect((i["iframes"] as? [[String: Any]])?.map { ($0["dependent"] as? [Int])?.count } == [2, 2, 2])
        let wrong = try await CLI.run(["inspect", "--media", "--json", "\(CueOrigin.base)/vod-ts/master.m3u8?bw=0.6&avc=avc1.42e01e"])
        #expect(wrong.status == 1, "\(wrong.stderr)")
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(wrong.stdout.utf8)) as? [String: Any])
        let findings = try #require(obj["findings"] as? [[String: Any]])
        let rules = Set(findings.compactMap { $0["rule"] as? String })
        #expect(rules == ["average-bandwidth", "bandwidth-under-peak", "codecs-video"], "\(findings)")
        #expect(findings.allSatisfy { $0["severity"] as? String == "must" && $0["section"] as? String == "RFC 8216bis §4.4.6.2" })
        // RESOLUTION and FRAME-RATE against the SPS: 1280x720 at 20 fps declared over 30 fps media of three sizes.
        let picture = try await CLI.run([
            "inspect", "--media", "--json", "--sample", "2", "\(CueOrigin.base)/vod-fmp4/master.m3u8?res=1280x720&fps=20",
        ])
        #expect(picture.status == 1, "\(picture.stderr)")
        let p = try #require(try JSONSerialization.jsonObject(with: Data(picture.stdout.utf8)) as? [String: Any])
        let pictureFindings = try #require(p["findings"] as? [[String: Any]])
        #expect(
            pictureFindings.compactMap { $0["rule"] as? String }.sorted() == [
                "frame-rate", "frame-rate", "frame-rate", "resolution", "resolution", "resolution",
            ])
        // Each segment's video measured from its frames: 2 s, as EXTINF says.
        let durations = (p["variants"] as? [[String: Any]] ?? []).flatMap { ($0["segments"] as? [[String: Any]] ?? []) }
            .compactMap { $0["videoDuration"] as? Double }
        #expect(durations.count == 6 && durations.allSatisfy { abs($0 - 2) < 0.001 }, "\(durations)")
        let sizes = (p["variants"] as? [[String: Any]] ?? []).compactMap { $0["picture"] as? [String: Any] }
        #expect(
            sizes.map { "\($0["width"] ?? "")x\($0["height"] ?? "")@\($0["frameRate"] ?? "")" } == [
                "256x144@30", "426x240@30", "640x360@30",
            ])
        // One rung's timestamps half a second later than the others': that rung named (RFC 8216bis §6.2.4).
        let shifted = try await CLI.run(["inspect", "--media", "--sample", "2", "\(CueOrigin.base)/vod-ts/master.m3u8?rungshift=500@v240"])
        #expect(
            shifted.status == 1 && shifted.stdout.contains("240p: its timestamps lie 0.500 s after 144p's at msn 0")
                && shifted.stdout.contains("(variants-aligned, RFC 8216bis §6.2.4)"), "\(shifted.stdout)")
        // The 5.1 rendition measured too; its timestamps half a second later than the variants': named.
        #expect(clean.stdout.contains("audio Deutsch [de] 6ch  peak"), "\(clean.stdout)")
        let audio = try await CLI.run([
            "inspect", "--media", "--sample", "2", "\(CueOrigin.base)/vod-ts/master.m3u8?rungshift=500@audio-de",
        ])
        #expect(
            audio.status == 1 && audio.stdout.contains("audio Deutsch [de] 6ch: its timestamps lie")
                && audio.stdout.contains("(rendition-aligned, RFC 8216bis §6.2.4)"), "\(audio.stdout)")
        // A media playlist's EXT-X-DEFINE IMPORT gets the multivariant playlist's variables; a playlist the RFC says must
        // fail (its QUERYPARAM absent from the URL) is said once, nothing fetched.
        let defined = try await CLI.run(["inspect", "--media", "--sample", "2", "\(CueOrigin.base)/define/master.m3u8?token=abc"])
        #expect(defined.status == 0 && defined.stdout.contains("media: no problems found"), "\(defined.stdout) \(defined.stderr)")
        let undefined = try await CLI.run(["inspect", "--media", "\(CueOrigin.base)/define/master.m3u8"])
        #expect(undefined.status == 2 && undefined.stderr.contains("has no query parameter token") && undefined.stdout.isEmpty)
        // Subtitles against byte-range media: each cue held against its segment's range of the file, not the file's start
        // (it said "segment 3's cues lie 6.0 s after the media" on this clean stream).
        let ranges = try await CLI.run(["inspect", "--media", "\(CueOrigin.base)/byterange-ts/master.m3u8"])
        #expect(ranges.status == 0 && ranges.stdout.contains("media: no problems found"), "\(ranges.stdout)")
        // A sample per variant: three segments each, spread over it.
        let sampled = try await CLI.run(["inspect", "--media", "--sample", "3", "\(CueOrigin.base)/vod-fmp4/master.m3u8"])
        #expect(sampled.status == 0 && sampled.stdout.contains("(3 of 10 segments"), "\(sampled.stdout)")
        let bad = try await CLI.run(["inspect", "--sample", "3", "\(CueOrigin.base)/vod-fmp4/master.m3u8"])
        #expect(bad.status != 0 && bad.stderr.contains("--sample goes with --media"), "\(bad.stderr)")
        // --html: the same report as one page beside the text (a plot for each of the four variants and the 5.1 rendition).
        let page = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-media-\(UUID().uuidString.prefix(8)).html")
        defer { try? FileManager.default.removeItem(at: page) }
        let html = try await CLI.run([
            "inspect", "--media", "--sample", "3", "--html", page.path, "\(CueOrigin.base)/vod-ts/master.m3u8?bw=0.6",
        ])
        let written = (try? String(contentsOf: page, encoding: .utf8)) ?? ""
        #expect(html.status == 1 && html.stdout.contains("bandwidth-under-peak"), "\(html.stderr)")
        #expect(
            written.contains("<code>bandwidth-under-peak</code>") && written.components(separatedBy: "<svg").count - 1 == 5,
            "\(written.prefix(300))")
        let noMedia = try await CLI.run(["inspect", "--html", page.path, "\(CueOrigin.base)/vod-ts/master.m3u8"])
        #expect(noMedia.status != 0 && noMedia.stderr.contains("--html goes with --media"))
    }

    @Test(
        "interstitials: the origin's pre-roll, mid-roll by asset list and post-roll listed; the list fetched and read; an empty, malformed or missing list said, the last two exit 1"
    )
    func interstitials() async throws {
        let url = "\(CueOrigin.base)/vod-ts/v144/index.m3u8?interstitials=1"
        let clean = try await CLI.run(["inspect", url])
        #expect(clean.status == 0, "\(clean.stdout)")
        #expect(clean.stdout.contains("interstitials (3):"), "\(clean.stdout)")
        #expect(clean.stdout.contains("  pre  before the primary (CUE=PRE), X-ASSET-URI /vod-fmp4/v144/index.m3u8"))
        #expect(clean.stdout.contains("restricts JUMP,SKIP, snaps IN,OUT, occupies POINT"))
        #expect(clean.stdout.contains("    asset list: 2 assets, 40 s: \(CueOrigin.base)/vod-fmp4/v144/index.m3u8 20 s"), "\(clean.stdout)")
        // The origin saw the list asked for as a player asks it.
        let json = try await CLI.run(["inspect", "--json", url])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let listed = try #require(doc["interstitials"] as? [[String: Any]])
        #expect(listed.map { $0["id"] as? String } == ["pre", "mid-4", "post"])
        #expect((listed[1]["assets"] as? [[String: Any]])?.count == 2 && listed[1]["restrict"] as? [String] == ["JUMP", "SKIP"])
        for (fault, line, status) in [
            ("empty", "asset list: empty (nothing plays; the primary resumes at once)", Int32(0)),
            ("bad", "asset list: not a JSON object", 1),
            ("404", "HTTP 404 Not Found", 1),
        ] {
            let r = try await CLI.run(["inspect", url + "&assetlist=\(fault)"])
            #expect(r.status == status && r.stdout.contains(line), "\(fault): \(r.stdout)")
        }
        // A slow list (the origin answers after 3 s): how long it took is said.
        let slow = try await CLI.run(["inspect", url + "&assetlist=slow"])
        let took = try #require(slow.stdout.firstMatch(of: /answered in (\d+\.\d+) s/)?.1, "\(slow.stdout)")
        #expect(slow.status == 0 && (Double(took) ?? 0) >= 2.9, "\(slow.stdout)")
    }

    @Test(
        "--media reads each segment's media: one opening without its IDR, a 10 s timestamp jump with no discontinuity, audio moved 300 ms: each named at its segment, exit 1"
    )
    func segmentMedia() async throws {
        let r = try await CLI.run([
            "inspect", "--media", "--json", "\(CueOrigin.base)/vod-ts/master.m3u8?nonidr=2&audioshift=300@5&tsjump=8",
        ])
        #expect(r.status == 1, "\(r.stderr)")
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let findings = try #require(obj["findings"] as? [[String: Any]])
        // The 360p variant (index 2): its bytes are the origin's own media with the three faults in them.
        let mine = findings.filter { $0["variant"] as? Int == 2 }
        let by = Dictionary(mine.map { (($0["rule"] as? String) ?? "", ($0["message"] as? String) ?? "") }) { a, _ in a }
        #expect(Set(by.keys) == ["segment-not-independent", "timestamps-continuous", "av-offset"], "\(mine)")
        #expect(by["segment-not-independent"]?.contains("1 segment (msn 2) opens with a frame that needs an earlier one") == true)
        #expect(by["timestamps-continuous"]?.contains("msn 8 starts 12.000 s after msn 7, whose EXTINF is 2.000 s") == true)
        // Audio 300 ms later than it was against video, where it moved (about 300 ms: the frames' durations round it).
        let moved = try #require(by["av-offset"])
        let ms = try #require(moved.firstMatch(of: /at msn 5 audio starts .* video: (\d+) ms out of step/)?.1)
        #expect((280...320).contains(Int(ms) ?? 0), "\(moved)")
        // The segments as read: msn 2 not independent, the others are.
        let variants = try #require(obj["variants"] as? [[String: Any]])
        let segments = try #require(variants[2]["segments"] as? [[String: Any]])
        #expect(segments.map { $0["independent"] as? Bool } == (0..<10).map { $0 != 2 })
    }

    @Test(
        "--media reads the subtitles too: a map 10 s off the media, segments without WEBVTT, each named, exit 1", .serialized,
        arguments: ["vod-ts", "vod-fmp4"])
    func mediaSubtitles(scenario: String) async throws {
        // An origin of its own: its faults touch no other suite's runs.
        let state = InspectSubtitlesOrigin.server.router.state
        defer { state.clearFaults() }
        for (kind, rule) in [(Fault.Kind.vttshift, "webvtt-off-media"), (.vttnoheader, "webvtt-header")] {
            state.clearFaults()
            _ = state.add(
                Fault(
                    id: 0, kind: kind, target: .segment, status: 200, ms: 10_000, scenario: scenario, rendition: nil, msn: nil,
                    remaining: nil, since: 0))
            let r = try await CLI.run(["inspect", "--media", "--json", "\(InspectSubtitlesOrigin.server.httpBase)/\(scenario)/master.m3u8"])
            #expect(r.status == 1, "\(r.stdout.suffix(500)) \(r.stderr)")
            let obj = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let findings = obj["findings"] as? [[String: Any]] ?? []
            #expect(findings.compactMap { $0["rule"] as? String } == [rule], "\(findings)")
            #expect(findings.first?["section"] as? String == "RFC 8216bis §3.1.4")
        }
    }
}

/// The origin `inspect --media`'s subtitle faults are switched on at.
enum InspectSubtitlesOrigin {
    static let server = AppOrigin.own()
}
