import Crypto
import _CryptoExtras
import Foundation
import HLS
import MediaFormats
import TestSupport
import Testing
@testable import Origin

@Suite("Embedded origin over real HTTP", .serialized)
struct OriginHTTPTests {
    /// Fetches and parses a playlist, failing the test on parse errors.
    func playlist(_ url: String, imported: [String: String] = [:]) async throws -> ParseResult {
        let r = try await get(url)
        #expect(r.status == 200, "\(url): \(r.status) \(r.text)")
        let parsed = PlaylistParser.parseLenient(r.text, options: ParseOptions(importedVariables: imported, url: url))
        #expect(!parsed.hasErrors, "\(url): \(parsed.diagnostics)")
        return parsed
    }

    @Test("every scenario: the multivariant and every media playlist parse clean, and a first segment is real media")
    func everyScenario() async throws {
        for s in Scenario.all {
            let master = "\(TestOrigin.base)/\(s.name)/master.m3u8" + (s.name == "define" ? "?token=t1" : "")
            let mv = try await playlist(master)
            let m = try #require(mv.playlist.multivariant, "\(s.name)")
            #expect(!m.variants.isEmpty)
            #expect(!mv.diagnostics.contains { $0.severity == .warning }, "\(s.name): \(mv.diagnostics)")
            let uris = m.variants.map(\.uri) + m.renditions.compactMap(\.uri) + m.iFrameVariants.map(\.uri)
            for u in uris {
                let url = resolve(u, against: master)
                let mp = try await playlist(url, imported: mv.variables)
                let media = try #require(mp.playlist.media, "\(url)")
                #expect(!media.segments.isEmpty, "\(url)")
                if s.isLive { #expect(media.segments.allSatisfy { $0.programDateTime != nil }, "\(url) lacks PDT") }
                guard let seg = media.segments.first(where: { !$0.gap }), !seg.keys.contains(where: { $0.method != .none }) else {
                    continue
                }
                var headers: [String: String] = [:]
                if let r = seg.byteRange { headers["Range"] = "bytes=\(r.offset)-\(r.offset + r.length - 1)" }
                let body = try await get(resolve(seg.uri, against: url), headers: headers)
                #expect(body.status == (seg.byteRange == nil ? 200 : 206), "\(url) \(seg.uri)")
                if seg.uri.contains(".vtt") {
                    #expect(body.text.hasPrefix("WEBVTT"))
                } else if s.container == .ts {
                    #expect(TransportStream.looksValid(body.body), "\(url) \(seg.uri) is not MPEG-TS")
                } else {
                    #expect(FragmentedMP4.looksValid(body.body), "\(url) \(seg.uri) is not fMP4")
                }
            }
        }
    }

    @Test("the ladder: 3 video rungs and an audio-only rung with complete attributes measured from the bytes")
    func ladder() async throws {
        let master = "\(TestOrigin.base)/vod-ts/master.m3u8"
        let m = try #require(try await playlist(master).playlist.multivariant)
        let video = m.variants.filter { $0.resolution != nil }
        #expect(video.count == 3)
        #expect(Set(video.map { $0.resolution!.height }) == [144, 240, 360])
        #expect(
            video.allSatisfy {
                $0.bandwidth != nil && $0.averageBandwidth != nil && $0.frameRate == 30 && $0.codecs == "avc1.4d401e,mp4a.40.2"
            })
        #expect(m.variants.contains { $0.codecs == "mp4a.40.2" && $0.resolution == nil })
        #expect(m.renditions.contains { $0.type == "SUBTITLES" && $0.uri != nil })
        #expect(m.renditions.filter { $0.type == "AUDIO" }.count == 2)
        #expect(m.iFrameVariants.count == 3)
        // BANDWIDTH is the peak segment bitrate: no segment exceeds it.
        let v = video[0]
        let mp = try #require(try await playlist(resolve(v.uri, against: master)).playlist.media)
        for s in mp.segments {
            let b = try await get(resolve(s.uri, against: resolve(v.uri, against: master)))
            #expect(Double(b.body.count * 8) / s.duration <= Double(v.bandwidth!) + 1)
        }
    }

