import LoaderEvents
import LoaderCore
import Foundation
import HLS
import MediaFormats
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// Segments: fetched, retried, failed over, decrypted as they stream, timed.
extension LoaderServer {
    func segment(_ requested: Resource, range: String?, writer: ResponseWriter) async {
        let t0 = now
        var resolved = requested
        if requested.slot, let msn = requested.msn { resolved = await resolveSlot(msn) }
        let res = resolved
        if res.kind == .segment, !res.gap, let msn = res.msn, isHeld(msn) {
            writer.commitHead(contentType: "application/octet-stream")
            await passGate(msn)
        }
        if let p = res.playlist, let msn = res.msn {
            table.withLockedValue { t in
                t.lastRequested[p] = max(t.lastRequested[p] ?? msn, msn)
                t.progress[p] = msn
            }
            releaseKeys(near: p)
        }
        readAlong(res)
        if res.gap {
            // GAP segments are never requested from the origin (RFC 8216bis §4.4.4.7).
            writer.text(404, "segment \(res.msn ?? -1) is an EXT-X-GAP: hlstui does not request it")
            record(res.kind, res.upstream, rung: res.rung, msn: res.msn, since: t0, durationMs: 0, status: 404, local: true, outcome: .gap)
            return
        }
        // A spliced segment whose rung fails is served from another allowed rung with media at that MSN (the GAP failover's
        // candidates); a rung that failed waits out a backoff before it is asked first again (SourceHealth).
        var sources = [res]
        var alternatesRead = false
        if requested.slot, let r = res.rung, table.withLockedValue({ $0.health.isDown(r, at: now) }), let msn = res.msn {
            sources += await slotAlternates(msn, besides: r)
            alternatesRead = true
            let order = table.withLockedValue { t in t.health.order(sources.compactMap(\.rung), at: now) }
            sources.sort { (order.firstIndex(of: $0.rung ?? -1) ?? 0) < (order.firstIndex(of: $1.rung ?? -1) ?? 0) }
        }
        var i = 0
        var held: SegmentHold?
        var firstFailure: (rung: Int, cause: String)?
        while i < sources.count {
            let src = sources[i]
            // With another source to go to, a failure moves on at once instead of being retried here.
            let more = requested.slot && (!alternatesRead || i + 1 < sources.count)
            let outcome = await fetchSegment(src, range: range, writer: writer, t0: t0, retries: more ? 0 : nil)
            switch outcome {
            case .answered:
                if let r = src.rung, let back = table.withLockedValue({ $0.health.answered(r, at: now) }) {
                    emit(.recovered(rung: r, downSeconds: back.down, cause: back.cause))
                }
                // One failover per segment, once it is known who served it (the rung on screen changes for it).
                if let f = firstFailure, let msn = src.msn, let r = src.rung, r != f.rung {
                    emit(.failover(msn: msn, failedRung: f.rung, by: r, cause: f.cause))
                }
                return
            case .failed(let cause, let status):
                if let r = src.rung { table.withLockedValue { t in _ = t.health.failed(r, cause: cause, at: now) } }
                if requested.slot && !alternatesRead, let msn = src.msn {
                    sources += await slotAlternates(msn, besides: src.rung)
                    alternatesRead = true
                }
                let next = i + 1 < sources.count ? sources[i + 1] : nil
                if firstFailure == nil, let r = src.rung, sources.count > 1 { firstFailure = (r, cause) }
                if next == nil, SegmentHold.passing(status), status != 504 || client.options.cache?.options.offline != true,
                    let p = src.playlist, table.withLockedValue({ $0.complete.contains(p) }),
                    writer.isActive
                {
                    // Every source failed a VOD segment for now: held and retried, so the player waits (a stall with this
                    // cause) instead of skipping the segment's media.
                    var h = held ?? SegmentHold(since: t0, budget: options.vodHold)
                    if !Task.isCancelled, let wait = h.next(at: now) {
                        if held == nil {
                            emit(
                                .diagnostic(
                                    "\(cause); held and retried for up to \(Int(h.budget)) s (a VOD segment is never skipped while its origin may answer)"
                                ))
                        }
                        held = h
                        await sleep(wait)
                        i = 0
                        continue
                    }
                }
                guard next != nil else {
                    if let msn = src.msn, let r = firstFailure?.rung ?? src.rung, sources.count > 1 {
                        emit(.failover(msn: msn, failedRung: r, by: nil, cause: cause))
                    }
                    writer.text(status, "hlstui loader: \(cause)")
                    return
                }
            }
            i += 1
        }
    }

