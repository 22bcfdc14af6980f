import LoaderEvents
import LoaderCore
import Foundation
import HLS
import NIOConcurrencyHelpers
import NIOCore

/// LL-HLS: the segment a live playlist is still publishing, given to the player as one body that grows part by part
/// (RFC 8216bis §4.4.4.9; DECISIONS.md, LL-HLS). FFmpeg 5.1 reads no EXT-X-PART, but it reads a segment's body as it arrives,
/// so the parts reach it as soon as the origin publishes them while every table keyed by media sequence stays as it is.
extension LoaderServer {
    /// The segment in progress of `m` as the player's playlist lists it: nil when parts are off, the playlist offers none, the
    /// Loader could not serve its parts as they are (AES-128 the Loader decrypts: a part is not a whole CBC stream). MPEG-TS
    /// parts concatenate to a TS stream; fMP4 parts are fragments after the segment's `EXT-X-MAP` (§4.4.4.9).
    func growingSegment(_ m: MediaPlaylist) -> Segment? {
        guard Self.givesParts(m, options: options), var g = m.segmentInProgress else { return nil }
        if options.decryptAES, g.keys.contains(where: { $0.method == .aes128 && $0.system == .identity }) { return nil }
        // fMP4 before its first part is listed: nothing says yet whether a discontinuity or another EXT-X-MAP opens it (the
        // tags come with that part). It is listed all the same, so a player at the edge has its next segment at once; its
        // body writes nothing until the playlist lists that part, and ends empty if the segment opens a break
        // (`unconfirmed`, `growing`; DECISIONS.md, LL-HLS).
        // Listed as long as its parts so far or what is left of it, whichever is shorter (at least one part target): FFmpeg 5.1
        // reloads once the last segment's duration has passed since its last reload, so a longer one would leave it waiting
        // at the segment's end for the next to be listed — a player that starts with most of the segment out (PART-HOLD-BACK
        // 1 s of 0.333 s parts: two thirds of it) waited its parts' duration less what was left, and stalled.
        let left = m.targetDuration.map { Double($0) - g.duration } ?? g.duration
        g.duration = max(min(g.duration, left), m.partTarget ?? 1)
        g.parts = []
        return g
    }

    /// Whether the player is given `m`'s segment in progress part by part (`growingSegment`).
    public static func givesParts(_ m: MediaPlaylist, options: LoaderOptions) -> Bool {
        options.parts && m.offersParts
    }

