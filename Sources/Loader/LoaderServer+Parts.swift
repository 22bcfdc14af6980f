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
        let held = table.withLockedValue { $0.held[url]?.playlist }
        let contentType = held?.isFragmentedMP4 == true ? "video/mp4" : "video/mp2t"
        if isHeld(msn) {
            writer.commitHead(contentType: contentType)
            await passGate(msn)
        }
        // No `segmentStarted`: a body that takes as long as the segment lasts is the publishing's pace, not a slow download
        // for the switching rules to flee; its parts are timed each on its own.
        // The head goes out at once: FFmpeg waits for it before it reads on (ResponseWriter.commitHead).
        writer.commitHead(contentType: contentType)
        let body = GrowingBody(
            loader: self, writer: writer, msn: msn, rung: rung, url: url, playlist: requested.playlist ?? .upstream(url), t0: t0,
            held: held)
        await body.run()
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