    /// The same segment's URLs on the rungs of the same bandwidth as `res`'s (a redundant copy on another host, another
    /// pathway's, whether the caps allow it or not: these are the same bytes, not another rung): where a body that broke may go
    /// on from, under its If-Range (`getResuming`).
    func redundantCopies(_ res: Resource) async -> [String] {
        guard res.playlist == .splice, let msn = res.msn, let rung = res.rung, res.byteRange == nil else { return [] }
        let bw = table.withLockedValue { $0.rungBandwidth }
        guard let mine = bw[rung] else { return [] }
        var out: [String] = []
        for r in bw.keys.sorted() where r != rung && bw[r] == mine {
            guard let rm = await rungMedia(r, containing: msn), let s = rm.segment(msn), !s.gap else { continue }
            out.append(segmentResource(s, base: rm.url, rung: r, playlist: .splice).upstream)
        }
        return out
    }

    /// The allowed rungs other than `rung` in the order a failure of `rung` tries them (`SpliceRoute.failoverOrder`).
    func failoverOrder(from rung: Int?) -> [Int] {
        let (route, bw) = table.withLockedValue { ($0.route, $0.rungBandwidth) }
        return route?.failoverOrder(from: rung, bandwidth: bw) ?? []
    }

    /// The other allowed rungs that have media (no GAP) at spliced segment `msn`, in failover order.
    func slotAlternates(_ msn: Int, besides rung: Int?) async -> [Resource] {
        var out: [Resource] = []
        for r in failoverOrder(from: rung) {
            guard let rm = await rungMedia(r, containing: msn), let s = rm.segment(msn), !s.gap else { continue }
            out.append(segmentResource(s, base: rm.url, rung: r, playlist: .splice))
        }
        return out
    }

    /// Fetches one source of a segment and streams it to the player; a failure before the first byte is returned, not answered.
    func fetchSegment(_ res: Resource, range: String?, writer: ResponseWriter, t0: Double, retries: Int?) async -> Outcome {
        noteCMCD(res)
        if res.kind == .segment, let msn = res.msn { emit(.segmentStarted(rung: res.rung, msn: msn, at: t0)) }
        if let key = res.key, let iv = res.iv, let uri = key.uri {
            return await decrypted(res, key: key, uri: uri, iv: iv, writer: writer, t0: t0, retries: retries)
        }
        // A sub-range (EXT-X-BYTERANGE) is asked for by Range and answered to the player as a resource of its own.
        var upstreamRange = range
        var relative: ClosedRange<Int>?
        if let br = res.byteRange {
            guard let sub = SubRange.request(br, player: range) else {
                writer.text(416, "hlstui loader: range \(range ?? "") does not fit the \(br.length)-byte sub-range")
                return .answered
            }
            (upstreamRange, relative) = (sub.upstream, sub.relative)
        }
        // Read ahead at start (`StartReads`): answered from that read, in the request log as the origin saw it.
        switch res.byteRange == nil ? await takeReadAhead(res, range: upstreamRange) : nil {
        case .failed(let cause, let status)?: return .failed(cause: cause, status: status)
        case .answered(let ahead, let r, let end)?:
            // The init section's tracks are known before the player has the whole init: its next request (segment 0, read
            // ahead and answered at once) is timed with them (a first PTS lost there left the first segment without a position).
            if res.kind == .initSection { initTracks.withLockedValue { $0[res.upstream] = FragmentedMP4.tracks(initSection: r.body) } }
            writer.head(r.head.status, r.head)
            writer.chunk(ByteBuffer(bytes: r.body))
            writer.end()
            let first = firstPTS(res, r.body)
            if let pts = first, let msn = res.msn { emitStart(res, r.body, msn: msn, pts: pts) }
            record(
                res.kind, res.upstream, rung: res.rung, msn: res.msn, since: ahead.start, head: r.head,
                durationMs: (end - ahead.start) * 1000,
                bytes: r.bytes, status: r.head.status, prefetch: true, outcome: .ok, firstPTS: first,
                resumed: ahead.resumed.withLockedValue { $0 })
            return .answered
        case nil: break
        }
        // Clear media streams through as it arrives.
        let subrange = res.byteRange.map { br in (length: br.length, relative: relative) }
        return await streamClear(res, range: upstreamRange, subrange: subrange, writer: writer, t0: t0, retries: retries)
    }