    /// Serves segment `requested.msn` as its parts are published: each part fetched when listed (or from the preload hint
    /// naming it, which the server holds until it exists, §4.4.5.3), a blocking reload for the part when neither says where it
    /// is (§6.2.5.2); the body ends with the segment's last part.
    func growing(_ requested: Resource, writer: ResponseWriter) async {
        let t0 = now
        guard let msn = requested.msn else { return writer.text(404, "hlstui loader: no segment") }
        let (rung, url): (Int?, String?) =
            requested.slot
            ? table.withLockedValue { t in (t.route?.rung, t.route.flatMap { t.rungURLs[$0.rung] }) }
            : (requested.rung, requested.upstream)
        guard let url else { return writer.text(502, "hlstui loader: no splice route") }
        if let p = requested.playlist {
            table.withLockedValue { t in
                t.lastRequested[p] = max(t.lastRequested[p] ?? msn, msn)
                t.progress[p] = msn
            }
        }
        let held0 = table.withLockedValue { $0.held[url]?.playlist }
        let contentType = held0?.isFragmentedMP4 == true ? "video/mp4" : "video/mp2t"
        // fMP4: the init section's tracks time the first fragment (the player has read it before any segment).
        let timing = {
            var r = Resource(upstream: url, kind: .segment)
            r.initURL = (held0?.segmentInProgress?.map ?? held0?.segments.last?.map).map { VirtualPlaylists.resolve($0.uri, against: url) }
            return r
        }()
        if isHeld(msn) {
            writer.commitHead(contentType: contentType)
            await passGate(msn)
        }
        // No `segmentStarted`: a body that takes as long as the segment lasts is the publishing's pace, not a slow download
        // for the switching rules to flee; its parts are timed each on its own.
        // The head goes out at once: FFmpeg waits for it before it reads on (ResponseWriter.commitHead).
        writer.commitHead(contentType: contentType)
        var part = 0
        var sent = 0
        // The first bytes (they carry the first PTS) and the bytes of the part being read, written from the client's thread.
        let read = NIOLockedValueBox((probe: [UInt8](), part: 0, said: false))
        var hintFailed = -1
        // The last part came from a preload hint: the playlist held predates it, so the next reload asks for the playlist that
        // lists it (answered at once) — it says whether the segment is complete or hints the next part.
        var afterHint = false
        var idle = 0
        let playlistID = requested.playlist ?? .upstream(url)
        let filler = ByteBuffer(bytes: PartFiller.bytes(fragmentedMP4: held0?.isFragmentedMP4 == true))
        /// Writes part bytes to the player; the first 8 KB say the segment's first PTS.
        @Sendable func deliver(_ b: ByteBuffer) {
            writer.chunk(b)
            let ready: [UInt8]? = read.withLockedValue { r in
                r.part += b.readableBytes
                guard r.probe.count < 8_192 else { return nil }
                r.probe += b.readableBytesView.prefix(8_192 - r.probe.count)
                guard r.probe.count >= 8_192 else { return nil }
                r.said = true
                return r.probe
            }
            if let ready, let pts = firstPTS(timing, ready) {
                emit(.firstPTS(rung: rung, msn: msn, seconds: pts))
            }
        }
        /// A first part shorter than the probe: its first PTS once it is whole.
        func sayUnsaid() {
            let unsaid: [UInt8]? = read.withLockedValue { r in
                guard !r.said, !r.probe.isEmpty else { return nil }
                r.said = true
                return r.probe
            }
            if let unsaid, let pts = firstPTS(timing, unsaid) {
                emit(.firstPTS(rung: rung, msn: msn, seconds: pts))
            }
        }
        /// Part `part` went to the player whole (`hinted`: read from its preload hint): on to the next.
        func written(_ bytes: Int, hinted: Bool) {
            // Filler the demuxer skips, so FFmpeg's blocking read hands the player this part now (`PartFiller`).
            writer.chunk(filler)
            writer.flush()
            sayUnsaid()
            sent += bytes
            part += 1
            afterHint = hinted
            idle = 0
        }
        // A listed part that failed before a byte of it went out (an error status, a connection that failed, after the
        // client's own retries): asked again while the segment's resumption budget lasts, as long as the playlist lists it —
        // the segment is never given up for an outage shorter than a body break is waited for.
        var failing: (part: Int, since: Double, tries: Int)?
        func retrying(_ why: String) async -> Bool {
            if failing?.part != part { failing = (part, now, 0) }
            failing?.tries += 1
            let budget = resumeBudget(Resource(upstream: url, kind: .part, rung: rung, msn: msn))
            let wait = min(1, (table.withLockedValue { $0.held[url]?.playlist.partTarget } ?? 1) / 2)
            guard let f = failing, now - f.since + wait <= budget, !Task.isCancelled else { return false }
            await sleep(wait)
            return writer.isActive
        }
        func failedFor() -> String {
            guard let f = failing, f.part == part, f.tries > 1 else { return "" }
            return " (asked \(f.tries) times over \(fixed(now - f.since, 1)) s)"
        }
        func fail(_ why: String) {
            writer.abort(502, "hlstui loader: \(why)")
            emit(.diagnostic("segment \(msn): \(why)"))
            record(.segment, url, rung: rung, msn: msn, since: t0, bytes: sent, status: 502, outcome: .failed(why), paced: true)
        }
        // An fMP4 segment the player was given before its first part was listed: nothing is written until the playlist lists
        // that part, which says whether a discontinuity or another EXT-X-MAP opens it; the hinted part is read meanwhile.
        var awaitingFirstPart = held0?.isFragmentedMP4 == true && table.withLockedValue { $0.unconfirmed[playlistID] == msn }
        // Parts listed beyond the one being written, read at once (`readPartsAhead`), by index.
        // A start inside this segment had its listed parts read with the init section (`readAheadAtStart`).
        var ahead: [Int: PartAhead] = table.withLockedValue { t in
            guard let s = t.startParts, s.msn == msn else { return [:] }
            t.startParts = nil
            return s.parts
        }
        // Read for a player that left before it wanted them: in the request log once they end, as the origin saw them.
        defer { for a in ahead.values { tasks.spawn { [self] in await recordAhead(a, msn: msn, delivered: false) } } }
        while writer.isActive {
            let held = table.withLockedValue { $0.held[url]?.playlist }
            var step = held.map { PartCursor.next(msn: msn, part: part, in: $0) } ?? .wait
            if case .fetch(_, _, true) = step, hintFailed == part { step = .wait }
            if awaitingFirstPart, let held {
                switch step {
                case .fetch(let uri, let range, true):
                    if ahead[part] == nil {
                        ahead[part] = readPart(
                            VirtualPlaylists.resolve(uri, against: url), range: range, msn: msn, rung: rung, hinted: true)
                    }
                    step = .wait
                case .fetch(_, _, false), .complete, .lost:
                    awaitingFirstPart = false
                    table.withLockedValue { if $0.unconfirmed[playlistID] == msn { $0.unconfirmed[playlistID] = nil } }
                    if PartCursor.opensBreak(msn: msn, in: held) == true {
                        // Not one byte went: the player reads an empty segment, its next playlist ends before this one (an
                        // fMP4 break, `VirtualPlaylists.ending`) and the session reloads after it, as at any fMP4 discontinuity.
                        writer.end()
                        table.withLockedValue { t in
                            if t.lastRequested[playlistID] == msn { t.lastRequested[playlistID] = msn - 1 }
                            if t.progress[playlistID] == msn { t.progress[playlistID] = msn - 1 }
                            t.emptied[playlistID] = msn
                        }
                        record(.segment, url, rung: rung, msn: msn, since: t0, bytes: 0, status: 200, outcome: .ok, paced: true)
                        return
                    }
                case .wait: break
                }
            }
            switch step {
            case .fetch(let uri, let range, let hinted):
                let partURL = VirtualPlaylists.resolve(uri, against: url)
                if !hinted, let held { readPartsAhead(msn: msn, after: part, base: url, rung: rung, in: held, into: &ahead) }
                if let a = ahead.removeValue(forKey: part) {
                    // Read whole: written at once; one that failed is asked again below, as the part would have been. One read
                    // for another URL (the playlist changed under it) is not the player's.
                    let same = a.url == partURL && a.range == range
                    if !same { tasks.spawn { [self] in await recordAhead(a, msn: msn, delivered: false) } }
                    if same, let r = await recordAhead(a, msn: msn, delivered: true) {
                        var b = ByteBuffer()
                        b.writeBytes(r.body)
                        deliver(b)
                        written(r.bytes, hinted: false)
                        continue
                    }
                }
                let partRes = Resource(upstream: partURL, kind: .part, rung: rung, msn: msn)
                noteCMCD(partRes)
                let t1 = now
                read.withLockedValue { $0.part = 0 }
                let broke = NIOLockedValueBox<String?>(nil)
                do throws(UpstreamError) {
                    // A body that breaks is resumed from its byte (DECISIONS.md, "A body that breaks is resumed"): the player
                    // reads one part, slower, never a short one.
                    let r = try await client.getResuming(
                        partURL, range: range, keepBody: 0, retries: hinted ? 0 : nil, cache: .media, budget: resumeBudget(partRes),
                        onBreak: { [self] b in broke.withLockedValue { $0 = emitBreak(b, partRes) } }, onBody: deliver,
                        onReadEnd: { writer.flush() })
                    record(
                        .part, partURL, rung: rung, msn: msn, since: t1, head: r.head, bytes: r.bytes, status: r.head.status,
                        prefetch: true,
                        outcome: RequestOutcome(failure: (200..<300).contains(r.head.status) ? nil : "HTTP \(r.head.status)"),
                        range: range, hint: hinted, resumed: broke.withLockedValue { $0 })
                    guard (200..<300).contains(r.head.status) else {
                        // A hinted part the server does not have is named where the playlists show it (PreloadHintCheck); the
                        // part is then asked for by a blocking reload.
                        if hinted {
                            hintFailed = part
                            continue
                        }
                        if await retrying("HTTP \(r.head.status)") { continue }
                        return fail("part \(part) (\(partURL)) answered HTTP \(r.head.status)\(failedFor())")
                    }
                    failing = nil
                    written(r.bytes, hinted: hinted)
                } catch {
                    record(
                        .part, partURL, rung: rung, msn: msn, since: t1, status: 502, prefetch: true, outcome: .failed(error.description),
                        hint: hinted, resumed: broke.withLockedValue { $0 })
                    let none = read.withLockedValue({ $0.part }) == 0
                    // A hint that failed before a byte of its part went out is asked again by a blocking reload.
                    if hinted, none {
                        hintFailed = part
                        continue
                    }
                    if none, await retrying(error.description) { continue }
                    return fail("part \(part) (\(partURL)): \(error.description)\(failedFor())")
                }
            case .complete:
                writer.end()
                let probe = read.withLockedValue { $0.probe }
                let pts = probe.isEmpty ? nil : firstPTS(timing, probe)
                record(.segment, url, rung: rung, msn: msn, since: t0, bytes: sent, status: 200, outcome: .ok, firstPTS: pts, paced: true)
                return
            case .lost:
                guard sent == 0, let h = held, let s = h.segments.first(where: { $0.mediaSequence == msn }) else {
                    return fail("its parts left the playlist before they were read (RFC 8216bis §6.2.2 keeps them three target durations)")
                }
                // Asked for after its parts were dropped: the complete segment, as any other.
                let res = segmentResource(s, base: url, rung: rung, playlist: playlistID)
                _ = await fetchSegment(res, range: nil, writer: writer, t0: t0, retries: nil)
                return
            case .wait:
                if Task.isCancelled { return fail("the Loader stopped") }
                idle += 1
                // A server that answers a blocking reload before the part exists (named by readLive) is not asked in a tight
                // loop; one that never publishes it fails the segment after as long as three target durations.
                if idle > 2 {
                    let td = Double(held?.targetDuration ?? 2)
                    if Double(idle - 1) * (held?.partTarget ?? 1) / 2 > 3 * td {
                        return fail("part \(part) was not published within three target durations (RFC 8216bis §6.2.5.2)")
                    }
                    await sleep((held?.partTarget ?? 1) / 2)
                }
                do throws(UpstreamError) {
                    let t1 = now
                    let d = DeliveryDirectives(msn: msn, part: afterHint ? part - 1 : part)
                    let confirming = afterHint
                    afterHint = false
                    let r = try await readLive(url, playlist: playlistID, rung: rung, directives: d, afterHint: confirming)
                    report(r, kind: .media, url: d.applied(to: url), rung: rung, t0: t1)
                    guard r.head.status == 200 else { return fail("the blocking reload for part \(part) answered HTTP \(r.head.status)") }
                    if rung != nil, let m = table.withLockedValue({ $0.held[url]?.playlist }) {
                        emit(.playlist(PlaylistEvent(url: url, rung: rung, rendition: nil, playlist: m, received: now)))
                    }
                } catch {
                    return fail("the blocking reload for part \(part): \(error.description)")
                }
            }
        }
    }
}

