import HLS
import MediaFormats
import TestSupport
import Testing
@testable import Origin
import FoundationEssentials

/// A rendition with `count` segments of `duration` and fake bytes: enough for timeline logic.
func fakeRendition(_ id: String = "v144", count: Int = 10, duration: Double = 2, container: Container = .ts) -> MediaRendition {
    MediaRendition(
        id: id, container: container,
        segments: (0..<count).map {
            MediaSegment(index: $0, duration: duration, bytes: [0x47], firstTime: 1.4 + Double($0) * duration, iFrameRange: nil)
        },
        initSection: container == .fmp4 ? [0] : nil, codecs: "avc1.4d401e,mp4a.40.2",
        resolution: Resolution(width: 256, height: 144), frameRate: 30, nominalDuration: duration)
}

@Suite("Origin stream model (pure timeline of the generated streams)")
struct StreamModelTests {
    let live = Scenario.named("live-ts")!

    @Test("the live window is the last 8 complete segments, numbered from the epoch, PDT on the 2 s grid")
    func liveWindow() {
        let m = StreamModel(scenario: live, rendition: fakeRendition())
        let now = 1_000_001.5 // segment 500000 (1000000–1000002) is not complete yet
        let w = m.window(at: now)
        #expect(w.count == 8)
        #expect(w.last?.index == 499_999)
        #expect(w.first?.index == 499_992)
        #expect(w.first?.pdt == DateTime(seconds: 999_984))
        #expect(w.map(\.msn) == Array(499_992...499_999))
        // A loop of 10 segments: segment 499990 started loop 49999, so 499_992 is position 2.
        #expect(w.first?.position == 2 && w.first?.discontinuitySequence == 49_999)
    }

