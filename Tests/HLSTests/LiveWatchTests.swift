import HLS
import Testing

/// A live stream's playlists read again and again (docs/VALIDATION.md, `inspect --media --duration`): segments removed
/// too soon (RFC 8216bis §6.2.2), a playlist that stops changing (§6.3.4), variants that drift apart (§6.2.4).
@Suite("Live watch: segments removed too soon, a playlist left unchanged, variants drifting apart")
struct LiveWatchTests {
    /// A window of `count` 2 s segments from `msn` (target duration 2), dated from 00:00:00 at MSN 0 plus `shift` s, in
    /// discontinuity sequence `dseq`.
    static func window(_ msn: Int, count: Int = 8, shift: Double = 0, dseq: Int = 0) throws -> MediaPlaylist {
        var t = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(msn)\n#EXT-X-DISCONTINUITY-SEQUENCE:\(dseq)\n"
        for m in msn..<(msn + count) {
            t += "#EXT-X-PROGRAM-DATE-TIME:\(DateTime(seconds: 1_700_000_000 + Double(m) * 2 + shift).iso8601)\n#EXTINF:2,\ns\(m).ts\n"
        }
        return try #require(PlaylistParser.parseLenient(t).playlist.media)
    }

    /// The window a server that makes one 2 s segment every 2 s lists at `t` s (segment 0 done at 2 s).
    static func live(at t: Double, count: Int = 8) throws -> MediaPlaylist {
        let done = Int(t / 2)
        return try window(max(0, done - count), count: min(count, done))
    }

    @Test("a server that keeps the rules, read as §6.3.4 lets a client for two minutes: nothing to say, every read on time")
    func clean() throws {
        var w = LiveWatch()
        var found: [ContinuityFinding] = []
        var times: [Double] = []
        // Two variants, read in turn when each is due, 0.3 s apart at first (a real watch's reads are not simultaneous).
        var due: [Int: Double] = [0: 20.1, 1: 20.4]
        while let (i, t) = due.min(by: { $0.value < $1.value }), t < 140 {
            found += w.read(i, name: "v\(i)", variant: true, at: t, try Self.live(at: t))
            times.append(t)
            let next: Double = try #require(w.due(i))
            due[i] = next
        }
        #expect(found.isEmpty, "\(found.map(\.message))")
        // A read a target duration after a change, half of one after none: about one a segment, per playlist.
        #expect(w.reloads(0) >= 59 && w.reloads(0) <= 61, "\(w.reloads(0))")
    }

    @Test("a playlist unchanged past a target duration and a half: said once, with the time; said again after it moves and stops")
    func stale() throws {
        var w = LiveWatch()
        let frozen = try Self.window(10)
        #expect(w.read(0, name: "v0", variant: true, at: 0, frozen).isEmpty)
        #expect(w.due(0) == 2, "a target duration after a read that found it new")
        #expect(w.read(0, name: "v0", variant: true, at: 2, frozen).isEmpty)
        #expect(w.due(0) == 3, "half of one after a read that found nothing new")
        #expect(w.read(0, name: "v0", variant: true, at: 3, frozen).isEmpty, "1.5 target durations: a client has found nothing twice")
        let f = w.read(0, name: "v0", variant: true, at: 4, frozen)
        #expect(f.map(\.rule) == [.playlistStale] && f[0].severity == .warning && f[0].section == "RFC 8216bis §6.3.4", "\(f)")
        #expect(f.first?.message.hasPrefix("unchanged for 4 s at least (last msn 17)") == true, "\(f.first?.message ?? "")")
        #expect(w.read(0, name: "v0", variant: true, at: 5, frozen).isEmpty, "once while it stays so")
        #expect(w.read(0, name: "v0", variant: true, at: 6, try Self.window(11)).isEmpty, "it moved")
        #expect(w.read(0, name: "v0", variant: true, at: 11, try Self.window(11)).map(\.rule) == [.playlistStale])
        #expect(w.findings.count == 2 && w.findings.allSatisfy { $0.playlist == 0 })
        // A slow answer: the version it shows was out when the answer came, not when it was asked (1.5 s later here), so
        // two reads 1 and 1.7 s after that answer find nothing stale; a third, 3.5 s after, does.
        var slow = LiveWatch()
        #expect(slow.read(0, name: "v0", variant: true, at: 0, answered: 1.5, frozen).isEmpty)
        #expect(slow.read(0, name: "v0", variant: true, at: 2.5, frozen).isEmpty)
        #expect(slow.read(0, name: "v0", variant: true, at: 3.2, frozen).isEmpty, "3.2 s after the asking, 1.7 s after the answer")
        #expect(slow.read(0, name: "v0", variant: true, at: 5, frozen).map(\.rule) == [.playlistStale])
    }

