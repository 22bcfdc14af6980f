import Foundation
import HLS
import LoaderCore
import LoaderEvents
import NIOConcurrencyHelpers
import NIOCore

/// One player's body of a segment in progress (`LoaderServer.growing`), written part by part as the origin publishes them
/// (RFC 8216bis §4.4.4.9; DECISIONS.md, LL-HLS). Owned by the task serving the request: `run` is its one loop, each step
/// what `PartCursor` says of the playlist held — write the next part, end the body, fetch the segment whole, or reload.
final class GrowingBody {
    /// What a step leaves the loop to do.
    enum Flow {
        case next
        case done
    }

    let loader: LoaderServer
    let writer: ResponseWriter
    let msn: Int
    let rung: Int?
    /// The rung's upstream playlist URL, its parts resolved against it.
    let url: String
    let playlistID: PlaylistID
    /// When the player asked, on the Loader's clock.
    let t0: Double
    /// Resource the first PTS is read as (fMP4: with the init section whose tracks time the first fragment).
    let timing: Resource
    let fragmentedMP4: Bool
    /// After each part: filler the demuxer skips, so FFmpeg's blocking read hands the player that part now (`PartFiller`).
    let filler: ByteBuffer
    /// The first bytes (they carry the first PTS) and the bytes of the part being read, written from the client's thread.
    let read = NIOLockedValueBox((probe: [UInt8](), part: 0, said: false))
    /// Writes part bytes to the player; the first 8 KB say the segment's first PTS. Called from the client's thread.
    let deliver: @Sendable (ByteBuffer) -> Void

    /// The part written next.
    var part = 0
    /// Bytes written so far (filler not counted).
    var sent = 0
    /// The part whose preload hint failed: asked for by a blocking reload instead.
    var hintFailed = -1
    /// The last part came from a preload hint: the playlist held predates it, so the next reload asks for the playlist that
    /// lists it (answered at once) — it says whether the segment is complete or hints the next part.
    var afterHint = false
    /// Reloads in a row that brought nothing to write.
    var idle = 0
    /// A listed part that failed before a byte of it went out: since when and how often it was asked.
    var failing: (part: Int, since: Double, tries: Int)?
    /// An fMP4 segment the player was given before its first part was listed: nothing is written until the playlist lists
    /// that part, which says whether a discontinuity or another EXT-X-MAP opens it; the hinted part is read meanwhile.
    var awaitingFirstPart: Bool
    /// Parts listed beyond the one being written, read at once (`readPartsAhead`), by index.
    var ahead: [Int: PartAhead]

    init(
        loader: LoaderServer, writer: ResponseWriter, msn: Int, rung: Int?, url: String, playlist: PlaylistID, t0: Double,
        held: MediaPlaylist?
    ) {
        self.loader = loader
        self.writer = writer
        self.msn = msn
        self.rung = rung
        self.url = url
        playlistID = playlist
        self.t0 = t0
        fragmentedMP4 = held?.isFragmentedMP4 == true
        filler = ByteBuffer(bytes: PartFiller.bytes(fragmentedMP4: fragmentedMP4))
        var timing = Resource(upstream: url, kind: .segment)
        timing.initURL = (held?.segmentInProgress?.map ?? held?.segments.last?.map).map { VirtualPlaylists.resolve($0.uri, against: url) }
        self.timing = timing
        let read = read
        deliver = { [loader, writer, timing] b in
            writer.chunk(b)
            let ready: [UInt8]? = read.withLockedValue { r in
                r.part += b.readableBytes
                guard r.probe.count < 8_192 else { return nil }
                r.probe += b.readableBytesView.prefix(8_192 - r.probe.count)
                guard r.probe.count >= 8_192 else { return nil }
                r.said = true
                return r.probe
            }
            if let ready, let pts = loader.firstPTS(timing, ready) {
                loader.emit(.firstPTS(rung: rung, msn: msn, seconds: pts))
            }
        }
        awaitingFirstPart = fragmentedMP4 && loader.table.withLockedValue { $0.unconfirmed[playlist] == msn }
        // A start inside this segment had its listed parts read with the init section (`readAheadAtStart`).
        ahead = loader.table.withLockedValue { t in
            guard let s = t.startParts, s.msn == msn else { return [:] }
            t.startParts = nil
            return s.parts
        }
    }

    /// Writes the body until the segment is complete, the player leaves or a part cannot be had.
    func run() async {
        // Read for a player that left before it wanted them: in the request log once they end, as the origin saw them.
        defer { for a in ahead.values { loader.tasks.spawn { [loader, msn] in await loader.recordAhead(a, msn: msn, delivered: false) } } }
        while writer.isActive {
            let held = loader.table.withLockedValue { $0.held[url]?.playlist }
            var step = held.map { PartCursor.next(msn: msn, part: part, in: $0) } ?? .wait
            if case .fetch(_, _, true) = step, hintFailed == part { step = .wait }
            if awaitingFirstPart, let held {
                guard let confirmed = confirmFirstPart(step, held) else { return }
                step = confirmed
            }
            let flow: Flow
            switch step {
            case .fetch(let uri, let range, let hinted): flow = await fetch(uri, range: range, hinted: hinted, held: held)
            case .complete: flow = complete()
            case .lost: flow = await lost(held)
            case .wait: flow = await waitForPart(held)
            }
            if case .done = flow { return }
        }
    }