extension LoaderServer {
    /// Reads the parts `m` lists of segment `msn` after `part` (`PartCursor.listed`) that are not read yet, each whole and at
    /// once: a player that starts inside the segment in progress (PART-HOLD-BACK behind the edge: several parts published)
    /// waits one round trip for them, not one each. Each is retried as the part's own request would be.
    func readPartsAhead(msn: Int, after part: Int, base: String, rung: Int?, in m: MediaPlaylist, into ahead: inout [Int: PartAhead]) {
        for p in PartCursor.listed(msn: msn, after: part, in: m, limit: StartReads.partsAhead) where ahead[p.part] == nil {
            ahead[p.part] = readPart(VirtualPlaylists.resolve(p.uri, against: base), range: p.range, msn: msn, rung: rung)
        }
    }

    /// Starts reading part `url` (`range`) of segment `msn` whole, for `growing` to write when it comes to it (`hinted`: from
    /// its preload hint, which the server holds until the part exists: not retried, as the part's own request).
    func readPart(_ url: String, range: String?, msn: Int, rung: Int?, hinted: Bool = false) -> PartAhead {
        let a = PartAhead(read: ReadAhead(kind: .part, msn: msn, rung: rung, start: now), url: url, range: range, hinted: hinted)
        let res = Resource(upstream: url, kind: .part, rung: rung, msn: msn)
        noteCMCD(res)
        tasks.spawn { [self] in
            do throws(UpstreamError) {
                let r = try await client.getResuming(
                    url, range: range, retries: hinted ? 0 : nil, cache: .media, budget: resumeBudget(res),
                    onBreak: { [self] b in a.read.resumed.withLockedValue { $0 = emitBreak(b, res) } })
                a.read.finish(r, at: now)
            } catch {
                a.read.failure.withLockedValue { $0 = error }
                a.read.finish(nil, at: now)
            }
        }
        return a
    }

    /// Waits for a part read ahead to end and puts it in the request log (`delivered`: the player's body carries it); its
    /// answer when it came whole.
    @discardableResult
    func recordAhead(_ a: PartAhead, msn: Int, delivered: Bool) async -> UpstreamResponse? {
        let (r, end) = await a.read.outcome()
        let whole = r.map { (200..<300).contains($0.head.status) && $0.body.count == $0.bytes } ?? false
        let why =
            r.map { whole ? nil : "HTTP \($0.head.status)" } ?? (a.read.failure.withLockedValue { $0 }?.description ?? "no answer")
        record(
            .part, a.url, rung: a.read.rung, msn: delivered ? msn : nil, since: a.read.start, head: r?.head,
            durationMs: (end - a.read.start) * 1000, bytes: r?.bytes ?? 0, status: r?.head.status ?? 502, prefetch: true,
            outcome: RequestOutcome(failure: why), range: a.range, hint: a.hinted, resumed: a.read.resumed.withLockedValue { $0 })
        return whole ? r : nil
    }
}

/// A part `growing` reads ahead of the one it writes: the read, and what was asked.
struct PartAhead: Sendable {
    let read: ReadAhead
    let url: String
    let range: String?
    /// Asked from its preload hint.
    let hinted: Bool
}
