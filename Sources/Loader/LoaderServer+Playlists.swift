import CMCD
import LoaderEvents
import LoaderCore
import Foundation
import HLS
import MediaFormats
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// Media playlists: the player's, read and reshaped (virtual playlists); reads ahead of it; the splice's choice of source.
extension LoaderServer {
    func media(_ requested: Resource, writer: ResponseWriter) async {
        let t0 = now
        var resolved = requested
        if requested.slot {
            guard let (rung, url) = table.withLockedValue({ t in t.route.flatMap { r in t.rungURLs[r.rung].map { (r.rung, $0) } } }) else {
                writer.text(502, "hlstui loader: no splice route")
                return
            }
            resolved.upstream = url
            resolved.rung = rung
        } else if requested.rendition != nil, let other = table.withLockedValue({ $0.renditionRoute[requested.upstream] }) {
            // The splice moved to another pathway: the same rendition from its copy there (docs/STEERING.md).
            resolved.upstream = other
        }
        var picked = resolved
        do {
            let r = try await slotPlaylist(&picked, t0: t0)
            let res = picked
            guard r.head.status == 200 else {
                writer.text(502, "origin answered HTTP \(r.head.status) for \(res.upstream)")
                record(
                    .media, res.upstream, rung: res.rung, since: t0, head: r.head, bytes: r.body.count, status: r.head.status,
                    outcome: .failed("HTTP \(r.head.status)"))
                return
            }
            let vars = table.withLockedValue { $0.variables }
            let parsed = PlaylistParser.parseLenient(
                String(decoding: r.body, as: UTF8.self), options: ParseOptions(importedVariables: vars, url: r.head.url))
            guard case .media(let m) = parsed.playlist.body else {
                writer.text(502, "\(res.upstream) is not a media playlist")
                return
            }
            for d in parsed.errors.prefix(3) { emit(.diagnostic("\(res.upstream): \(d)")) }
            if m.endList { table.withLockedValue { _ = $0.complete.insert(res.playlistID) } }
            table.withLockedValue { t in
                if res.rendition?.hasPrefix("AUDIO ") == true { t.audioPlaylists.insert(res.playlistID) }
                if res.rendition == nil, let rung = res.rung { t.playerRung = rung }
            }
            let (served, growing) = await playerPlaylist(parsed.playlist, m, res, url: r.head.url)
            let decrypt = options.decryptAES
            let virtual = VirtualPlaylists(reference: { [self] ref in
                playerReference(ref, res, m, url: r.head.url, growing: growing?.mediaSequence)
            }).media(served, base: r.head.url, decryptAES: decrypt)
            writer.playlist(PlaylistWriter.write(virtual, resolveVariables: true))
            if !m.endList, case .media(let sm) = served.body {
                // What the player was given lists nothing before this: older segments' ids are forgotten, a margin behind.
                let first = sm.segments.first?.mediaSequence ?? m.mediaSequence
                table.withLockedValue { $0.resources.forget(res.playlistID, before: first - Self.segmentMargin) }
            }
            record(
                .media, res.upstream, rung: res.rung, msn: m.mediaSequence, since: t0, head: r.head, bytes: r.body.count, status: 200,
                outcome: .ok)
            prefetchKeys(m, base: r.head.url, playlist: res.playlistID, startMSN: res.startMSN)
        } catch {
            writer.text(502, "hlstui loader: \(error.description)")
            record(.media, picked.upstream, rung: picked.rung, since: t0, status: 502, outcome: .failed(error.description))
        }
    }