    @Test("discontinuities at every loop wrap, and the playlist's DISCONTINUITY-SEQUENCE stays consistent as the window slides")
    func discontinuities() throws {
        let m = StreamModel(scenario: live, rendition: fakeRendition())
        var previous: [Int: Int] = [:] // msn → discontinuity sequence number, as parsed
        for step in 0..<30 {
            let now = 1_000_000 + Double(step)
            let text = PlaylistWriter.write(m.mediaPlaylist(at: now))
            let r = PlaylistParser.parseLenient(text)
            #expect(!r.hasErrors, "\(r.diagnostics)")
            let segs = try #require(r.playlist.media).segments
            for s in segs {
                if let d = previous[s.mediaSequence] { #expect(d == s.discontinuitySequence, "msn \(s.mediaSequence)") }
                previous[s.mediaSequence] = s.discontinuitySequence
                #expect(s.discontinuity == (s.mediaSequence % 10 == 0))
                // Effective PDT is the grid.
                #expect(s.effectiveProgramDateTime == DateTime(seconds: Double(s.mediaSequence) * 2))
            }
        }
    }

    @Test("the demo's timeline goes on across the loop: no discontinuity but where the 33-bit clock would wrap, media time growing")
    func continuousDemo() throws {
        let demo = try #require(Scenario.named("demo"))
        #expect(demo.continuous && !live.continuous)
        let m = StreamModel(scenario: demo, rendition: fakeRendition())
        let wrap = m.loopsPerWrap
        // Timestamps never reach the clock's last eighth, where FFmpeg would read them as about to wrap.
        #expect(wrap == Int(Double((1 << 33) - (1 << 30)) / 90_000 / 20) - 1)
        #expect(Double(wrap) * 20 + 20 < Double((1 << 33) - (1 << 30)) / 90_000)
        // A few loops in a row, away from a wrap: one timeline, each segment 2 s after the one before.
        let first = 10 * (wrap * 7 + 3)
        let truths = (first..<(first + 35)).map { m.truth($0) }
        #expect(!truths.contains { $0.discontinuity }, "\(truths.filter(\.discontinuity).map(\.index))")
        #expect(Set(truths.map(\.discontinuitySequence)).count == 1)
        for (a, b) in zip(truths, truths.dropFirst()) { #expect(abs(b.mediaTime - a.mediaTime - 2) < 1e-9, "\(a.index) → \(b.index)") }
        // Where the clock would wrap, the timeline starts again: a discontinuity, counted.
        let atWrap = m.truth(10 * wrap * 8)
        #expect(
            atWrap.discontinuity && atWrap.mediaTime == 1.4
                && atWrap.discontinuitySequence == m.truth(10 * wrap * 8 - 1).discontinuitySequence + 1)
        // The playlist says the same as the truth.
        let text = PlaylistWriter.write(m.mediaPlaylist(at: Double(first) * 2 + 30))
        #expect(!text.contains("#EXT-X-DISCONTINUITY\n"), "\(text)")
    }

    @Test("the demo's audio rendition keeps the video's clock loop after loop: the same discontinuities, no drift of its media time")
    func continuousAudioFollowsVideo() throws {
        let demo = try #require(Scenario.named("demo"))
        let video = StreamModel(scenario: demo, rendition: try #require(TestOrigins.media.rendition("v144", .ts)))
        let audio = StreamModel(scenario: demo, rendition: try #require(TestOrigins.media.rendition("audio-de", .ts)))
        // Its AAC frames add up to less than the loop: by its own length it fell seconds behind after a few hundred loops.
        #expect(audio.durations.reduce(0, +) < 20)
        #expect(audio.loopsPerWrap == video.loopsPerWrap)
        let wrap = video.loopsPerWrap
        for n in [10 * 3 + 4, 10 * (wrap * 7 + 3), 10 * (wrap * 8 - 1) + 9, 10 * wrap * 8, 10 * (wrap * 8 + wrap / 2)] {
            let (v, a) = (video.truth(n), audio.truth(n))
            #expect(v.discontinuitySequence == a.discontinuitySequence && v.discontinuity == a.discontinuity, "msn \(n)")
            // The media's own distance between its audio and its video at that place of the loop, unchanged by the loops.
            let (v0, a0) = (video.truth(n % 10), audio.truth(n % 10))
            let drift = (v.mediaTime - a.mediaTime) - (v0.mediaTime - a0.mediaTime)
            #expect(abs(drift) < 1e-6, "msn \(n): video \(v.mediaTime), audio \(a.mediaTime), drifted \(drift) s")
        }
    }

    @Test("the demo's WebVTT maps each cue to the media time of its segment, loop after loop (its timeline goes on)")
    func continuousSubtitles() throws {
        let demo = try #require(Scenario.named("demo"))
        let m = StreamModel(scenario: demo, rendition: try #require(TestOrigins.media.rendition("v144", .ts)))
        for n in [3, 10 * (m.loopsPerWrap * 7 + 3) + 4] {
            let doc = WebVTT.parse(m.subtitleText(n))
            let cue = try #require(doc.cues.first)
            #expect(
                abs(doc.mediaTime(cue.start) - m.truth(n).mediaTime) < 0.002,
                "msn \(n): \(doc.mediaTime(cue.start)) against \(m.truth(n).mediaTime)")
        }
    }

    @Test("an ID3 stream added to a TS segment: in the PMT as type 0x15, its tag read back at its PTS, every other packet as it was")
    func timedID3() throws {
        let segment = try #require(TestOrigins.media.rendition("v144", .ts)).segments[2].bytes
        let tag = ID3.tag([("hlstui", "segment 2")])
        let with = TransportStream.addingTimedID3(segment, tag: tag, pts: 412_000, cc: 2)
        #expect(with.count == segment.count + 188)
        #expect(TransportStream.probe(with).streamTypes[TransportStream.id3PID] == 0x15)
        let read = TransportStream.timedID3(with)
        #expect(read.count == 1 && read.first?.pts == 412_000 && read.first?.tag == tag)
        #expect(ID3.frames(read.first?.tag ?? []) == [ID3.Frame(id: "TXXX", text: "hlstui=segment 2")])
        // Every packet but the PMT and the one added is the segment's own.
        let pmt = try #require(TransportStream.probe(segment).programMapPID)
        func packets(_ b: [UInt8]) -> [[UInt8]] {
            stride(from: 0, to: b.count, by: 188).map { Array(b[$0..<($0 + 188)]) }.filter {
                let pid = Int($0[1] & 0x1F) << 8 | Int($0[2])
                return pid != pmt && pid != TransportStream.id3PID
            }
        }
        #expect(packets(with) == packets(segment))
        #expect(TransportStream.timedID3(segment).isEmpty)
    }

    @Test("cameras: B's grid is 1 s after A's, with 3 s segments and 4 s more latency")
    func cameras() {
        let a = StreamModel(scenario: Scenario.named("cam-a")!, rendition: fakeRendition("cam-a", count: 12, duration: 2))
        let b = StreamModel(scenario: Scenario.named("cam-b")!, rendition: fakeRendition("cam-b", count: 8, duration: 3))
        let now = 2_000_000.0
        let wa = a.window(at: now), wb = b.window(at: now)
        #expect(wa.last.map { $0.pdt.seconds + $0.duration } == 2_000_000)
        // B: segments end at 1 + 3k; the last whose end + 4 s latency ≤ now.
        let endB = wb.last.map { $0.pdt.seconds + $0.duration } ?? 0
        #expect(endB <= now - 4 && endB > now - 4 - 3)
        #expect(wb.allSatisfy { Int($0.pdt.seconds - 1) % 3 == 0 })
    }

    @Test("camera knobs: drift against PDT, PDT only after discontinuities, an outage of PDT with a discontinuity at each end")
    func cameraKnobs() throws {
        let a = StreamModel(scenario: Scenario.named("cam-a")!, rendition: fakeRendition("cam-a", count: 12, duration: 2))
        let now = 2_000_000.0
        // 1 % fast from 1 000 s before: each PDT is 1 % of its distance from the epoch behind the grid; EXTINF unchanged.
        var o = LiveOverrides()
        o.driftPPM = 10_000
        o.driftEpoch = now - 1000
        let drifted = a.window(at: now, overrides: o)
        for t in drifted { #expect(abs(t.pdt.seconds - (a.start(t.index) - 0.01 * (a.start(t.index) - o.driftEpoch))) < 1e-6) }
        #expect(drifted.allSatisfy { $0.duration == 2 })
        // PDT only where a discontinuity is: the loop's first segment.
        var d = LiveOverrides()
        d.pdtAtDiscontinuitiesOnly = true
        d.windowSegments = 12
        let text = PlaylistWriter.write(a.mediaPlaylist(at: now, overrides: d))
        let m = try #require(PlaylistParser.parseLenient(text).playlist.media)
        let tagged = m.segments.filter { $0.programDateTime != nil }
        #expect(tagged.count == 1 && tagged.allSatisfy(\.discontinuity), "\(text)")
        // Without the knob the camera's timestamps go on across its loop: no discontinuity, each segment 2 s after the last.
        var plain = LiveOverrides()
        plain.windowSegments = 12
        let across = a.window(at: now, overrides: plain)
        #expect(across.contains { $0.position == 0 } && !across.contains(where: \.discontinuity))
        #expect(zip(across, across.dropFirst()).allSatisfy { abs($1.mediaTime - $0.mediaTime - 2) < 1e-9 })
        // With it, each loop's start is marked, and a segment keeps its discontinuity sequence as the window slides.
        let marked = a.window(at: now, overrides: d), slid = a.window(at: now + 6, overrides: d)
        #expect(marked.filter(\.discontinuity).map(\.position) == [0])
        for t in slid {
            if let same = marked.first(where: { $0.index == t.index }) { #expect(same.discontinuitySequence == t.discontinuitySequence) }
        }
        // PDT lost for 6 s: the segments published meanwhile have none; a discontinuity where it stops and where it returns,
        // and the discontinuity sequence stays the same for a segment across reloads.
        var n = LiveOverrides()
        n.windowSegments = 12
        n.withoutPDT = [(from: now - 14.5, to: now - 8.5)]
        let w = a.window(at: now, overrides: n)
        #expect(
            w.filter(\.withoutPDT).map(\.index) == [a.firstSegment(from: now - 14.5)]
                + (1...2).map { a.firstSegment(from: now - 14.5) + $0 })
        let edges = Set(w.filter(\.discontinuity).map(\.index))
        #expect(edges.isSuperset(of: [a.firstSegment(from: now - 14.5), a.firstSegment(from: now - 8.5)]), "\(edges)")
        let later = a.window(at: now + 4, overrides: n)
        for t in later {
            if let same = w.first(where: { $0.index == t.index }) { #expect(same.discontinuitySequence == t.discontinuitySequence) }
        }
        let parsed = try #require(PlaylistParser.parseLenient(PlaylistWriter.write(a.mediaPlaylist(at: now, overrides: n))).playlist.media)
        #expect(parsed.segments.filter { $0.effectiveProgramDateTime == nil }.count == 3)
    }

    @Test("AES: a key every 3 segments with its IV; GAP only where the scenario says")
    func keysAndGaps() {
        let aes = StreamModel(scenario: Scenario.named("aes-vod")!, rendition: fakeRendition())
        #expect(aes.window(at: 0).map(\.keyID) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3])
        let text = PlaylistWriter.write(aes.mediaPlaylist(at: 0))
        #expect(text.components(separatedBy: "#EXT-X-KEY:").count - 1 == 4)
        #expect(text.contains("URI=\"/keys/aes-vod/k1.key\",IV=0x00000000000000000000000000000001"))
        let one = StreamModel(scenario: Scenario.named("gap-one")!, rendition: fakeRendition("v360"))
        let other = StreamModel(scenario: Scenario.named("gap-one")!, rendition: fakeRendition("v240"))
        #expect(one.window(at: 0).filter(\.gap).map(\.position) == [4, 5])
        #expect(other.window(at: 0).filter(\.gap).isEmpty)
        let all = StreamModel(scenario: Scenario.named("gap-all")!, rendition: fakeRendition("audio-de"))
        #expect(all.window(at: 0).filter(\.gap).count == 2)
    }

    @Test("freeze keeps the window; reset restarts the media sequence at 0 with no earlier segments")
    func overrides() {
        let m = StreamModel(scenario: live, rendition: fakeRendition())
        let frozen = m.window(at: 1_000_100, overrides: LiveOverrides(freezeAt: 1_000_000))
        #expect(frozen.map(\.index) == m.window(at: 1_000_000).map(\.index))
        let reset = m.lastAvailable(at: 1_000_000) + 1
        let after = m.window(at: 1_000_005, overrides: LiveOverrides(resetIndex: reset))
        #expect(after.first?.msn == 0 && after.count == 2)
        #expect(after.first?.discontinuity == false)
        let p = PlaylistParser.parseLenient(
            PlaylistWriter.write(m.mediaPlaylist(at: 1_000_005, overrides: LiveOverrides(resetIndex: reset))))
        #expect(p.playlist.media?.mediaSequence == 0)
        var tracker = LiveRefreshTracker()
        _ = tracker.update(PlaylistParser.parseLenient(PlaylistWriter.write(m.mediaPlaylist(at: 1_000_000))).playlist.media!, at: 0)
        #expect(tracker.update(p.playlist.media!, at: 5) == .reset(previousMediaSequence: 499_992, mediaSequence: 0))
    }

    @Test("segment file names map back to their index; VOD rejects out-of-range names")
    func names() {
        let m = StreamModel(scenario: live, rendition: fakeRendition())
        #expect(m.segmentIndex(file: "s123.ts") == 123)
        #expect(m.segmentIndex(file: "s123.m4s") == nil)
        let v = StreamModel(scenario: Scenario.named("vod-ts")!, rendition: fakeRendition())
        #expect(v.segmentIndex(file: "seg9.ts") == 9)
        #expect(v.segmentIndex(file: "seg10.ts") == nil)
    }

    @Test("byte ranges: bytes=a-b, a-, -n, unsatisfiable and malformed")
    func ranges() {
        #expect(byteRange("bytes=0-187", size: 1000) == .some(0..<188))
        #expect(byteRange("bytes=900-", size: 1000) == .some(900..<1000))
        #expect(byteRange("bytes=-100", size: 1000) == .some(900..<1000))
        #expect(byteRange("bytes=0-5000", size: 1000) == .some(0..<1000))
        #expect(byteRange("bytes=2000-", size: 1000) == .none)
        #expect(byteRange("items=0-1", size: 1000) == .some(nil))
    }
}