    /// Streams a clear segment (or init section, or key) to the player as it arrives, resumed where its body breaks; its
    /// first PTS said as soon as its first bytes carry it. `subrange`: an EXT-X-BYTERANGE answered as a resource of its own.
    func streamClear(
        _ res: Resource, range upstreamRange: String?, subrange: (length: Int, relative: ClosedRange<Int>?)?, writer: ResponseWriter,
        t0: Double, retries: Int?
    ) async -> Outcome {
        let broke = NIOLockedValueBox<String?>(nil)
        func report(_ status: Int, _ r: UpstreamResponse?, error: String?, first: Double? = nil) {
            record(
                res.kind, res.upstream, rung: res.rung, msn: res.msn, since: t0, head: r?.head, bytes: r?.bytes ?? 0, status: status,
                outcome: RequestOutcome(failure: error), firstPTS: first, resumed: broke.withLockedValue { $0 })
        }
        do {
            // Keep only what the first-PTS probe and init-section parsing need.
            let keep = res.kind == .initSection ? Int.max : 65_536
            // The first PTS is reported as soon as the first bytes carry it: the player may show the frame before the transfer ends.
            let early = NIOLockedValueBox<(bytes: [UInt8], done: Bool)>(([], res.kind != .segment || res.msn == nil))
            // An origin that answers a sub-range request with the whole resource is named, not passed on as the segment.
            let ignoredRange = NIOLockedValueBox(false)
            let r = try await client.getResuming(
                res.upstream, range: upstreamRange, keepBody: keep, retries: retries, cache: .media, budget: resumeBudget(res),
                copies: { [self] in await redundantCopies(res) },
                onBreak: { [self] b in broke.withLockedValue { $0 = emitBreak(b, res) } },
                onHead: { h in
                    if subrange != nil, h.status == 200 { ignoredRange.withLockedValue { $0 = true }; return }
                    writer.head(h.status, h, subrange: h.status == 206 ? subrange : nil)
                },
                onBody: { [self] b in
                    guard !ignoredRange.withLockedValue({ $0 }) else { return }
                    writer.chunk(b)
                    let ready: [UInt8]? = early.withLockedValue { e in
                        guard !e.done else { return nil }
                        e.bytes += b.readableBytesView.prefix(65_536 - e.bytes.count)
                        if e.bytes.count >= 8_192 || e.bytes.count >= 65_536 { e.done = true; return e.bytes }
                        return nil
                    }
                    if let bytes = ready, let pts = firstPTS(res, bytes), let msn = res.msn {
                        emitStart(res, bytes, msn: msn, pts: pts)
                    }
                }, onReadEnd: { writer.flush() })
            if ignoredRange.withLockedValue({ $0 }) {
                let why =
                    "origin answered 200 with the whole resource to a Range request for an EXT-X-BYTERANGE sub-range (it must honour Range)"
                writer.text(502, "hlstui loader: \(why)")
                report(502, r, error: why)
                return .answered
            }
            guard (200..<300).contains(r.head.status) else {
                // Not streamed (UpstreamClient streams successes only): nothing went to the player yet.
                let cause = "HTTP \(r.head.status)" + (r.head.retries > 0 ? " (after \(r.head.retries) retries)" : "")
                report(r.head.status, r, error: cause)
                return .failed(
                    cause: "origin answered \(cause) for \(res.kind.rawValue) \(res.msn.map(String.init) ?? "")", status: r.head.status)
            }
            // Before the answer ends, as above.
            if res.kind == .initSection { initTracks.withLockedValue { $0[res.upstream] = FragmentedMP4.tracks(initSection: r.body) } }
            writer.end()
            report(r.head.status, r, error: nil, first: firstPTS(res, r.body))
            return .answered
        } catch {
            // Not in the cache, offline: 504, as for a request that may only be answered from a cache (RFC 9111 §5.2.1.7).
            let status = error.cause == .offline ? 504 : 502
            report(status, nil, error: error.description)
            if writer.started.withLockedValue({ $0 }) {
                // Cut mid-body and not resumed within the budget (`resume` events say why): the player sees the segment end
                // short.
                writer.abort(502, "hlstui loader: \(error.description)")
                return .answered
            }
            return .failed(cause: error.description, status: status)
        }
    }