    /// The player's media playlist of `m` (read for `res` from `url`): listed from where it needs on (a player behind the live
    /// window), with the segment in progress (LL-HLS), the GAPs another rung fills unmarked (the splice), and ending before
    /// a break the player cannot cross; the segment in progress, when there is one.
    func playerPlaylist(_ parsed: Playlist, _ m: MediaPlaylist, _ res: Resource, url: String) async -> (Playlist, Segment?) {
        var served = parsed
        // A player behind a live window (a pane held for the lock, a cache that stopped reading for a while) would skip what
        // left it; while RFC 8216bis §6.2.2 keeps those segments available they stay listed from the one it asked for last
        // on — not the one after: FFmpeg fetches the next segment while it reads one, so the segment asked for last may be
        // the one it plays next (DECISIONS.md, "A reload, or a player behind").
        let (start, earlier, behind) = table.withLockedValue { t -> (Int?, [Segment], Bool) in
            t.recent[url, default: RecentSegments()].note(m, at: now)
            var start = res.startMSN
            if !m.endList, let last = t.progress[res.playlistID], last < m.mediaSequence { start = last }
            let earlier = start.map { t.recent[url]?.before(m, from: $0, at: now) ?? [] } ?? []
            let behind = !earlier.isEmpty && start != res.startMSN && t.behindSaid.insert(res.playlistID).inserted
            return (start, earlier, behind)
        }
        // LL-HLS: the segment the origin is still publishing is listed after the complete ones, served part by part as they
        // come (DECISIONS.md, LL-HLS), so the player can play near PART-HOLD-BACK instead of three segments back.
        let growing = growingSegment(m)
        // fMP4, listed before its first part, after a segment of the player's: its body checks that part first (`growing`).
        // A player that starts at it needs no check: a fresh player reads whatever opens it.
        if let g = growing, m.trailingParts.isEmpty, m.isFragmentedMP4, g.mediaSequence != start {
            table.withLockedValue { $0.unconfirmed[res.playlistID] = g.mediaSequence }
        }
        let listed = growing.map { m.listing(inProgress: $0) } ?? m
        if growing != nil { served.body = .media(listed) }
        if let start { served.body = .media(VirtualPlaylists.starting(at: start, listed, earlier: earlier)) }
        if behind, let start {
            emit(
                .diagnostic(
                    "the player fell behind the live window of \(url) (it asked for segment \(start) last, the window starts at \(m.mediaSequence)): segments that left it stay listed while the origin must keep them (RFC 8216bis §6.2.2)"
                ))
        }
        if res.slot, let rung = res.rung {
            table.withLockedValue { $0.rungMedia[rung] = RungMedia(url: url, media: m, read: now) }
            // The other rungs' playlists are read (and reported) first, so the session knows which GAPs are filled.
            if case .media(let sm) = served.body { served.body = .media(await unmarkFillableGaps(sm)) }
        }
        emit(.playlist(PlaylistEvent(url: url, rung: res.rung, rendition: res.rendition, playlist: m, received: now)))
        // A GAP that no rung fills (or an fMP4 discontinuity) ends the player's playlist; the session reloads after it.
        if case .media(let sm) = served.body {
            let (last, emptied) = table.withLockedValue { ($0.lastRequested[res.playlistID], $0.emptied[res.playlistID]) }
            let after = [last, res.startMSN].compactMap { $0 }.max()
            let ended = VirtualPlaylists.endingBeforeBreak(sm, after: after)
            // A segment given empty because it opens a break (`growing`): the playlist ends before it.
            served.body = .media(emptied.map { VirtualPlaylists.ending(before: $0, ended) } ?? ended)
        }
        return (served, growing)
    }

