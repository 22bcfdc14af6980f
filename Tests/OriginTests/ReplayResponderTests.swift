import Foundation
import LoaderEvents
import Testing
@testable import Origin

@Suite("The replay's origin: recorded answers in turn, playlists by time (no sockets)")
struct ReplayResponderTests {
    func entry(_ url: String, _ t: Double, _ status: Int?, body: String? = nil, failure: String? = nil, secret: Bool = false)
        -> RecordedExchange
    {
        RecordedExchange(
            t: t, url: url, secret: secret, status: status, headers: [("Content-Length", "100")], ttfb: 0.2, seconds: 0.5, bytes: 10,
            failure: failure, body: body)
    }

    func responder(speed: Double = 1) -> ReplayResponder {
        let o = "http://origin.test:8080"
        let r = ReplayResponder(
            exchanges: [
                entry("\(o)/live/index.m3u8", 0, 200, body: "p1"), entry("\(o)/live/seg1.ts", 1, 500),
                entry("\(o)/live/seg1.ts", 1.2, 200, body: "s1"), entry("\(o)/live/index.m3u8", 4, 200, body: "p2"),
                entry("\(o)/live/seg2.ts", 5, 200, body: "s2", failure: "truncated"), entry("\(o)/keys/k1", 6, 200, secret: true),
                entry("\(o)/live/seg3.ts", 7, nil, failure: "timeout"), entry("\(o)/live/seg4.ts", 8, nil, failure: "connect"),
            ], speed: speed,
            body: { hash in
                [
                    "p1": Array("#EXTM3U\nhttp://origin.test:8080/live/seg1.ts\n".utf8),
                    "p2": Array("#EXTM3U\nseg2.ts\nseg5.ts\n".utf8),
                    "s1": [1, 2, 3], "s2": [4, 5],
                ][hash]
            }, startedAt: 1000)
        r.listening(at: "http://127.0.0.1:9")
        return r
    }

    func get(_ r: ReplayResponder, _ target: String, at t: Double) -> OriginResponse {
        r.respond(OriginRequest(target: target), now: 1000 + t)
    }

    @Test("each URL's n-th request gets the n-th recorded answer, then the last good one")
    func inTurn() {
        let r = responder()
        #expect(r.replayURL("http://origin.test:8080/live/seg1.ts") == "http://127.0.0.1:9/h0/live/seg1.ts")
        #expect(get(r, "/h0/live/seg1.ts", at: 0).status == 500)
        let ok = get(r, "/h0/live/seg1.ts", at: 0)
        #expect(ok.status == 200 && ok.body == [1, 2, 3] && ok.delayMs == 200 && ok.exact)
        #expect(get(r, "/h0/live/seg1.ts", at: 0).status == 200, "past the recorded ones: the last good one")
        #expect(get(r, "/h0/nowhere.ts", at: 0).status == 404)
    }

    @Test("a segment its playlists list that the recorded session never reached is held, not refused, and no divergence")
    func pastTheRecording() {
        let r = responder()
        let held = get(r, "/h0/live/seg5.ts", at: 9)
        #expect(held.delivery == .silent(seconds: 3600) && held.status == 0, "\(held.delivery)")
        #expect(r.takeDivergences().isEmpty)
        #expect(get(r, "/h0/live/seg6.ts", at: 9).status == 404 && r.takeDivergences().count == 1, "listed nowhere: refused, said")
    }

    @Test("media requests are counted as the recording had them; what the recording lacks is a divergence, each said once")
    func progressAndDivergences() {
        let r = responder()
        #expect(r.recordedMediaRequests(before: 0.5) == 0)
        #expect(r.recordedMediaRequests(before: 5.5) == 3, "seg1 twice and seg2; the playlists are not counted")
        #expect(r.recordedMediaRequests(before: 100) == 6)
        _ = get(r, "/h0/live/index.m3u8", at: 0)
        _ = get(r, "/h0/live/seg1.ts", at: 0)
        _ = get(r, "/h0/live/seg1.ts", at: 0)
        #expect(r.mediaRequests == 2 && r.takeDivergences().isEmpty, "as recorded")
        _ = get(r, "/h0/live/seg1.ts", at: 0)
        _ = get(r, "/h0/live/seg1.ts", at: 0)
        _ = get(r, "/h0/nowhere.ts", at: 0)
        _ = get(r, "/h0/nowhere.ts", at: 0)
        let said = r.takeDivergences()
        #expect(said.count == 2, "\(said)")
        #expect(said.first?.contains("/live/seg1.ts 3 times; the recording has it twice") == true, "\(said)")
        #expect(said.last?.contains("/h0/nowhere.ts, which the recording does not have") == true, "\(said)")
        #expect(r.takeDivergences().isEmpty, "taken once")
    }