    /// One part of an upstream answer, in arrival order.
    enum Arrival: Sendable {
        case head(UpstreamHead)
        case body(ByteBuffer)
        case end(Result<UpstreamResponse, UpstreamError>)
    }

    /// Serves an AES-128 segment clear: fetched while its key arrives, decrypted and sent as it streams in (chunked: the
    /// clear length is known only after the padding), its start checked before the first byte goes out.
    func decrypted(_ res: Resource, key: Key, uri: String, iv: [UInt8], writer: ResponseWriter, t0: Double, retries: Int?) async -> Outcome
    {
        let (arrivals, sink) = AsyncStream.makeStream(of: Arrival.self)
        let budget = resumeBudget(res)
        let broke = NIOLockedValueBox<String?>(nil)
        // The fetch is a child of this answer: cancelled once the answer is done either way, and awaited before it returns.
        return await withDiscardingTaskGroup(returning: Outcome.self) { g in
            g.addTask { [self] in await fetchArrivals(res, retries: retries, budget: budget, broke: broke, into: sink) }
            defer { g.cancelAll() }
            guard let k = await segmentKey(res, key: key, uri: uri, writer: writer) else { return .answered }
            var decryption = StreamingDecryption(key: k, iv: iv, msn: res.msn ?? -1)
            var head: UpstreamHead?
            var probe: [UInt8] = []
            var initSection: [UInt8] = []
            var sent = false
            func report(_ status: Int, _ r: UpstreamResponse?, error: String?) {
                record(
                    res.kind, res.upstream, rung: res.rung, msn: res.msn, since: t0, head: r?.head ?? head, bytes: r?.bytes ?? 0,
                    status: status, outcome: RequestOutcome(failure: error), firstPTS: error == nil ? firstPTS(res, probe) : nil,
                    resumed: broke.withLockedValue { $0 })
            }
            /// Sends clear bytes, starting the answer first; reports the first PTS as soon as the first bytes carry it.
            func send(_ clear: [UInt8]) {
                guard !clear.isEmpty else { return }
                if !sent {
                    sent = true
                    writer.streamHead(200, contentType: head?.header("Content-Type") ?? "application/octet-stream")
                }
                writer.chunk(ByteBuffer(bytes: clear))
                writer.flush()
                if res.kind == .initSection { initSection += clear }
                if probe.count < 8_192 {
                    probe += clear.prefix(65_536 - probe.count)
                    if probe.count >= 8_192, let pts = firstPTS(res, probe), let msn = res.msn {
                        emitStart(res, probe, msn: msn, pts: pts)
                    }
                }
            }
            do throws(DecryptionError) {
                for await part in arrivals {
                    switch part {
                    case .head(let h):
                        head = h
                        guard h.status == (res.byteRange == nil ? 200 : 206) else {
                            writer.text(502, "origin answered HTTP \(h.status)")
                            report(h.status, nil, error: "HTTP \(h.status)")
                            return .answered
                        }
                    case .body(let b):
                        send(try decryption.feed(b.readableBytesView))
                    case .end(.success(let r)) where !(200..<300).contains(r.head.status):
                        // An error answer is not streamed (UpstreamClient): nothing went to the player yet.
                        let cause = "HTTP \(r.head.status)" + (r.head.retries > 0 ? " (after \(r.head.retries) retries)" : "")
                        head = r.head
                        report(r.head.status, r, error: cause)
                        return .failed(
                            cause: "origin answered \(cause) for \(res.kind.rawValue) \(res.msn.map(String.init) ?? "")",
                            status: r.head.status)
                    case .end(.success(let r)):
                        send(try decryption.finish())
                        // The tracks known before the player has the whole init section (see `segment`).
                        if res.kind == .initSection {
                            initTracks.withLockedValue { $0[res.upstream] = FragmentedMP4.tracks(initSection: initSection) }
                        }
                        writer.end()
                        report(200, r, error: nil)
                        return .answered
                    case .end(.failure(let error)):
                        let status = error.cause == .offline ? 504 : 502
                        report(status, nil, error: error.description)
                        if !sent { return .failed(cause: error.description, status: status) }
                        writer.abort(502, "hlstui loader: \(error.description)")
                        emit(.diagnostic(error.description))
                        return .answered
                    }
                }
                return .answered
            } catch {
                // Nothing sent yet: one clean error; else the player sees the segment cut off, as the Loader does.
                writer.abort(502, error.description)
                emit(.diagnostic(error.description))
                report(502, nil, error: error.description)
                return .answered
            }
        }
    }