    /// What the player's playlist says for `ref` (of `m`, read for `res` from `url`): the Loader's path of a resource that
    /// carries what serving it needs — MSN, GAP, key, IV, byte range; spliced, only the MSN, the rest when asked for; the
    /// segment in progress (`growing`) served part by part.
    func playerReference(_ ref: Reference, _ res: Resource, _ m: MediaPlaylist, url: String, growing: Int?) -> String {
        if ref.kind == .segment, let s = ref.segment, s.mediaSequence == growing {
            var rr = Resource(upstream: res.slot ? "" : url, kind: .segment, rung: res.rung, msn: s.mediaSequence)
            rr.playlist = res.playlistID
            rr.slot = res.slot
            rr.growing = true
            return path(register(rr), rr)
        }
        guard ref.kind == .segment, let s = ref.segment else {
            var rr = Resource(upstream: ref.upstream, kind: ref.kind, rung: res.rung)
            rr.byteRange = ref.byteRange
            // An init section under an AES-128 key is encrypted too (§4.4.4.4): the Loader decrypts it like a segment.
            if ref.kind == .initSection, options.decryptAES,
                let (key, iv) = KeyMaterial.aes128(
                    in: ref.map?.keys ?? [], base: url, mediaSequence: ref.segment?.mediaSequence ?? m.mediaSequence)
            {
                rr.key = key
                rr.iv = iv
            }
            return path(register(rr), rr)
        }
        var rr =
            res.slot
            ? Resource.spliceSegment(msn: s.mediaSequence)
            : segmentResource(s, base: url, rung: res.rung, playlist: .upstream(res.upstream))
        if options.cmcd != nil, !res.slot {
            let i = s.mediaSequence - m.mediaSequence + 1
            if let n = m.segments[safe: i], n.mediaSequence == s.mediaSequence + 1 {
                rr.next = (VirtualPlaylists.resolve(n.uri, against: url), n.byteRange)
            }
            rr.renditionType = res.rendition.map { $0.hasPrefix("AUDIO") ? .audio : $0.hasPrefix("SUBTITLES") ? .caption : .other }
        }
        return path(register(rr), rr)
    }

    /// Reads a live media playlist for the player with the delivery directives its server offers (RFC 8216bis §6.2.5): a
    /// blocking reload for the segment the player needs next once it has reached the end of what it holds, a delta update
    /// merged back into the full playlist. The answer reads as the stream's own URL, whole; a delta that does not merge is
    /// asked again in full (§6.3.7), with one line saying why, and no delta is asked of that playlist again.
    /// `directives`: the Loader's own wait for a part (a delta update added when the held playlist allows it); `afterHint`: for
    /// the part just read from its hint.
    func readLive(
        _ url: String, playlist: PlaylistID, rung: Int?, retries: Int? = nil, directives: DeliveryDirectives? = nil,
        afterHint: Bool = false
    ) async throws(UpstreamError) -> UpstreamResponse {
        let t0 = now
        if directives == nil, let r = reusable(url) { return r }
        let (held, playerAt, refused, slow) = table.withLockedValue { t in
            (t.held[url], t.playerAt(playlist), t.deltaRefused.contains(url), t.slowHold.contains(url))
        }
        var d =
            directives
            ?? DeliveryDirectives.choose(
                held: held?.playlist, age: now - (held?.at ?? now), playerAt: playerAt,
                growing: held.map { Self.givesParts($0.playlist, options: options) } ?? false)
        if directives != nil, let h = held?.playlist, let until = h.serverControl?.canSkipUntil, now - (held?.at ?? now) < until / 2 {
            d.skip = true
        }
        // A server whose delta updates did not merge once is asked in full from then on; one that held a blocking reload
        // past the read timeout is polled.
        if refused { d.skip = false }
        if slow { d.msn = nil }
        var r: UpstreamResponse
        do throws(UpstreamError) {
            // A blocking reload is not retried: a server that holds too long would be waited for three times over.
            r = try await client.get(d.applied(to: url), retries: d.msn == nil ? retries : 0, cache: .playlist)
        } catch {
            guard let want = d.msn, error.cause == .timeout else { throw error }
            record(.media, d.applied(to: url), rung: rung, since: t0, status: 504, outcome: .failed(error.description))
            if table.withLockedValue({ $0.slowHold.insert(url).inserted }) {
                emit(
                    .diagnostic(
                        "\(url): the blocking reload for segment \(want) was not answered within \(Int(client.options.readTimeout.rounded())) s (RFC 8216bis §6.2.5.2: a server that cannot answer within three target durations SHOULD say 503); this playlist is polled from now on"
                    ))
            }
            d.msn = nil
            r = try await client.get(d.applied(to: url), retries: retries, cache: .playlist)
        }
        r.head.url = DeliveryDirectives.stripped(r.head.url)
        guard r.head.status == 200 else { return r }
        let text = String(decoding: r.body, as: UTF8.self)
        // Only a playlist with a server control has directives to offer: any other is parsed once, by the caller.
        guard text.contains("#EXT-X-SERVER-CONTROL") else {
            if held != nil { table.withLockedValue { $0.held[url] = nil } }
            return r
        }
        let vars = table.withLockedValue { $0.variables }
        guard var m = PlaylistParser.parseLenient(text, options: ParseOptions(importedVariables: vars, url: r.head.url)).playlist.media
        else { return r }
        let received = r.body.count
        // What a merged delta saved: the whole playlist it stands for (as written here) against what came.
        var (whole, skipped) = (received, 0)
        if m.skip != nil, let h = held?.playlist {
            guard let merged = try await mergeDelta(m, into: h, &r, url: url, directives: d, retries: retries, variables: vars)
            else { return r }
            m = merged.playlist
            if let w = merged.whole { (whole, skipped) = (w, merged.skipped) }
        }
        checkAnswer(url, directives: d, m, held: held?.playlist, ttfb: r.head.ttfb)
        if !d.isEmpty {
            emit(
                .reload(
                    ReloadEvent(
                        url: url, rung: rung, blockedFor: d.msn, delta: d.skip, holdSeconds: r.head.ttfb, bytes: received,
                        wholeBytes: whole, skipped: skipped,
                        lastMSN: m.segments.last?.mediaSequence, targetDuration: m.targetDuration, partTarget: m.partTarget,
                        blockedPart: d.msn == nil ? nil : d.part, reportLag: m.renditionReportLag, afterHint: afterHint)))
        }
        let read = m
        table.withLockedValue { t in
            if read.serverControl != nil && !read.endList { t.held[url] = (read, now) } else { t.held[url] = nil }
        }
        return r
    }