    @Test(
        "the demo's segments go on in one timeline across the loop: PTS and PCR 20 s later each loop, continuity counters going on, the bytes otherwise the media's"
    )
    func demoContinues() throws {
        let router = TestOrigins.router(startedAt: 0)
        let now = Date().timeIntervalSince1970
        let model = StreamModel(scenario: Scenario.named("demo")!, rendition: TestOrigins.media.rendition("v144", .ts)!)
        // The last loop point published, the segment before it and the same position a loop earlier.
        var n = model.lastAvailable(at: now)
        while n % 10 != 0 { n -= 1 }
        func clear(_ i: Int) throws -> [UInt8] {
            let r = router.respond(OriginRequest(target: "/demo/v144/s\(i).ts"), now: now)
            #expect(r.status == 200, "s\(i).ts: \(r.status)")
            let id = i / OriginTiming.keyRotation
            let key = OriginKeys.key(scenario: "demo", id: id)
            return Array(try AES._CBC.decrypt(r.body, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: OriginKeys.iv(id))))
        }
        func pts(_ b: [UInt8]) -> Double { Double(TransportStream.probe(b).firstVideoPTS ?? 0) / 90_000 }
        let (last, first, before) = (try clear(n - 1), try clear(n), try clear(n - 10))
        #expect(abs(pts(first) - pts(last) - 2) < 0.001, "\(pts(last)) → \(pts(first))")
        #expect(abs(pts(first) - pts(before) - 20) < 0.001, "\(pts(before)) → \(pts(first))")
        // Only timestamps moved: as long as the media's segment, the PES payloads unchanged.
        let media = TestOrigins.media.rendition("v144", .ts)!.segments[0].bytes
        #expect(first.count == media.count)
        let ticks = Int64(((pts(first) - pts(media)) * 90_000).rounded())
        #expect(
            TransportStream.shiftingContinuity(TransportStream.shiftingTimestamps(media, by: ticks), by: model.continuityShift(n)) == first)
        // Each PID's continuity counter goes on from the loop's last segment into the next loop's first (ISO/IEC 13818-1
        // §2.4.3.3): a demuxer reading one after the other finds no packet missing.
        let ended = TransportStream.continuityCounters(last, last: true), next = TransportStream.continuityCounters(first, last: false)
        #expect(!next.isEmpty && next.allSatisfy { pid, cc in ended[pid].map { ($0 &+ 1) & 0x0F } == cc }, "\(ended) → \(next)")
        // The PCR moved with the PTS (the first packet that carries one).
        func pcr(_ b: [UInt8]) -> Int64? {
            stride(from: 0, to: b.count - 188, by: 188).lazy.compactMap { o -> Int64? in
                guard b[o + 3] & 0x20 != 0, b[o + 4] >= 7, b[o + 5] & 0x10 != 0 else { return nil }
                let high = Int64(b[o + 6]) << 25 | Int64(b[o + 7]) << 17
                return high | Int64(b[o + 8]) << 9 | Int64(b[o + 9]) << 1 | Int64(b[o + 10] >> 7)
            }.first
        }
        let (p0, p1) = (try #require(pcr(media)), try #require(pcr(first)))
        #expect(abs(Double(p1 - p0) / 90_000 - (pts(first) - pts(media))) < 0.001)
        // The playlist lists no discontinuity at the loop point.
        let text = String(decoding: router.respond(OriginRequest(target: "/demo/v144/index.m3u8"), now: now).body, as: UTF8.self)
        #expect(!text.contains("#EXT-X-DISCONTINUITY\n"), "\(text)")
    }

    @Test("a camera's timeline goes on across its loop: timestamps and continuity counters, no discontinuity listed")
    func cameraContinues() throws {
        let router = TestOrigins.router(startedAt: 0)
        let now = Date().timeIntervalSince1970
        let rendition = try #require(TestOrigins.media.rendition("cam-a", .ts))
        let model = StreamModel(scenario: Scenario.named("cam-a")!, rendition: rendition)
        var n = model.lastAvailable(at: now)
        while n % rendition.segments.count != 0 { n -= 1 }
        func body(_ i: Int) -> [UInt8] { router.respond(OriginRequest(target: "/cam-a/cam-a/s\(i).ts"), now: now).body }
        let (last, first) = (body(n - 1), body(n))
        func pts(_ b: [UInt8]) -> Double { Double(TransportStream.probe(b).firstVideoPTS ?? 0) / 90_000 }
        #expect(abs(pts(first) - pts(last) - 2) < 0.001, "\(pts(last)) → \(pts(first))")
        let ended = TransportStream.continuityCounters(last, last: true), next = TransportStream.continuityCounters(first, last: false)
        #expect(!next.isEmpty && next.allSatisfy { pid, cc in ended[pid].map { ($0 &+ 1) & 0x0F } == cc }, "\(ended) → \(next)")
        let text = String(decoding: router.respond(OriginRequest(target: "/cam-a/cam-a/index.m3u8"), now: now).body, as: UTF8.self)
        #expect(!text.contains("#EXT-X-DISCONTINUITY\n"), "\(text)")
    }

    @Test("2 s segments, an IDR at every segment start, timestamps aligned across rungs")
    func alignedIDR() async throws {
        var firstTimes: [[Double]] = []
        for rung in ["v144", "v240", "v360"] {
            let url = "\(TestOrigin.base)/vod-ts/\(rung)/index.m3u8"
            let mp = try #require(try await playlist(url).playlist.media)
            #expect(mp.segments.count == 10 && mp.segments.allSatisfy { abs($0.duration - 2) < 0.001 })
            var times: [Double] = []
            for s in mp.segments {
                let b = try await get(resolve(s.uri, against: url)).body
                let info = TransportStream.probe(b)
                times.append(Double(info.firstVideoPTS ?? 0) / 90_000)
                let au = Array(b[(info.firstVideoPESOffset ?? 0)..<(info.firstVideoAccessUnitEnd ?? b.count)])
                #expect(containsIDR(au), "\(rung) \(s.uri) does not start with an IDR")
            }
            firstTimes.append(times)
        }
        #expect(firstTimes[0] == firstTimes[1] && firstTimes[1] == firstTimes[2])
        #expect(zip(firstTimes[0], firstTimes[0].dropFirst()).allSatisfy { abs($1 - $0 - 2) < 0.001 })
    }

    @Test(
        "broadcast packaging: 29.97 fps in 2.002 s segments, each opening with audio before its IDR, timestamps from an hour, aligned across rungs and audio"
    )
    func broadcastPackaging() async throws {
        var firstTimes: [[Double]] = []
        var firstAudio: [Double] = []
        for rung in ["v144", "v240", "v360"] {
            let url = "\(TestOrigin.base)/broadcast-vod-ts/\(rung)/index.m3u8"
            let mp = try #require(try await playlist(url).playlist.media)
            #expect(mp.segments.count == 10 && mp.segments.allSatisfy { abs($0.duration - 2.002) < 0.001 })
            var times: [Double] = []
            for (i, s) in mp.segments.enumerated() {
                let b = try await get(resolve(s.uri, against: url)).body
                let info = TransportStream.probe(b)
                times.append(Double(info.firstVideoPTS ?? 0) / 90_000)
                if i == 0 { firstAudio.append(Double(info.firstAudioPTS ?? 0) / 90_000) }
                #expect(firstPESPID(b, info) == info.audioPIDs.first, "\(rung) \(s.uri): the first PES is audio")
                let au = Array(b[(info.firstVideoPESOffset ?? 0)..<(info.firstVideoAccessUnitEnd ?? b.count)])
                #expect(containsIDR(au), "\(rung) \(s.uri) still starts its video with an IDR")
                #expect(TransportStream.looksValid(b))
            }
            firstTimes.append(times)
        }
        #expect(firstTimes[0] == firstTimes[1] && firstTimes[1] == firstTimes[2])
        #expect(
            firstTimes[0].allSatisfy { $0 > 3600 }
                && zip(firstTimes[0], firstTimes[0].dropFirst()).allSatisfy { abs($1 - $0 - 2.002) < 0.001 })
        // The alternate audio starts where the muxed audio does (one timeline), ahead of the first frame.
        let de = try #require(try await playlist("\(TestOrigin.base)/broadcast-vod-ts/audio-de/index.m3u8").playlist.media)
        let deFirst = TransportStream.probe(
            try await get(resolve(de.segments[0].uri, against: "\(TestOrigin.base)/broadcast-vod-ts/audio-de/index.m3u8")).body
        ).firstAudioPTS
        #expect(deFirst.map { abs(Double($0) / 90_000 - firstAudio[0]) < 0.001 } == true)
        #expect(firstAudio[0] < firstTimes[0][0], "audio leads video")
    }

    /// The PID of the first PES a segment carries.
    func firstPESPID(_ b: [UInt8], _ info: TSInfo) -> Int? {
        var o = 0
        while o + 188 <= b.count {
            let pid = Int(b[o + 1] & 0x1F) << 8 | Int(b[o + 2])
            if b[o + 1] & 0x40 != 0, info.streamTypes[pid] != nil { return pid }
            o += 188
        }
        return nil
    }

    /// True when TS payload bytes hold an H.264 NAL of type 5 (IDR slice).
    func containsIDR(_ b: [UInt8]) -> Bool {
        var i = 0
        while i + 3 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1, b[i + 3] & 0x1F == 5 { return true }
            i += 1
        }
        return false
    }

    @Test("the I-frame playlist's byte ranges point at each segment's first access unit")
    func iFrames() async throws {
        let url = "\(TestOrigin.base)/vod-ts/v240/iframes.m3u8"
        let mp = try #require(try await playlist(url).playlist.media)
        #expect(mp.iFramesOnly && mp.segments.count == 10)
        let s = mp.segments[3]
        let r = try #require(s.byteRange)
        let b = try await get(resolve(s.uri, against: url), headers: ["Range": "bytes=\(r.offset)-\(r.offset + r.length - 1)"])
        #expect(b.status == 206 && b.body.count == r.length)
        #expect(b.headers["content-range"]?.hasPrefix("bytes \(r.offset)-\(r.offset + r.length - 1)/") == true)
        #expect(containsIDR(b.body))
    }

    @Test("live: the window advances in real time, PDT on the wall-clock grid, and the truth endpoint agrees")
    func liveAdvances() async throws {
        let url = "\(TestOrigin.base)/live-ts/v144/index.m3u8"
        let a = try #require(try await playlist(url).playlist.media)
        try await Task.sleep(for: .milliseconds(2300))
        let b = try #require(try await playlist(url).playlist.media)
        #expect(b.mediaSequence > a.mediaSequence)
        #expect(b.segments.count == 8)
        for s in b.segments { #expect(s.effectiveProgramDateTime == DateTime(seconds: Double(s.mediaSequence) * 2)) }
        let now = Date().timeIntervalSince1970
        let lastEnd = b.segments.last!.effectiveProgramDateTime!.seconds + 2
        #expect(lastEnd <= now && lastEnd > now - 4.5)
        let truth = try await get("\(TestOrigin.base)/control/truth?scenario=live-ts&rendition=v144")
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(truth.body)) as? [String: Any])
        let segs = try #require(obj["segments"] as? [[String: Any]])
        #expect(segs.count == 8)
        // The window may have slid by one between the two requests; where they overlap, PDTs agree.
        let pdts = Dictionary(uniqueKeysWithValues: b.segments.map { ($0.mediaSequence, $0.effectiveProgramDateTime!.iso8601) })
        let overlap = segs.filter { pdts[$0["msn"] as? Int ?? -1] != nil }
        #expect(overlap.count >= 7)
        #expect(overlap.allSatisfy { pdts[$0["msn"] as! Int] == $0["pdt"] as? String })
        #expect(segs.allSatisfy { ($0["mediaTime"] as? Double ?? -1) >= 0 })
    }

    @Test("AES-128: keys rotate every 3 segments, the key endpoint serves them (with latency), segments decrypt to MPEG-TS")
    func aes() async throws {
        let url = "\(TestOrigin.base)/aes-vod/v144/index.m3u8"
        let mp = try #require(try await playlist(url).playlist.media)
        #expect(Set(mp.segments.compactMap { $0.keys.first?.uri }).count == 4)
        let s = mp.segments[4]
        let key = try #require(s.keys.first)
        let keyBytes = try await get(resolve(key.uri!, against: url)).body
        #expect(keyBytes == OriginKeys.key(scenario: "aes-vod", id: 1))
        let enc = try await get(resolve(s.uri, against: url)).body
        #expect(!TransportStream.looksValid(enc))
        let iv = try #require(hexBytes(key.iv!))
        let plain = try AES._CBC.decrypt(enc, using: SymmetricKey(data: keyBytes), iv: AES._CBC.IV(ivBytes: iv))
        #expect(TransportStream.looksValid(Array(plain)))
        _ = try await get("\(TestOrigin.base)/control/key-latency?ms=400")
        let slow = try await get(resolve(key.uri!, against: url))
        _ = try await get("\(TestOrigin.base)/control/key-latency?ms=0")
        #expect(slow.seconds >= 0.4)
        let perRequest = try await get(resolve(key.uri!, against: url) + "?latency=250")
        #expect(perRequest.seconds >= 0.25)
    }

    @Test(
        "SAMPLE-AES: stream types 0xDB/0xCF; slices and ADTS frames encrypted by the pattern; FFmpeg's way of decrypting gives back every PES payload"
    )
    func sampleAES() async throws {
        let url = "\(TestOrigin.base)/sample-aes-vod/v360/index.m3u8"
        let mp = try #require(try await playlist(url).playlist.media)
        let s = mp.segments[4]
        let key = try #require(s.keys.first)
        #expect(key.method == .sampleAES && Set(mp.segments.compactMap { $0.keys.first?.uri }).count == 4)
        let keyBytes = try await get(resolve(key.uri!, against: url)).body
        let iv = try #require(hexBytes(key.iv!))
        let enc = try await get(resolve(s.uri, against: url)).body
        let clear = try await get("\(TestOrigin.base)/vod-ts/v360/seg4.ts").body
        #expect(enc != clear && TransportStream.looksValid(enc))
        #expect(Set(TransportStream.probe(enc).streamTypes.values) == [0xDB, 0xCF])
        // The remuxer alone changes nothing.
        #expect(TransportStream.rewritingPES(clear, streamType: { $0 }, transform: { _, p in p }) == clear)
        let encrypted = pesPayloads(enc)
        let original = pesPayloads(clear)
        #expect(encrypted.count == original.count && encrypted.count > 50)
        var changed = 0
        for ((type, e), (_, c)) in zip(encrypted, original) {
            #expect(SampleAESReference.decrypt(type: type, e, key: keyBytes, iv: iv) == c)
            if e != c { changed += 1 }
        }
        #expect(changed > encrypted.count / 2, "most PES payloads carry encrypted samples")
    }

    /// Every PES payload of a segment with its stream type, in order.
    func pesPayloads(_ ts: [UInt8]) -> [(UInt8, [UInt8])] {
        var out: [(UInt8, [UInt8])] = []
        _ = TransportStream.rewritingPES(
            ts, streamType: { $0 },
            transform: { t, p in
                out.append((t, p)); return nil
            })
        return out
    }

    func hexBytes(_ s: String) -> [UInt8]? {
        let h = Array(s.dropFirst(2).utf8)
        guard h.count == 32 else { return nil }
        return stride(from: 0, to: 32, by: 2).map { UInt8(String(decoding: h[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    @Test("GAP: one rung's outage leaves the others intact; GAP URIs answer 404; gap-all covers every rung and rendition")
    func gaps() async throws {
        let one = try #require(try await playlist("\(TestOrigin.base)/gap-one/v360/index.m3u8").playlist.media)
        #expect(one.segments.enumerated().filter { $0.element.gap }.map(\.offset) == [4, 5])
        let gapFetch = try await get("\(TestOrigin.base)/gap-one/v360/\(one.segments[4].uri)")
        #expect(gapFetch.status == 404)
        let other = try #require(try await playlist("\(TestOrigin.base)/gap-one/v240/index.m3u8").playlist.media)
        #expect(other.segments.allSatisfy { !$0.gap })
        #expect(try await get("\(TestOrigin.base)/gap-one/v240/\(other.segments[4].uri)").status == 200)
        for r in ["v144", "v240", "v360", "audio-en", "audio-de", "subs-en"] {
            let m = try #require(try await playlist("\(TestOrigin.base)/gap-all/\(r)/index.m3u8").playlist.media)
            #expect(m.segments.filter(\.gap).count == 2, "\(r)")
        }
    }

    @Test("EXT-X-DEFINE: QUERYPARAM and NAME/VALUE in the multivariant, IMPORT in the media playlist; unresolved variables are refused")
    func define() async throws {
        let master = "\(TestOrigin.base)/define/master.m3u8?token=abc"
        let mv = try await playlist(master)
        let m = try #require(mv.playlist.multivariant)
        #expect(m.variants.first?.uri == "v144/index.m3u8?token=abc")
        #expect(mv.playlist.defines.map(\.name) == ["token", "rung"])
        let mediaURL = resolve(m.variants[0].uri, against: master)
        let mp = try #require(try await playlist(mediaURL, imported: mv.variables).playlist.media)
        #expect(mp.segments.first?.uri == "seg0.ts?token=abc")
        #expect(try await get(resolve(mp.segments[0].uri, against: mediaURL)).status == 200)
        let literal = try await get("\(TestOrigin.base)/define/v144/%7B$seg%7D0.ts?token=%7B$token%7D")
        #expect(literal.status == 403 && literal.text.contains("EXT-X-DEFINE was not applied"))
    }

    @Test("two cameras on one clock: 2 s and 3 s segments, B's grid 1 s after A's, B 4 s behind")
    func cameras() async throws {
        let a = try #require(try await playlist("\(TestOrigin.base)/cam-a/cam-a/index.m3u8").playlist.media)
        let b = try #require(try await playlist("\(TestOrigin.base)/cam-b/cam-b/index.m3u8").playlist.media)
        #expect(a.targetDuration == 2 && b.targetDuration == 3)
        let now = Date().timeIntervalSince1970
        let endA = a.segments.last!.effectiveProgramDateTime!.seconds + 2
        let endB = b.segments.last!.effectiveProgramDateTime!.seconds + 3
        #expect(now - endA < 2.5)
        #expect(now - endB >= 4 && now - endB < 7.5)
        #expect(b.segments.allSatisfy { Int($0.effectiveProgramDateTime!.seconds - 1) % 3 == 0 })
        #expect(Timeline.commonProgramDateTimeWindow(a, b, margin: 1) != nil)
        let master = try #require(try await playlist("\(TestOrigin.base)/cam-b/master.m3u8").playlist.multivariant)
        #expect(master.variants.first?.frameRate == 25)
    }

    @Test("faults on demand: 404/500 once on a segment, 500 on a key, slow playlist, stalled and truncated bodies")
    func faults() async throws {
        let base = TestOrigin.base
        defer { TestOrigin.state.clearFaults() }
        _ = try await get("\(base)/control/fault?kind=status&status=404&target=segment&scenario=vod-ts&rendition=v144&msn=2&count=1")
        #expect(try await get("\(base)/vod-ts/v144/seg2.ts").status == 404)
        #expect(try await get("\(base)/vod-ts/v144/seg2.ts").status == 200)
        #expect(try await get("\(base)/vod-ts/v144/seg3.ts").status == 200)
        _ = try await get("\(base)/control/fault?kind=status&status=500&target=segment&scenario=vod-fmp4")
        #expect(try await get("\(base)/vod-fmp4/v240/seg0.m4s").status == 500)
        _ = try await get("\(base)/control/fault?kind=status&status=500&target=key&scenario=aes-vod")
        #expect(try await get("\(base)/keys/aes-vod/k0.key").status == 500)
        TestOrigin.state.clearFaults()
        _ = try await get("\(base)/control/fault?kind=slow&ms=700&target=playlist&scenario=vod-ts&count=1")
        let slow = try await get("\(base)/vod-ts/v240/index.m3u8")
        #expect(slow.status == 200 && slow.seconds >= 0.7)
        _ = try await get("\(base)/control/fault?kind=stall&target=segment&scenario=vod-ts&rendition=v360&count=1")
        await #expect(throws: (any Error).self) { _ = try await get("\(base)/vod-ts/v360/seg1.ts", timeout: 2) }
        _ = try await get("\(base)/control/fault?kind=truncate&target=segment&scenario=vod-ts&rendition=v360&count=1")
        await #expect(throws: (any Error).self) { _ = try await get("\(base)/vod-ts/v360/seg1.ts", timeout: 5) }
        #expect(try await get("\(base)/vod-ts/v360/seg1.ts").status == 200)
        let list = try await get("\(base)/control/faults")
        #expect(list.text.contains("\"kind\": \"truncate\"") && list.text.contains("\"remaining\": 0"))
    }

    @Test("live faults: a playlist that stops updating, and a media-sequence reset")
    func liveFaults() async throws {
        let base = TestOrigin.base
        defer { TestOrigin.state.clearFaults() }
        _ = try await get("\(base)/control/fault?kind=freeze&scenario=live-fmp4")
        let a = try await get("\(base)/live-fmp4/v144/index.m3u8").text
        try await Task.sleep(for: .milliseconds(2200))
        let b = try await get("\(base)/live-fmp4/v144/index.m3u8").text
        #expect(a == b)
        let before = try #require(PlaylistParser.parseLenient(try await get("\(base)/live-ts/v240/index.m3u8").text).playlist.media)
        _ = try await get("\(base)/control/fault?kind=reset&scenario=live-ts")
        try await Task.sleep(for: .milliseconds(2200))
        let after = try #require(PlaylistParser.parseLenient(try await get("\(base)/live-ts/v240/index.m3u8").text).playlist.media)
        #expect(after.mediaSequence == 0 && before.mediaSequence > 1000)
        var tracker = LiveRefreshTracker()
        _ = tracker.update(before, at: 0)
        #expect(tracker.update(after, at: 2.2) == .reset(previousMediaSequence: before.mediaSequence, mediaSequence: 0))
    }

    @Test("the request log records path, range, status, bytes, and the segment's MSN, PDT and media time")
    func requestLog() async throws {
        let since = TestOrigin.state.log().count
        let r = try await get("\(TestOrigin.base)/live-ts/v144/index.m3u8")
        let mp = try #require(PlaylistParser.parseLenient(r.text).playlist.media)
        let seg = mp.segments[2]
        let part = try await get("\(TestOrigin.base)/live-ts/v144/\(seg.uri)", headers: ["Range": "bytes=0-187"])
        #expect(part.status == 206 && part.body.count == 188)
        let log = try await get("\(TestOrigin.base)/control/log?since=\(since)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.body)) as? [[String: Any]])
        let e = try #require(entries.first { ($0["path"] as? String)?.hasSuffix(seg.uri) == true })
        #expect(e["status"] as? Int == 206 && e["bytes"] as? Int == 188 && e["range"] as? String == "bytes=0-187")
        #expect(e["msn"] as? Int == seg.mediaSequence)
        #expect(e["pdt"] as? String == seg.effectiveProgramDateTime?.iso8601)
        #expect((e["mediaTime"] as? Double).map { $0 > 0 } == true)
        #expect(entries.contains { $0["kind"] as? String == "playlist" && $0["status"] as? Int == 200 })
    }

    @Test("HTTPS with the generated certificate: trusted via its PEM, pinned by its key, refused otherwise")
    func https() async throws {
        let server = TestOrigin.server
        let id = try #require(server.identity)
        let url = try #require(server.httpsBase) + "/vod-ts/master.m3u8"
        let pem = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-origin-\(UUID().uuidString).pem")
        try id.certificatePEM.write(to: pem, atomically: true, encoding: .utf8)
        let trusted = try await runProcess("curl", ["-sS", "--fail", "--cacert", pem.path, url])
        #expect(trusted.status == 0 && trusted.output.hasPrefix("#EXTM3U"), "\(trusted.output)")
        let refused = try await runProcess("curl", ["-sS", "--fail", url])
        #expect(refused.status == 60, "\(refused.output)")
        let pinned = try await runProcess("curl", ["-sS", "--fail", "-k", "--pinnedpubkey", "sha256//\(id.spkiPin)", url])
        #expect(pinned.status == 0, "\(pinned.output)")
        let wrongPin = try await runProcess(
            "curl", ["-sS", "--fail", "-k", "--pinnedpubkey", "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", url])
        #expect(wrongPin.status == 90)
        #expect(id.fingerprint.split(separator: ":").count == 32)
    }

    @Test("plain mpv plays every scenario except define (FFmpeg 5.1 ignores EXT-X-DEFINE), decoding real frames")
    func mpvPlays() async throws {
        for s in Scenario.all where s.name != "define" {
            let url = "\(TestOrigin.base)/\(s.name)/master.m3u8"
            let r = try await runProcess(
                "mpv", ["--no-config", "--vo=null", "--ao=null", "--frames=30", "--msg-level=all=warn,cplayer=info", url], timeout: 90)
            #expect(r.status == 0, "\(s.name): \(r.output.suffix(400))")
            #expect(r.output.contains("VO: [null]"), "\(s.name): no video frame decoded: \(r.output.suffix(400))")
        }
        let define = try await runProcess(
            "mpv", ["--no-config", "--vo=null", "--ao=null", "--frames=30", "\(TestOrigin.base)/define/master.m3u8?token=x"])
        #expect(define.status != 0 && define.output.contains("403"))
    }
}

/// SAMPLE-AES decryption as FFmpeg 5.1's HLS demuxer does it (hls_sample_encryption.c), written from the format, for checking the origin.
enum SampleAESReference {
    static func decrypt(type: UInt8, _ es: [UInt8], key: [UInt8], iv: [UInt8]) -> [UInt8] {
        type == 0xDB ? video(es, key, iv) : type == 0xCF ? audio(es, key, iv) : es
    }

    static func cbc(_ b: [UInt8], _ key: [UInt8], _ iv: [UInt8]) -> [UInt8] {
        Array(try! AES._CBC.decrypt(b, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
    }

    /// Each slice NAL unit over 48 bytes: emulation prevention removed, then one block in ten decrypted after 32 clear bytes.
    static func video(_ es: [UInt8], _ key: [UInt8], _ iv: [UInt8]) -> [UInt8] {
        var starts: [Int] = []
        var i = 0
        while i + 3 <= es.count { if es[i] == 0, es[i + 1] == 0, es[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 } }
        var out = Array(es[..<(starts.first.map { $0 } ?? es.count)])
        for (n, start) in starts.enumerated() {
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : es.count
            var trailing: [UInt8] = []
            if n + 1 < starts.count, end > start, es[end - 1] == 0 { end -= 1; trailing = [0] } // a 4-byte start code's first zero
            var nal = Array(es[start..<end])
            if let h = nal.first, [1, 5].contains(h & 0x1F), nal.count > 48 {
                var raw: [UInt8] = []
                var j = 0
                while j < nal.count {
                    if nal.count - j > 3, nal[j] == 0, nal[j + 1] == 0, nal[j + 2] == 3 {
                        raw += [0, 0]; j += 3
                    } else {
                        raw.append(nal[j]); j += 1
                    }
                }
                var o = 32
                var chain = iv
                while raw.count - o > 16 {
                    let block = Array(raw[o..<(o + 16)])
                    raw.replaceSubrange(o..<(o + 16), with: cbc(block, key, chain))
                    chain = block
                    o += 160
                }
                nal = raw
            }
            out += nal + trailing
            if n + 1 < starts.count { out += [0, 0, 1] }
        }
        return out
    }

    /// Each ADTS frame with more than 31 bytes after its header: its whole blocks after 16 clear bytes, CBC from the IV.
    static func audio(_ es: [UInt8], _ key: [UInt8], _ iv: [UInt8]) -> [UInt8] {
        var out = es
        var o = 0
        while o + 7 <= out.count, out[o] == 0xFF, out[o + 1] & 0xF0 == 0xF0 {
            let length = Int(out[o + 3] & 0x03) << 11 | Int(out[o + 4]) << 3 | Int(out[o + 5]) >> 5
            let header = out[o + 1] & 0x01 != 0 ? 7 : 9
            let blocks = (length - header - 16) / 16
            if length - header > 31, blocks > 0, o + length <= out.count {
                let from = o + header + 16
                out.replaceSubrange(from..<(from + blocks * 16), with: cbc(Array(out[from..<(from + blocks * 16)]), key, iv))
            }
            o += max(length, 1)
        }
        return out
    }
}

@Suite("Faults timed by the origin's clock (pure: the router given the time)")
struct TimedFaultTests {
    func text(_ r: OriginResponse) -> String { String(decoding: r.body, as: UTF8.self) }

    @Test("after=S starts a fault S seconds on, for= counts from then: a 503, and a freeze that holds the window as it was then")
    func after() throws {
        let router = TestOrigins.router(startedAt: 0)
        let t = 1_800_000_000.0
        let playlist = "/cam-a/cam-a/index.m3u8?client=timed"
        _ = router.respond(
            OriginRequest(target: "/control/fault?kind=status&status=503&target=playlist&client=timed&after=5&for=2"), now: t)
        #expect(router.respond(OriginRequest(target: playlist), now: t + 4.9).status == 200, "not yet")
        #expect(router.respond(OriginRequest(target: playlist), now: t + 5.1).status == 503)
        #expect(router.respond(OriginRequest(target: playlist), now: t + 7.1).status == 200, "over")
        _ = router.respond(OriginRequest(target: "/control/clear"), now: t + 8)
        _ = router.respond(OriginRequest(target: "/control/fault?kind=freeze&scenario=cam-a&client=timed&after=4&for=6"), now: t + 8)
        let before = text(router.respond(OriginRequest(target: playlist), now: t + 11.9))
        let moved = text(router.respond(OriginRequest(target: playlist), now: t + 12))
        let held = text(router.respond(OriginRequest(target: playlist), now: t + 17.9))
        let back = text(router.respond(OriginRequest(target: playlist), now: t + 18.1))
        #expect(moved == held, "frozen from t + 12 to t + 18")
        #expect(before != back && held != back, "the window moves before and after")
        let sequence = { (s: String) in s.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") } }
        #expect(sequence(back) != sequence(held), "back to the clock, past the segments it never listed")
    }

    @Test("a freeze switched on later than the moment it names holds the window from when it is on: the stream never goes back")
    func lateFreeze() throws {
        let router = TestOrigins.router(startedAt: 0)
        let t = 1_800_000_000.0
        let playlist = "/cam-a/cam-a/index.m3u8?client=late"
        let sequence = { (at: Double) in
            String(decoding: router.respond(OriginRequest(target: playlist), now: at).body, as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }.map { Int($0.dropFirst(22)) ?? -1 } ?? -1
        }
        let served = sequence(t + 6)
        var f = Fault(
            id: 0, kind: .freeze, target: .playlist, status: 0, ms: 0, scenario: "cam-a", rendition: nil, msn: nil, remaining: nil,
            since: t, until: t + 20)
        f.client = "late"
        _ = router.state.add(f, now: t + 6.5)
        let held = sequence(t + 7)
        #expect(held >= served, "held at t + 6.5, not at t: \(served) then \(held)")
        #expect(sequence(t + 15) == held)
    }
}