    @Test("segments never listed between two reloads closer than two target durations; a window cut under three target durations")
    func removedTooSoon() throws {
        let a = try Self.window(10)
        let skipped = LiveContinuity.check(previous: a, next: try Self.window(20), elapsed: 2.1)
        #expect(skipped.map(\.rule) == [.msnSkipped] && skipped[0].msn == 18 && skipped[0].section == "RFC 8216bis §6.2.2", "\(skipped)")
        #expect(
            skipped.first?.message
                == "msn 18–19 (2 segments) were never listed: EXT-X-MEDIA-SEQUENCE went from 10 (last msn 17) to 20 in 2.1 s, where a segment stays listed while three target durations (6 s) follow it",
            "\(skipped.first?.message ?? "")")
        #expect(LiveContinuity.check(previous: a, next: try Self.window(20), elapsed: 30).isEmpty, "reads 30 s apart: it may have been")
        #expect(LiveContinuity.check(previous: a, next: try Self.window(20)).isEmpty, "no time given: not judged")
        #expect(LiveContinuity.check(previous: a, next: try Self.window(18), elapsed: 2).isEmpty, "the next msn follows the last")
        let short = LiveContinuity.check(previous: a, next: try Self.window(12, count: 2), elapsed: 2)
        #expect(short.map(\.rule) == [.windowShort] && short[0].msn == nil, "\(short)")
        #expect(short.first?.message == "segments removed up to msn 11 leave 4 s listed, under three target durations (6 s)")
        #expect(LiveContinuity.check(previous: a, next: try Self.window(12, count: 3), elapsed: 2).isEmpty, "6 s: three target durations")
        #expect(
            LiveContinuity.check(previous: try Self.window(0, count: 1), next: try Self.window(0, count: 2), elapsed: 2).isEmpty,
            "a stream's start: nothing removed yet")
    }

    @Test("variants whose ends lie more than a target duration apart by PDT, or at one moment in other discontinuity sequences")
    func variants() throws {
        var w = LiveWatch()
        #expect(w.read(0, name: "#0 720p", variant: true, at: 0, try Self.window(10)).isEmpty)
        #expect(
            w.read(1, name: "#1 360p", variant: true, at: 0.2, try Self.window(11)).isEmpty, "a segment ahead: within a target duration")
        #expect(w.read(2, name: "audio en", variant: false, at: 0.3, try Self.window(20)).isEmpty, "a rendition is not a variant")
        let ahead = w.read(1, name: "#1 360p", variant: true, at: 2.2, try Self.window(16))
        #expect(ahead.map(\.rule) == [.variantsDrift] && ahead[0].section == "RFC 8216bis §6.2.4", "\(ahead)")
        #expect(
            ahead.first?.message
                == "ends 12 s after #0 720p's by EXT-X-PROGRAM-DATE-TIME (read at most 2.2 s apart): content in one variant and not another must not last longer than the target duration (2 s)",
            "\(ahead.first?.message ?? "")")
        // A variant that stood still (said stale) and comes back: not a drift against the others read while it stood.
        var f = LiveWatch()
        for t in stride(from: 0.0, through: 8, by: 1) {
            #expect(f.read(0, name: "#0", variant: true, at: t, try Self.window(10)).allSatisfy { $0.rule == .playlistStale })
            #expect(f.read(1, name: "#1", variant: true, at: t + 0.1, try Self.window(10)).allSatisfy { $0.rule == .playlistStale })
        }
        #expect(f.read(0, name: "#0", variant: true, at: 9, try Self.window(14)).isEmpty, "#1, read 0.9 s ago, stood still")
        #expect(f.read(1, name: "#1", variant: true, at: 9.1, try Self.window(14)).isEmpty)
        var d = LiveWatch()
        _ = d.read(0, name: "#0 720p", variant: true, at: 0, try Self.window(10))
        let other = d.read(1, name: "#1 360p", variant: true, at: 0.1, try Self.window(10, dseq: 1))
        #expect(other.map(\.rule) == [.variantsDiscontinuity] && other[0].msn == nil, "\(other)")
        #expect(other.first?.message.hasSuffix("#0 720p's segment at that moment (msn 17) in 0") == true, "\(other.first?.message ?? "")")
    }
}