    /// Delta update `m` (§6.2.5.1) merged into the playlist held: the full playlist, written into `r`'s body, with its size
    /// and the segments it skipped. One that does not merge (§6.3.7) is asked again in full, once said, and no delta is asked
    /// of that playlist again (`whole` nil); nil when that read fails.
    func mergeDelta(
        _ m: MediaPlaylist, into h: MediaPlaylist, _ r: inout UpstreamResponse, url: String, directives d: DeliveryDirectives,
        retries: Int?, variables vars: [String: String]
    ) async throws(UpstreamError) -> (playlist: MediaPlaylist, whole: Int?, skipped: Int)? {
        switch DeltaUpdate.merge(m, into: h) {
        case .success(let full):
            var p = Playlist(body: .media(full))
            p.version = 9
            r.body = Array(PlaylistWriter.write(p).utf8)
            return (full, r.body.count, m.skip?.skippedSegments ?? 0)
        case .failure(let why):
            if table.withLockedValue({ $0.deltaRefused.insert(url).inserted }) {
                emit(.diagnostic("\(url): \(why); asked again in full"))
            }
            r = try await client.get(DeliveryDirectives(msn: d.msn).applied(to: url), retries: retries, cache: .playlist)
            r.head.url = DeliveryDirectives.stripped(r.head.url)
            guard r.head.status == 200,
                let again = PlaylistParser.parseLenient(
                    String(decoding: r.body, as: UTF8.self), options: ParseOptions(importedVariables: vars, url: r.head.url)
                ).playlist.media
            else { return nil }
            return (again, nil, 0)
        }
    }

