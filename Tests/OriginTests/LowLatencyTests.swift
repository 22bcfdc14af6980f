import Foundation
import HLS
import MediaFormats
import Testing
@testable import Origin
import TestSupport

@Suite("The origin's LL-HLS streams (ll-ts, ll-fmp4): parts cut from real media, blocking reload, delta updates, preload hints")
struct LowLatencyTests {
    static var media: MediaLibrary { TestOrigins.media }
    static var model: LowLatencyModel {
        LowLatencyModel(scenario: Scenario.named("ll-ts")!, rendition: media.lowLatency("v240", .ts)!)
    }

    /// The shape both containers share: five 4 s segments of `2 × split` parts of `2 / split` s (1 s for the plain LL streams,
    /// 0.333 s for the `-fast` ones), the two that open an encoded segment INDEPENDENT, concatenating to the segment; `each`
    /// checks part `k` of a segment (its bytes, the part's bytes).
    static func checkParts(_ ll: LowLatencyRendition, _ id: String, split: Int, each: ([UInt8], Int, [UInt8]) throws -> Void) rethrows {
        #expect(ll.rendition.segments.count == 5 && ll.rendition.nominalDuration == 4)
        for (pos, seg) in ll.rendition.segments.enumerated() {
            let parts = ll.parts[pos]
            #expect(parts.map(\.independent) == (0..<(2 * split)).map { $0 % split == 0 }, "\(id) segment \(pos)")
            #expect(parts.allSatisfy { abs($0.duration - 2 / Double(split)) < 0.001 }, "\(parts.map(\.duration))")
            #expect(parts.flatMap { seg.bytes[$0.range] } == seg.bytes)
            for (k, p) in parts.enumerated() { try each(seg.bytes, k, Array(seg.bytes[p.range])) }
        }
    }

    @Test(
        "each 4 s segment is four 1 s parts (-fast: twelve of 0.333 s) that concatenate to it; the two that open an encoded segment start with its IDR",
        arguments: [2, 6])
    func parts(split: Int) throws {
        for id in OriginTiming.videoRungs {
            let ll = try #require(Self.media.lowLatency(id, .ts, split: split), "\(id)")
            // Each part is whole TS packets and starts with the video frame of its moment.
            try Self.checkParts(ll, id, split: split) { seg, k, bytes in
                let pid = TransportStream.probe(seg).videoPID
                let first = try #require(TransportStream.videoPESStarts(seg).first?.dts)
                #expect(bytes.count % 188 == 0 && bytes.first == 0x47)
                let dts = try #require(TransportStream.videoPESStarts(bytes, videoPID: pid).first?.dts)
                #expect(abs(Double(dts &- first) / 90000 - Double(k) * 2 / Double(split)) < 0.001, "\(id) part \(k)")
            }
        }
    }