    /// Fetches an encrypted body for `decrypted`: its head, its bytes and its end into `sink` in arrival order, resumed where
    /// it breaks (`broke` says how).
    func fetchArrivals(
        _ res: Resource, retries: Int?, budget: Double, broke: NIOLockedValueBox<String?>, into sink: AsyncStream<Arrival>.Continuation
    ) async {
        do throws(UpstreamError) {
            let range = res.byteRange.flatMap { SubRange.request($0, player: nil)?.upstream }
            let r = try await client.getResuming(
                res.upstream, range: range, keepBody: 0, retries: retries, cache: .media, budget: budget,
                onBreak: { [self] b in broke.withLockedValue { $0 = emitBreak(b, res) } }, onHead: { sink.yield(.head($0)) },
                onBody: { sink.yield(.body($0)) })
            sink.yield(.end(.success(r)))
        } catch {
            sink.yield(.end(.failure(error)))
        }
        sink.finish()
    }

    /// The key of an encrypted segment (the store's, fetched if it has none); nil when there is none to be had, answered to
    /// the player as 502 with the cause, said as a diagnostic.
    func segmentKey(_ res: Resource, key: Key, uri: String, writer: ResponseWriter) async -> [UInt8]? {
        noteCMCD(Resource(upstream: uri, kind: .key))
        let keyResult = await keys.key(
            uri, method: key.method, keyFormat: key.effectiveKeyFormat, msns: res.msn.map { $0...$0 }, prefetch: false)
        switch keyResult {
        case .success(let k): return k
        case .failure(let e):
            writer.text(502, e.description)
            emit(.diagnostic("segment \(res.msn ?? -1): \(e.description)"))
            return nil
        }
    }

    /// How long a body of `res` that breaks may take to resume: a VOD's as long as a failing VOD segment is held, a live
    /// one's about what a player at the live edge has buffered (`BodyResume.budget`).
    func resumeBudget(_ res: Resource) -> Double {
        let (complete, td) = table.withLockedValue { t in
            (
                res.playlist.map { t.complete.contains($0) } ?? (res.kind != .part),
                res.rung.flatMap { t.rungMedia[$0]?.media.targetDuration }
            )
        }
        return BodyResume.budget(complete: complete, hold: options.vodHold, targetDuration: td)
    }