    /// What a live playlist's answer says of its server, each named once per playlist: a blocking reload answered without
    /// what it asked for or held past three target durations (RFC 8216bis §6.2.5.2), a preload hint that never came true
    /// (§4.4.5.3).
    func checkAnswer(_ url: String, directives d: DeliveryDirectives, _ m: MediaPlaylist, held: MediaPlaylist?, ttfb: Double) {
        // §6.2.5.2: the server MUST hold a blocking reload until the playlist holds the segment (or part) asked for (a stream
        // that restarted its numbering is another matter, named where the session sees it).
        if let want = d.msn, !d.answered(by: m), m.mediaSequence >= held?.mediaSequence ?? 0,
            table.withLockedValue({ $0.earlyAnswer.insert(url).inserted })
        {
            let asked = d.part.map { "part \($0) of segment \(want)" } ?? "segment \(want)"
            let has = d.part != nil ? m.lastPart.map { "part \($0.part) of segment \($0.msn)" } : nil
            emit(
                .diagnostic(
                    "\(url): the blocking reload for \(asked) was answered without it (the playlist ends at \(has ?? String(m.segments.last?.mediaSequence ?? -1))); the server MUST hold it until it exists (RFC 8216bis §6.2.5.2)"
                ))
        }
        // §6.2.5.2: a server that cannot answer within three target durations SHOULD say 503 instead of holding on; a hold
        // longer than that which still ended (within the read timeout) is named once per playlist.
        if let want = d.msn, let td = m.targetDuration, ttfb > 3 * Double(td),
            table.withLockedValue({ $0.longHold.insert(url).inserted })
        {
            emit(
                .diagnostic(
                    "\(url): the blocking reload for segment \(want) was held \(formatSeconds((ttfb * 10).rounded() / 10)) s, more than three target durations (\(3 * td) s); a server that cannot answer in that time SHOULD say 503 (RFC 8216bis §6.2.5.2)"
                ))
        }
        if let h = held, let miss = PreloadHintCheck.missed(held: h, later: m),
            table.withLockedValue({ $0.falseHint.insert(url).inserted })
        {
            emit(
                .diagnostic(
                    "\(url): the preload hint \(miss.hint.uri) (part \(miss.part) of segment \(miss.msn)) never appeared: the playlist moved past it without listing it (RFC 8216bis §4.4.5.3)"
                ))
        }
    }

    /// Reads a media playlist ahead of the player and prefetches its keys.
    @discardableResult
    func prewarm(_ url: String, rung: Int?, variables: [String: String], playlist: PlaylistID? = nil, report: Bool = true) async
        -> MediaPlaylist?
    {
        guard let r = try? await read(url, kind: .media, rung: rung), r.head.status == 200 else { return nil }
        let parsed = PlaylistParser.parseLenient(
            String(decoding: r.body, as: UTF8.self), options: ParseOptions(importedVariables: variables, url: r.head.url))
        if let m = parsed.playlist.media {
            let at = now
            table.withLockedValue { t in
                t.recent[r.head.url, default: RecentSegments()].note(m, at: at)
                t.prewarmed[url] = (r, m, at)
            }
            if report { emit(.playlist(PlaylistEvent(url: r.head.url, rung: rung, rendition: nil, playlist: m, received: now))) }
            prefetchKeys(m, base: r.head.url, playlist: playlist)
        }
        return parsed.playlist.media
    }

    /// The media playlist the Loader read ahead of the player at `url` (`prewarm`), taken for the player's read of it — once,
    /// and only while it says what the origin would answer now: a final (ENDLIST) playlist at any age, a live one for up to
    /// half a target duration (the player's first read follows the Loader's by a round trip or two, and a live playlist
    /// changes once a target duration). One fetch upstream per object at start (docs/PROXY.md; the first segments: `StartReads`).
    func reusable(_ url: String) -> UpstreamResponse? {
        let at = now
        return table.withLockedValue { t in
            guard let p = t.prewarmed.removeValue(forKey: url), t.held[url] == nil,
                p.playlist.endList || at - p.at <= Double(p.playlist.targetDuration ?? 2) / 2
            else { return nil }
            // As a read of the origin leaves it: a live LL-HLS playlist is held, for the blocking reloads that follow.
            if p.playlist.serverControl != nil && !p.playlist.endList { t.held[url] = (p.playlist, p.at) }
            var r = p.response
            r.head.reused = true
            return r
        }
    }