    /// While the first part of an fMP4 segment is not listed: its hint read ahead, and the step waits; once it is listed, a
    /// segment that opens a break ends empty (nil: the body has ended).
    func confirmFirstPart(_ step: PartStep, _ held: MediaPlaylist) -> PartStep? {
        switch step {
        case .fetch(let uri, let range, true):
            if ahead[part] == nil {
                ahead[part] = loader.readPart(VirtualPlaylists.resolve(uri, against: url), range: range, msn: msn, rung: rung, hinted: true)
            }
            return .wait
        case .fetch(_, _, false), .complete, .lost:
            awaitingFirstPart = false
            loader.table.withLockedValue { if $0.unconfirmed[playlistID] == msn { $0.unconfirmed[playlistID] = nil } }
            guard PartCursor.opensBreak(msn: msn, in: held) == true else { return step }
            // Not one byte went: the player reads an empty segment, its next playlist ends before this one (an fMP4 break,
            // `VirtualPlaylists.ending`) and the session reloads after it, as at any fMP4 discontinuity.
            writer.end()
            loader.table.withLockedValue { t in
                if t.lastRequested[playlistID] == msn { t.lastRequested[playlistID] = msn - 1 }
                if t.progress[playlistID] == msn { t.progress[playlistID] = msn - 1 }
                t.emptied[playlistID] = msn
            }
            loader.record(.segment, url, rung: rung, msn: msn, since: t0, bytes: 0, status: 200, outcome: .ok, paced: true)
            return nil
        case .wait: return step
        }
    }

    /// Part `part` at `uri`: from its read ahead when it has one, else read and written as it arrives; a break resumed, a
    /// failure asked again while the segment's budget lasts (`retrying`).
    func fetch(_ uri: String, range: String?, hinted: Bool, held: MediaPlaylist?) async -> Flow {
        let partURL = VirtualPlaylists.resolve(uri, against: url)
        if !hinted, let held { loader.readPartsAhead(msn: msn, after: part, base: url, rung: rung, in: held, into: &ahead) }
        if let a = ahead.removeValue(forKey: part) {
            // Read whole: written at once; one that failed is asked again below, as the part would have been. One read for
            // another URL (the playlist changed under it) is not the player's.
            let same = a.url == partURL && a.range == range
            if !same { loader.tasks.spawn { [loader, msn] in await loader.recordAhead(a, msn: msn, delivered: false) } }
            if same, let r = await loader.recordAhead(a, msn: msn, delivered: true) {
                var b = ByteBuffer()
                b.writeBytes(r.body)
                deliver(b)
                written(r.bytes, hinted: false)
                return .next
            }
        }
        let partRes = Resource(upstream: partURL, kind: .part, rung: rung, msn: msn)
        loader.noteCMCD(partRes)
        let t1 = loader.now
        read.withLockedValue { $0.part = 0 }
        let broke = NIOLockedValueBox<String?>(nil)
        do throws(UpstreamError) {
            // A body that breaks is resumed from its byte (DECISIONS.md, "A body that breaks is resumed"): the player reads
            // one part, slower, never a short one.
            let r = try await loader.client.getResuming(
                partURL, range: range, keepBody: 0, retries: hinted ? 0 : nil, cache: .media, budget: loader.resumeBudget(partRes),
                onBreak: { [loader] b in broke.withLockedValue { $0 = loader.emitBreak(b, partRes) } }, onBody: deliver,
                onReadEnd: { [writer] in writer.flush() })
            let ok = (200..<300).contains(r.head.status)
            loader.record(
                .part, partURL, rung: rung, msn: msn, since: t1, head: r.head, bytes: r.bytes, status: r.head.status, prefetch: true,
                outcome: RequestOutcome(failure: ok ? nil : "HTTP \(r.head.status)"), range: range, hint: hinted,
                resumed: broke.withLockedValue { $0 })
            guard ok else {
                // A hinted part the server does not have is named where the playlists show it (PreloadHintCheck); the part is
                // then asked for by a blocking reload.
                if hinted {
                    hintFailed = part
                    return .next
                }
                if await retrying() { return .next }
                return fail("part \(part) (\(partURL)) answered HTTP \(r.head.status)\(failedFor())")
            }
            failing = nil
            written(r.bytes, hinted: hinted)
            loader.emitCaptions(timing, rung: rung, msn: msn, soFar: writer)
            return .next
        } catch {
            loader.record(
                .part, partURL, rung: rung, msn: msn, since: t1, status: 502, prefetch: true, outcome: .failed(error.description),
                hint: hinted, resumed: broke.withLockedValue { $0 })
            let none = read.withLockedValue({ $0.part }) == 0
            // A hint that failed before a byte of its part went out is asked again by a blocking reload.
            if hinted, none {
                hintFailed = part
                return .next
            }
            if none, await retrying() { return .next }
            return fail("part \(part) (\(partURL)): \(error.description)\(failedFor())")
        }
    }