    @Test("a playlist is the version the origin gave last at that moment; its absolute URIs lead back here")
    func playlistsByTime() {
        let r = responder()
        let early = String(decoding: get(r, "/h0/live/index.m3u8", at: 1).body, as: UTF8.self)
        #expect(early.contains("http://127.0.0.1:9/h0/live/seg1.ts"), "\(early)")
        #expect(String(decoding: get(r, "/h0/live/index.m3u8", at: 4.5).body, as: UTF8.self).contains("seg2.ts"))
        // Twice as fast: at 2.5 s of replay the session was at 5 s.
        #expect(String(decoding: get(responder(speed: 2), "/h0/live/index.m3u8", at: 2.5).body, as: UTF8.self).contains("seg2.ts"))
        #expect(get(responder(speed: 2), "/h0/live/seg1.ts", at: 0).delayMs == 100, "waits scale too")
    }

    @Test("cuts, silence, refusals and keys as recorded; a path-absolute URI finds its origin")
    func failures() {
        let r = responder()
        let cut = get(r, "/h0/live/seg2.ts", at: 5)
        #expect(cut.delivery == .cut(bytes: 2) && cut.body.count == 100, "Content-Length promises what the origin promised")
        #expect(get(r, "/h0/live/seg3.ts", at: 7).delivery == .silent(seconds: 0.5))
        #expect(get(r, "/h0/live/seg4.ts", at: 8).delivery == .refuse)
        let key = get(r, "/keys/k1", at: 6)
        #expect(key.status == 404 && String(decoding: key.body, as: UTF8.self).contains("never recorded"))
    }

    @Test("a range the recording never asked, whose bytes its answers hold: cut from them exactly, and said; one it lacks is not")
    func rangesCut() {
        let o = "http://origin.test:8080"
        let file = (0..<100).map { UInt8($0) }
        func piece(_ range: String, _ from: Int, _ to: Int, t: Double) -> RecordedExchange {
            RecordedExchange(
                t: t, url: "\(o)/file.mp4", range: range, status: 206,
                headers: [("Content-Type", "video/mp4"), ("Content-Range", "bytes \(from)-\(to)/100")], ttfb: 0, seconds: 0,
                bytes: to - from + 1,
                failure: nil, body: "\(from)-\(to)")
        }
        let r = ReplayResponder(
            exchanges: [piece("bytes=0-39", 0, 39, t: 0), piece("bytes=30-69", 30, 69, t: 1), piece("bytes=80-", 80, 99, t: 2)],
            speed: 1,
            body: { hash in
                let ends = hash.split(separator: "-").compactMap { Int($0) }
                return ends.count == 2 ? Array(file[ends[0]...ends[1]]) : nil
            }, startedAt: 1000)
        r.listening(at: "http://127.0.0.1:9")
        var req = OriginRequest(target: "/h0/file.mp4")
        req.range = "bytes=10-59"
        let cut = r.respond(req, now: 1000)
        #expect(
            cut.status == 206 && cut.body == Array(file[10...59]) && cut.headers.contains { $0 == ("Content-Range", "bytes 10-59/100") })
        #expect(
            r.takeDivergences().first?.contains(
                "/file.mp4 (bytes=10-59), which the recording never asked: answered from the bytes it recorded") == true)
        req.range = "bytes=60-"
        #expect(r.respond(req, now: 1000).body != Array(file[60...99]), "70–79 never recorded: not cut")
        req.range = "bytes=30-69"
        #expect(r.respond(req, now: 1000).body == Array(file[30...69]), "a recorded range: its own answer")
    }

    @Test("a segment listed through a variable (QUERYPARAM, IMPORT) and never asked while recording is held, not a 404")
    func listedThroughVariables() {
        let o = "http://origin.test:8080"
        let r = ReplayResponder(
            exchanges: [
                entry("\(o)/define/master.m3u8?token=REDACTED", 0, 200, body: "mv"),
                entry("\(o)/define/v144/index.m3u8?token=REDACTED", 0.1, 200, body: "media"),
                entry("\(o)/define/v144/seg0.ts?token=REDACTED", 0.2, 200, body: "s0"),
            ], speed: 1,
            body: { hash in
                [
                    "mv": Array(
                        "#EXTM3U\n#EXT-X-DEFINE:QUERYPARAM=\"token\"\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv144/index.m3u8?token={$token}\n".utf8),
                    "media": Array(
                        "#EXTM3U\n#EXT-X-DEFINE:IMPORT=\"token\"\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg0.ts?token={$token}\n#EXTINF:2,\nseg1.ts?token={$token}\n"
                            .utf8),
                    "s0": [1, 2],
                ][hash]
            }, startedAt: 1000)
        r.listening(at: "http://127.0.0.1:9")
        let unasked = get(r, "/h0/define/v144/seg1.ts?token=REDACTED", at: 1)
        #expect(unasked.status == 0 && r.takeDivergences().isEmpty, "held as the recorded origin would have been: \(unasked.status)")
        #expect(get(r, "/h0/define/v144/seg9.ts?token=REDACTED", at: 1).status == 404, "listed nowhere: a divergence")
    }
}