    /// A GET the Loader makes on its own account (the playlist a session opens, a playlist read ahead of the player or to follow
    /// the live edge), in the request log like every request the player makes: every request the origin sees is there.
    func read(_ url: String, kind: ResourceKind, rung: Int?, retries: Int? = nil) async throws(UpstreamError) -> UpstreamResponse {
        let t0 = now
        do throws(UpstreamError) {
            let r = try await client.get(url, retries: retries, cache: .playlist)
            report(r, kind: kind, url: url, rung: rung, t0: t0)
            // A rung's playlist that fails for hlstui's own read fails the rung as the player's read would (SourceHealth).
            if let rung, kind == .media, SegmentHold.passing(r.head.status) {
                table.withLockedValue { t in _ = t.health.failed(rung, cause: "HTTP \(r.head.status)", at: now) }
            }
            return r
        } catch {
            record(kind, url, rung: rung, since: t0, status: 502, prefetch: true, outcome: .failed(error.description))
            if let rung, kind == .media { table.withLockedValue { t in _ = t.health.failed(rung, cause: error.description, at: now) } }
            throw error
        }
    }

    /// Reports an answer the Loader read whole for itself.
    func report(_ r: UpstreamResponse, kind: ResourceKind, url: String, rung: Int?, t0: Double) {
        record(
            kind, url, rung: rung, since: t0, head: r.head, bytes: r.body.count, status: r.head.status, prefetch: true,
            outcome: (200..<300).contains(r.head.status) ? .ok : .failed("HTTP \(r.head.status)"))
    }

    /// Reads the media playlist for `res`; for the spliced playlist, when the routed rung's playlist fails (its host is down),
    /// another allowed rung's is read instead — the splice lines rungs up by MSN, and each segment is still asked of the
    /// routed rung first. `res` names the rung actually read.
    func slotPlaylist(_ res: inout Resource, t0: Double) async throws(UpstreamError) -> UpstreamResponse {
        guard res.slot, let first = res.rung else { return try await readLive(res.upstream, playlist: res.playlistID, rung: res.rung) }
        let urls = table.withLockedValue { $0.rungURLs }
        let candidates = [first] + failoverOrder(from: first)
        let order = table.withLockedValue { t in t.health.order(candidates, at: now) }
        var last: Result<UpstreamResponse, UpstreamError>?
        for (i, rung) in order.enumerated() {
            guard let url = urls[rung] else { continue }
            let more = i + 1 < order.count
            let t1 = now
            do throws(UpstreamError) {
                let r = try await readLive(url, playlist: res.playlistID, rung: rung, retries: more ? 0 : nil)
                // The answer used is reported by the caller; a failed attempt before it, here.
                if r.head.status != 200 && more { report(r, kind: .media, url: url, rung: rung, t0: t1) }
                if r.head.status == 200 {
                    if let back = table.withLockedValue({ $0.health.answered(rung, at: now) }) {
                        emit(.recovered(rung: rung, downSeconds: back.down, cause: back.cause))
                    }
                    let (said, why) = table.withLockedValue { t in
                        (rung != first && !t.substituted.insert(first).inserted, t.health.cause(first))
                    }
                    if rung != first && !said {
                        emit(
                            .diagnostic(
                                "the media playlist of rung \(first) failed (\(last.map(Self.cause) ?? why ?? "no answer")): the splice reads rung \(rung)'s"
                            ))
                    }
                    if rung == first { table.withLockedValue { _ = $0.substituted.remove(first) } }
                    res.upstream = url
                    res.rung = rung
                    return r
                }
                last = .success(r)
            } catch {
                last = .failure(error)
                if more {
                    record(.media, url, rung: rung, since: t1, status: 502, outcome: .failed(error.description))
                }
            }
            if let l = last { table.withLockedValue { t in _ = t.health.failed(rung, cause: Self.cause(l), at: now) } }
        }
        switch last {
        case .success(let r)?: return r
        case .failure(let e)?: throw e
        case nil: return try await client.get(res.upstream, cache: .playlist)
        }
    }

    static func cause(_ r: Result<UpstreamResponse, UpstreamError>) -> String {
        switch r {
        case .success(let r): return "HTTP \(r.head.status)"
        case .failure(let e): return e.description
        }
    }

    /// How fetching one source of a segment ended: answered to the player (well or not), or failed before a byte went out —
    /// then the caller may try another source, or answers the failure itself.
    enum Outcome: Sendable {
        case answered
        case failed(cause: String, status: Int)
    }
}