    /// The last part is written: the body ends, its record paced (no throughput read from it).
    func complete() -> Flow {
        writer.end()
        let probe = read.withLockedValue { $0.probe }
        let pts = probe.isEmpty ? nil : loader.firstPTS(timing, probe)
        loader.record(.segment, url, rung: rung, msn: msn, since: t0, bytes: sent, status: 200, outcome: .ok, firstPTS: pts, paced: true)
        return .done
    }

    /// The playlist no longer lists the segment's parts: asked for before a byte went, the complete segment as any other.
    func lost(_ held: MediaPlaylist?) async -> Flow {
        guard sent == 0, let h = held, let s = h.segments.first(where: { $0.mediaSequence == msn }) else {
            return fail("its parts left the playlist before they were read (RFC 8216bis §6.2.2 keeps them three target durations)")
        }
        let res = loader.segmentResource(s, base: url, rung: rung, playlist: playlistID)
        _ = await loader.fetchSegment(res, range: nil, writer: writer, t0: t0, retries: nil)
        return .done
    }

    /// Neither the playlist nor a hint says where part `part` is: a blocking reload for it (RFC 8216bis §6.2.5.2).
    func waitForPart(_ held: MediaPlaylist?) async -> Flow {
        if Task.isCancelled { return fail("the Loader stopped") }
        idle += 1
        // A server that answers a blocking reload before the part exists (named by readLive) is not asked in a tight loop;
        // one that never publishes it fails the segment after as long as three target durations.
        if idle > 2 {
            let td = Double(held?.targetDuration ?? 2)
            if Double(idle - 1) * (held?.partTarget ?? 1) / 2 > 3 * td {
                return fail("part \(part) was not published within three target durations (RFC 8216bis §6.2.5.2)")
            }
            await loader.sleep((held?.partTarget ?? 1) / 2)
        }
        do throws(UpstreamError) {
            let t1 = loader.now
            let d = DeliveryDirectives(msn: msn, part: afterHint ? part - 1 : part)
            let confirming = afterHint
            afterHint = false
            let r = try await loader.readLive(url, playlist: playlistID, rung: rung, directives: d, afterHint: confirming)
            loader.report(r, kind: .media, url: d.applied(to: url), rung: rung, t0: t1)
            guard r.head.status == 200 else { return fail("the blocking reload for part \(part) answered HTTP \(r.head.status)") }
            if rung != nil, let m = loader.table.withLockedValue({ $0.held[url]?.playlist }) {
                loader.emit(.playlist(PlaylistEvent(url: url, rung: rung, rendition: nil, playlist: m, received: loader.now)))
            }
            return .next
        } catch {
            return fail("the blocking reload for part \(part): \(error.description)")
        }
    }

    /// A first part shorter than the probe: its first PTS once it is whole.
    func sayUnsaid() {
        let unsaid: [UInt8]? = read.withLockedValue { r in
            guard !r.said, !r.probe.isEmpty else { return nil }
            r.said = true
            return r.probe
        }
        if let unsaid, let pts = loader.firstPTS(timing, unsaid) {
            loader.emit(.firstPTS(rung: rung, msn: msn, seconds: pts))
        }
    }

    /// Part `part` went to the player whole (`hinted`: read from its preload hint): on to the next.
    func written(_ bytes: Int, hinted: Bool) {
        writer.chunk(filler)
        writer.flush()
        sayUnsaid()
        sent += bytes
        part += 1
        afterHint = hinted
        idle = 0
    }

    /// A listed part that failed before a byte of it went out (an error status, a connection that failed, after the client's
    /// own retries): asked again every half part target while the segment's resumption budget lasts, as long as the playlist
    /// lists it — the segment is never given up for an outage shorter than a body break is waited for. False: give up.
    func retrying() async -> Bool {
        if failing?.part != part { failing = (part, loader.now, 0) }
        failing?.tries += 1
        let budget = loader.resumeBudget(Resource(upstream: url, kind: .part, rung: rung, msn: msn))
        let wait = min(1, (loader.table.withLockedValue { $0.held[url]?.playlist.partTarget } ?? 1) / 2)
        guard let f = failing, loader.now - f.since + wait <= budget, !Task.isCancelled else { return false }
        await loader.sleep(wait)
        return writer.isActive
    }

    /// " (asked N times over S s)" when the part that failed was asked more than once.
    func failedFor() -> String {
        guard let f = failing, f.part == part, f.tries > 1 else { return "" }
        return " (asked \(f.tries) times over \(fixed(loader.now - f.since, 1)) s)"
    }

    /// The body cannot be finished: the player's connection is cut (it must not read a short segment as whole), one line.
    func fail(_ why: String) -> Flow {
        writer.abort(502, "hlstui loader: \(why)")
        loader.emit(.diagnostic("segment \(msn): \(why)"))
        loader.record(.segment, url, rung: rung, msn: msn, since: t0, bytes: sent, status: 502, outcome: .failed(why), paced: true)
        return .done
    }
}