    @Test(
        "ll-fmp4: each 4 s segment is four 1 s fragments (-fast: twelve of 0.333 s; moof + mdat) that concatenate to it; ffprobe decodes every frame",
        arguments: [2, 6])
    func fragmentParts(split: Int) async throws {
        for id in OriginTiming.videoRungs {
            let ll = try #require(Self.media.lowLatency(id, .fmp4, split: split), "\(id)")
            let source = try #require(Self.media.rendition(id, .fmp4))
            let initSection = try #require(ll.rendition.initSection)
            let tracks = FragmentedMP4.tracks(initSection: initSection)
            let video = try #require(tracks.first { $0.handler == "vide" })
            #expect(tracks.count == 2, "video and its muxed audio")
            // Each part is a fragment of its own whose video starts at its moment.
            try Self.checkParts(ll, id, split: split) { seg, k, bytes in
                let start = try #require(FragmentedMP4.firstDecodeTimes(segment: seg)[video.id])
                #expect(FragmentedMP4.boxes(bytes)?.map(\.type) == ["moof", "mdat"], "\(id) part \(k)")
                let t = try #require(FragmentedMP4.firstDecodeTimes(segment: bytes)[video.id])
                #expect(abs(Double(t - start) / Double(video.timescale) - Double(k) * 2 / Double(split)) < 0.001, "\(id) part \(k)")
            }
            // The init section and the cut segments decode to as many frames and audio packets as the packager's segments.
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("llfmp4-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let cut = dir.appendingPathComponent("cut.mp4")
            let whole = dir.appendingPathComponent("whole.mp4")
            try Data(initSection + ll.rendition.segments.flatMap(\.bytes)).write(to: cut)
            try Data(initSection + source.segments.flatMap(\.bytes)).write(to: whole)
            func count(_ f: URL, _ stream: String) async throws -> String {
                let args = [
                    "-v", "error", "-select_streams", stream, "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                ]
                let r = try await runProcess("ffprobe", args + [f.path])
                #expect(r.status == 0, "\(r.output)")
                return r.output.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            for stream in ["v:0", "a:0"] {
                let (a, b) = (try await count(cut, stream), try await count(whole, stream))
                #expect(a == b && (Int(a) ?? 0) > 0, "\(id) \(stream): \(a) decoded from the parts, \(b) from the packager's")
            }
        }
    }

    @Test("FragmentSplit refuses what it cannot cut: MPEG-TS bytes, a cut past the last frame, a moof whose data runs off the end")
    func splitRefuses() throws {
        let source = try #require(Self.media.rendition("v144", .fmp4))
        let tracks = FragmentedMP4.tracks(initSection: try #require(source.initSection))
        let seg = try #require(source.segments.first).bytes
        #expect(FragmentSplit.split(segment: seg, tracks: tracks, at: [1])?.count == 2)
        let ts = try #require(Self.media.rendition("v144", .ts)?.segments.first).bytes
        #expect(FragmentSplit.split(segment: ts, tracks: tracks, at: [1]) == nil)
        #expect(FragmentSplit.split(segment: seg, tracks: tracks, at: [1, 5]) == nil)
        #expect(FragmentSplit.split(segment: Array(seg.dropLast(100)), tracks: tracks, at: [1]) == nil)
        #expect(FragmentSplit.split(segment: seg, tracks: [], at: [1]) == nil, "no init section: no timescale")
    }

    @Test("the playlist at a moment: parts near the edge only, the next part hinted, reports for the other rungs, lint-clean")
    func playlist() throws {
        let m = Self.model
        // 2.5 s into segment 500_001 (its parts 0 and 1 are out).
        let now = 2_000_006.5
        let text = PlaylistWriter.write(m.playlist(at: now, overrides: LiveOverrides(), skip: false, reports: ["v144", "v360"]))
        let r = PlaylistParser.parseLenient(text)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics.map(\.message))\n\(text)")
        let p = try #require(r.playlist.media)
        #expect(p.segments.count == 12 && p.segments.last?.mediaSequence == 500_000)
        #expect(p.trailingParts.map(\.uri) == ["s500001.0.ts", "s500001.1.ts"])
        #expect(p.preloadHints.map(\.uri) == ["s500001.2.ts"])
        // Parts only on segments that end within 12 s of the end: 500000 (2 s), 499999 (6 s), 499998 (10 s).
        #expect(p.segments.filter { !$0.parts.isEmpty }.map(\.mediaSequence) == [499_998, 499_999, 500_000])
        #expect(p.partTarget == 1 && p.serverControl?.partHoldBack == 3 && p.serverControl?.canBlockReload == true)
        #expect(p.renditionReports.map(\.uri) == ["../v144/index.m3u8", "../v360/index.m3u8"])
        #expect(p.renditionReports.allSatisfy { $0.lastMSN == 500_001 && $0.lastPart == 1 })
    }

    @Test(
        "every half second over a loop of the media (ll-ts's timeline going on, ll-fmp4's discontinuity): full and delta playlists are lint-clean"
    )
    func overALoop() throws {
        let fmp4 = LowLatencyModel(scenario: Scenario.named("ll-fmp4")!, rendition: TestOrigins.media.lowLatency("v240", .fmp4)!)
        for m in [Self.model, fmp4] {
            overALoop(m)
        }
    }

    func overALoop(_ m: LowLatencyModel) {
        var breaks = 0
        for k in 0..<48 {
            let now = 2_000_000.0 + Double(k) * 0.5
            for skip in [false, true] {
                let text = PlaylistWriter.write(m.playlist(at: now, overrides: LiveOverrides(), skip: skip, reports: ["v144"]))
                let r = PlaylistParser.parseLenient(text)
                #expect(r.diagnostics.isEmpty, "at +\(Double(k) * 0.5) s: \(r.diagnostics.map(\.message))")
                if text.contains("#EXT-X-DISCONTINUITY\n") { breaks += 1 }
            }
        }
        // Only where the timeline starts again (docs/ORIGIN.md): ll-fmp4's loop; ll-ts's goes on.
        #expect((breaks > 0) == !m.model.scenario.continuous, "\(m.model.scenario.name): \(breaks) playlists with a discontinuity")
    }

    @Test("a delta update skips the segments beyond six target durations and merges back into the full playlist")
    func delta() throws {
        let m = Self.model
        let now = 2_000_006.5
        let full = try #require(
            PlaylistParser.parseLenient(PlaylistWriter.write(m.playlist(at: now, overrides: LiveOverrides(), skip: false, reports: [])))
                .playlist.media)
        let deltaText = PlaylistWriter.write(m.playlist(at: now, overrides: LiveOverrides(), skip: true, reports: []))
        let r = PlaylistParser.parseLenient(deltaText)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics.map(\.message))")
        let delta = try #require(r.playlist.media)
        // Segment ends lie 0, 4, …, 44 s from the end of the last; more than 24 s (six 4 s targets): the first five.
        #expect(delta.skip?.skippedSegments == 5, "\(deltaText)")
        let skipped = delta.skip?.skippedSegments ?? 0
        #expect(Array(full.segments.dropFirst(skipped)).map(\.uri) == delta.segments.map(\.uri))
        #expect(delta.segments.first?.mediaSequence == full.segments[skipped].mediaSequence)
        // What a client holds merges with it into the full playlist.
        let merged = try DeltaUpdate.merge(delta, into: full).get()
        #expect(merged.segments.map(\.uri) == full.segments.map(\.uri))
        #expect(merged.segments.map(\.effectiveProgramDateTime) == full.segments.map(\.effectiveProgramDateTime))
        #expect(merged.segments.map(\.discontinuitySequence) == full.segments.map(\.discontinuitySequence))
        #expect(deltaText.count < PlaylistWriter.write(m.playlist(at: now, overrides: LiveOverrides(), skip: false, reports: [])).count)
    }

    @Test("when a blocked request is answered: a part, a part past the segment's last (the next segment's first), a segment")
    func published() {
        let m = Self.model
        let o = LiveOverrides()
        // Segment 500_001 starts at 2_000_004.
        #expect(m.published(msn: 500_001, part: 0, overrides: o) == 2_000_005)
        #expect(m.published(msn: 500_001, part: 3, overrides: o) == 2_000_008)
        #expect(m.published(msn: 500_001, part: 4, overrides: o) == m.published(msn: 500_002, part: 0, overrides: o))
        #expect(m.published(msn: 500_001, part: nil, overrides: o) == 2_000_008)
        #expect(m.partsPublished(500_001, at: 2_000_006.5) == 2)
    }

    @Test("over HTTP: a blocking reload waits for the part asked for; a hinted part is held until it exists; bad directives are 400")
    func http() async throws {
        let base = "\(TestOrigin.base)/ll-ts/v240/index.m3u8"
        let m = Self.model
        func clock() -> Double { Date().timeIntervalSince1970 }
        // Ask for the part two after the newest the clock says is out: it does not exist yet when asked for.
        let asked = clock()
        let inProgress = m.model.lastAvailable(at: asked) + 1
        let out = m.partsPublished(inProgress, at: asked)
        let next = out + 2 < 4 ? (inProgress, out + 2) : (inProgress + 1, out + 2 - 4)
        let ready = m.published(msn: next.0, part: next.1, overrides: LiveOverrides())
        #expect(ready > asked)
        let blocked = try await get("\(base)?_HLS_msn=\(next.0)&_HLS_part=\(next.1)")
        let answered = clock()
        #expect(blocked.status == 200)
        // Held until the part was published, never answered before; and then it is listed.
        #expect(answered >= ready - 0.01, "answered \(ready - answered) s before the part was published")
        let q = try #require(PlaylistParser.parseLenient(blocked.text).playlist.media)
        let last = try #require(q.renditionReports.first)
        let listed = (last.lastMSN ?? 0, last.lastPart ?? 0)
        #expect(listed >= next, "\(listed) < \(next)")
        // The hinted part: asked for before it exists, answered when it is published, with its bytes.
        let hint = try #require(q.preloadHints.first?.uri)
        let (n, i) = try #require(m.partIndex(file: hint))
        let hintReady = m.published(msn: n, part: i, overrides: LiveOverrides())
        let hinted = try await get(resolve(hint, against: base))
        #expect(hinted.status == 200 && hinted.body.count % 188 == 0 && hinted.body.first == 0x47)
        #expect(hinted.body == Array(m.partBytes(n, i)))
        #expect(clock() >= hintReady - 0.01, "the hinted part came before it was published")
        // A part neither published nor hinted is not there.
        let ahead = try await get(resolve(m.partURI(m.model.lastAvailable(at: clock()) + 3, 0), against: base))
        #expect(ahead.status == 404)
        // §6.2.5.2: _HLS_part alone, a media sequence number far ahead.
        #expect(try await get("\(base)?_HLS_part=1").status == 400)
        #expect(try await get("\(base)?_HLS_msn=\(inProgress + 10)").status == 400)
        // A delta update on request.
        let delta = try await get("\(base)?_HLS_skip=YES")
        #expect(delta.text.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS="))
    }
}