    /// Tells the session of a break in `res`'s body and how its resumption went; the line for the request's record.
    func emitBreak(_ b: BodyBreak, _ res: Resource) -> String {
        var e: ResumeEvent
        switch b {
        case .broken(let cause, let at):
            e = ResumeEvent(phase: .broken, kind: res.kind, url: res.upstream, rung: res.rung, msn: res.msn, byte: at, cause: cause)
        case .resumed(let cause, let at, let after, let attempts, let from, let failed):
            e = ResumeEvent(
                phase: .resumed, kind: res.kind, url: res.upstream, rung: res.rung, msn: res.msn, byte: at, seconds: after, cause: cause,
                source: from)
            e.attempts = attempts
            e.failed = failed
        case .gaveUp(let cause, let at, let after):
            e = ResumeEvent(
                phase: .gaveUp, kind: res.kind, url: res.upstream, rung: res.rung, msn: res.msn, byte: at, seconds: after, cause: cause)
        }
        emit(.resume(e))
        return e.text
    }

    /// A segment's first timestamp, and the timed metadata its first bytes carry (fMP4 `emsg` boxes come before its
    /// fragment; docs/EVENTS.md).
    func emitStart(_ res: Resource, _ bytes: [UInt8], msn: Int, pts: Double) {
        emit(.firstPTS(rung: res.rung, msn: msn, seconds: pts))
        if res.kind == .segment { emit(mediaStart(res, bytes, msn: msn)) }
        if bytes.first == 0x47 {
            // ID3 in MPEG-TS: a metadata stream's PES packets, each a tag at its PTS.
            for (stamp, tag) in TransportStream.timedID3(bytes) {
                emit(
                    .timedMetadata(
                        TimedMetadataEvent(
                            rung: res.rung, msn: msn, time: stamp.map { Double($0) / 90_000 } ?? pts, duration: nil, scheme: "ID3",
                            value: "", id: 0, frames: (ID3.frames(tag) ?? []).map { TimedMetadataEvent.Frame(id: $0.id, text: $0.text) },
                            bytes: tag.count)))
            }
            return
        }
        for m in EventMessage.all(in: bytes, segmentStart: pts) {
            let frames = m.scheme == EventMessage.id3Scheme ? (ID3.frames(m.data) ?? []) : []
            emit(
                .timedMetadata(
                    TimedMetadataEvent(
                        rung: res.rung, msn: msn, time: m.time, duration: m.duration, scheme: m.scheme, value: m.value, id: m.id,
                        frames: frames.map { TimedMetadataEvent.Frame(id: $0.id, text: $0.text) }, bytes: m.data.count)))
        }
    }

    /// What a segment's first bytes say of its media (`LoaderEvent.mediaStart`): a timestamp or the independence not in
    /// the bytes read so far is nil.
    func mediaStart(_ res: Resource, _ bytes: [UInt8], msn: Int) -> LoaderEvent {
        if bytes.first == 0x47 {
            let info = TransportStream.probe(bytes)
            return .mediaStart(
                rung: res.rung, msn: msn, videoStart: info.firstVideoPTS.map { Double($0) / 90_000 },
                audioStart: info.firstAudioPTS.map { Double($0) / 90_000 }, independent: TransportStream.opensIndependently(bytes))
        }
        let tracks = initTracks.withLockedValue { t in res.initURL.flatMap { t[$0] } ?? t.values.first } ?? []
        let (video, audio) = FragmentedMP4.firstTimes(segment: bytes, tracks: tracks)
        return .mediaStart(
            rung: res.rung, msn: msn, videoStart: video, audioStart: audio,
            independent: FragmentSplit.opensWithSync(segment: bytes, tracks: tracks))
    }

    /// The first media timestamp in a segment's bytes, seconds.
    func firstPTS(_ res: Resource, _ bytes: [UInt8]) -> Double? {
        guard res.kind == .segment else { return nil }
        if bytes.first == 0x47 {
            return TransportStream.probe(bytes).firstPTS.map { Double($0) / 90_000 }
        }
        let tracks = initTracks.withLockedValue { t in res.initURL.flatMap { t[$0] } ?? t.values.first } ?? []
        return FragmentedMP4.firstTime(segment: bytes, tracks: tracks)
    }
}
