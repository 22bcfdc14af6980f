@_exported import LoaderCore
import Foundation
import HLS
import MediaFormats
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// What the Loader does besides proxying.
public struct LoaderOptions: Sendable {
    public var upstream = UpstreamOptions()
    /// Decrypt AES-128 segments in the Loader and serve them clear (checked), instead of handing FFmpeg the key.
    public var decryptAES = true
    /// `--key URI=HEX`: keys that replace what the origin serves.
    public var keyOverrides: [String: [UInt8]] = [:]
    /// `--key-command CMD`: run with the key URI, prints the key.
    public var keyCommand: String?
    /// `--key-spread S`: a key first seen in a live refresh is fetched at a random moment within this many seconds, before it is due (0: at once).
    public var keySpread: Double = 4
    /// Fetch keys as soon as a playlist names them (false: only when a segment needs one — the baseline prefetch is measured against).
    public var prefetchKeys = true
    /// A VOD's rotated keys whose first segment lies more than this many seconds of media past the player's newest request wait,
    /// and are fetched (spread) as the player gets near, instead of every key of a long VOD at once.
    public var keyHorizon: Double = 30
    /// How long a VOD segment that every source fails with a passing error (5xx, 408, 429, a transport failure) is held and
    /// retried before the failure reaches the player: FFmpeg skips a segment it cannot open, losing its media for good.
    public var vodHold: Double = 30
    public init() {}
}

/// A resource the player may ask for, by its Loader id.
struct Resource: Sendable {
    var upstream: String
    var kind: ResourceKind
    var rung: Int?
    var msn: Int?
    var gap = false
    var key: Key?
    var iv: [UInt8]?
    var keyMSNs: ClosedRange<Int>?
    /// For media playlists: serve only segments from this media sequence number on.
    var startMSN: Int?
    /// For alternate renditions: "TYPE group/name".
    var rendition: String?
    /// For fMP4 segments: the init section that describes their tracks.
    var initURL: String?
    /// For segments: the media playlist that lists them.
    var playlist: String?
    /// For segments and init sections: the sub-range of the upstream resource (EXT-X-BYTERANGE), which the Loader serves whole.
    var byteRange: ByteRange?
    /// Served through the splice route: a media playlist of whichever rung the route names, or a segment resolved by MSN when asked for.
    var slot = false
}

/// A VOD playlist's keys that wait until the player gets near their segments.
struct PendingKeys: Sendable {
    struct Entry: Sendable {
        var uri: String
        var key: Key
        var msns: ClosedRange<Int>
    }
    var media: MediaPlaylist
    var entries: [Entry]
}

/// What `open` found: the URL to give the player and the playlist as the origin served it.
public struct OpenedStream: Sendable {
    public var playerURL: String
    public var url: String
    public var playlist: Playlist
    public var diagnostics: [Diagnostic]
}

/// The player's only network (docs/ARCHITECTURE.md): a loopback HTTP server that fetches, times, rewrites, decrypts and serves.
public final class LoaderServer: Sendable {
    public let token: String
    public let port: Int
    public let options: LoaderOptions
    public let events: AsyncStream<LoaderEvent>
    let continuation: AsyncStream<LoaderEvent>.Continuation
    let client: UpstreamClient
    let keys: KeyStore
    let group: EventLoopGroup
    let channel: Channel
    public let started: Date
    let table = NIOLockedValueBox(Table())
    let initTracks = NIOLockedValueBox([String: [MP4Track]]())

    struct Table {
        var byID: [Int: Resource] = [:]
        var ids: [String: Int] = [:]
        var multivariantText: [Int: String] = [:]
        var variables: [String: String] = [:]
        /// The newest segment the player asked for, per media playlist.
        var lastRequested: [String: Int] = [:]
        /// Keys whose spread fetch is scheduled.
        var spreading: Set<String> = []
        /// A VOD playlist's keys beyond the horizon, by playlist, waiting for the player to get near.
        var pendingKeys: [String: PendingKeys] = [:]
        /// The splice route, when the player was given a spliced playlist.
        var route: SpliceRoute?
        /// Each rung's media playlist URL (for the splice).
        var rungURLs: [Int: String] = [:]
        /// Each rung's media playlist as last read.
        var rungMedia: [Int: RungMedia] = [:]
        /// Rungs that failed and when each may be tried again.
        var health = SourceHealth()
        /// Rungs whose media playlist another rung's stands in for (said once per outage).
        var substituted: Set<Int> = []
        /// Each rung's BANDWIDTH, to fail over to the nearest rung.
        var rungBandwidth: [Int: Int] = [:]
        /// Media playlists served to the player that are complete (EXT-X-ENDLIST): their segments never leave the window.
        var complete: Set<String> = []
        /// Segments each live media playlist (by URL) listed, while the server must still keep them.
        var recent: [String: RecentSegments] = [:]
    }

    /// The base every player URL starts with, token included.
    public var base: String { "http://127.0.0.1:\(port)/\(token)" }

    /// Starts on 127.0.0.1 with a random port and a fresh secret token.
    public static func start(options: LoaderOptions = LoaderOptions()) throws -> LoaderServer {
        // One thread per Loader; it is not shut down on stop, so work still in flight (a connect, a key fetch) cannot trap NIO.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var bytes = [UInt8](repeating: 0, count: 16)
        var rng = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = rng.next() }
        let token = bytes.map { String(format: "%02x", $0) }.joined()
        let box = NIOLockedValueBox<LoaderServer?>(nil)
        let bound = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try ch.pipeline.syncOperations.addHandler(LoaderHTTPHandler(loader: { box.withLockedValue { $0 } }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        let server = try LoaderServer(token: token, channel: bound, group: group, options: options)
        box.withLockedValue { $0 = server }
        return server
    }

    init(token: String, channel: Channel, group: EventLoopGroup, options: LoaderOptions) throws {
        self.token = token
        self.channel = channel
        self.group = group
        self.options = options
        port = channel.localAddress?.port ?? 0
        let (stream, cont) = AsyncStream<LoaderEvent>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        events = stream
        continuation = cont
        let started = Date()
        self.started = started
        client = try UpstreamClient(group: group, options: options.upstream)
        keys = KeyStore(
            client: client, overrides: options.keyOverrides, command: options.keyCommand, emit: { cont.yield($0) },
            clock: { Date().timeIntervalSince(started) })
    }

    let stopped = NIOLockedValueBox(false)

    /// Stops serving and closes upstream connections; safe to call more than once.
    public func stop() {
        guard
            !stopped.withLockedValue({
                let was = $0; $0 = true; return was
            })
        else { return }
        continuation.finish()
        client.shutdown()
        channel.close(promise: nil)
    }

    var now: Double { Date().timeIntervalSince(started) }

    func emit(_ e: LoaderEvent) { continuation.yield(e) }

    /// The Loader id for an upstream resource, the same every time it is named.
    func register(_ r: Resource) -> Int {
        table.withLockedValue { t in
            let k =
                "\(r.kind.rawValue) \(r.upstream) \(r.msn ?? -1) \(r.startMSN ?? -1) \(r.slot) \(r.byteRange.map { "\($0.offset)+\($0.length)" } ?? "")"
            if let id = t.ids[k] { t.byID[id] = r; return id }
            let id = t.byID.count + 1
            t.ids[k] = id
            t.byID[id] = r
            return id
        }
    }

    func path(_ id: Int, _ r: Resource) -> String {
        let ext: String
        switch r.kind {
        case .multivariant, .media: ext = "m3u8"
        case .key: ext = "key"
        case .initSection: ext = "mp4"
        case .segment, .part:
            let last = URL(string: r.upstream)?.pathExtension.lowercased() ?? ""
            ext = ["ts", "m4s", "mp4", "aac", "vtt", "webvtt", "mp3", "ac3", "ec3", "m4a", "cmfv", "cmfa"].contains(last) ? last : "ts"
        }
        return "\(base)/\(r.kind.rawValue)/\(id).\(ext)"
    }

    /// Opens an upstream playlist for the player and returns the URL to give it; `variants` picks rungs of a multivariant playlist.
    public func open(_ url: String, variants: [Int]? = nil) async throws(UpstreamError) -> String {
        try await openStream(url, variants: variants).playerURL
    }

    /// Opens an upstream playlist; `variants` picks rungs of a multivariant playlist, `startMSN` makes their media playlists start at that segment.
    public func openStream(_ url: String, variants: [Int]? = nil, startMSN: Int? = nil) async throws(UpstreamError) -> OpenedStream {
        let fetched = try await fetchTop(url)
        return present(fetched, variants: variants, startMSN: startMSN)
    }

    /// Reads the playlist a session starts from (multivariant or media), without giving the player anything yet.
    public func fetchTop(_ url: String) async throws(UpstreamError) -> OpenedStream {
        let r = try await read(url, kind: .multivariant, rung: nil)
        guard r.head.status == 200 else { throw UpstreamError(cause: .protocolError, detail: "\(url): HTTP \(r.head.status)") }
        let parsed = PlaylistParser.parseLenient(String(decoding: r.body, as: UTF8.self), options: ParseOptions(url: r.head.url))
        if parsed.playlist.multivariant != nil { table.withLockedValue { $0.variables = parsed.variables } }
        return OpenedStream(playerURL: "", url: r.head.url, playlist: parsed.playlist, diagnostics: parsed.diagnostics)
    }

    /// Gives the player a fetched stream: a virtual multivariant playlist with only `variants` (or the media playlist itself),
    /// media playlists starting at `startMSN` when given; keys of the chosen rungs are prefetched now.
    /// With `splice`, the one variant the player sees is served through the route, so `route(_:)` changes its rung segment by segment.
    public func present(
        _ fetched: OpenedStream, variants: [Int]? = nil, startMSN: Int? = nil, prewarmVariants: Bool = true,
        splice: SpliceRoute? = nil
    ) -> OpenedStream {
        var out = fetched
        let base = fetched.url
        guard case .multivariant(let m) = fetched.playlist.body else {
            let res = Resource(upstream: base, kind: .media, rung: 0, startMSN: startMSN)
            if let media = fetched.playlist.media {
                emit(.playlist(PlaylistEvent(url: base, rung: 0, rendition: nil, playlist: media, received: now)))
                prefetchKeys(media, base: base)
            }
            out.playerURL = path(register(res), res)
            return out
        }
        let variables = table.withLockedValue { $0.variables }
        let keep = splice.map { [$0.rung] } ?? variants ?? Array(m.variants.indices)
        table.withLockedValue { t in
            t.route = splice
            for (i, v) in m.variants.enumerated() {
                t.rungURLs[i] = VirtualPlaylists.resolve(v.uri, against: base)
                t.rungBandwidth[i] = v.bandwidth
            }
        }
        let virtual = VirtualPlaylists { [self] upstream, kind in
            let rung = m.variants.firstIndex { VirtualPlaylists.resolve($0.uri, against: base) == upstream }
            let rendition = m.renditions.first { $0.uri.map { VirtualPlaylists.resolve($0, against: base) } == upstream }
            var res = Resource(upstream: upstream, kind: kind, rung: rung, startMSN: kind == .media ? startMSN : nil)
            res.slot = splice != nil && kind == .media && rung != nil
            res.rendition = rendition.map { "\($0.type) \($0.groupID)/\($0.name)" }
            return path(register(res), res)
        }.multivariant(fetched.playlist, base: base, variants: keep)
        let res = Resource(upstream: base, kind: .multivariant, msn: keep.first, startMSN: startMSN)
        let id = register(res)
        table.withLockedValue { $0.multivariantText[id] = PlaylistWriter.write(virtual, resolveVariables: true) }
        // Prewarm: read the chosen media playlists now and fetch their keys before the player asks (DECISIONS.md, keys are prefetched).
        if let vm = virtual.multivariant {
            let chosen = keep.filter { m.variants.indices.contains($0) }
            let renditions = m.renditions.filter { r in vm.renditions.contains { $0.groupID == r.groupID && $0.name == r.name } }
                .compactMap { $0.uri.map { VirtualPlaylists.resolve($0, against: base) } }
            for i in chosen where prewarmVariants {
                let u = VirtualPlaylists.resolve(m.variants[i].uri, against: base)
                Task { await prewarm(u, rung: i, variables: variables) }
            }
            for u in renditions { Task { await prewarm(u, rung: nil, variables: variables) } }
        }
        out.playerURL = path(id, res)
        return out
    }

    /// Reads rung `rung`'s media playlist again for hlstui alone (live: where the edge is while the player does not reload — a full
    /// cache, or a playlist the Loader ended before a break); not reported as the player's playlist; new keys are spread as usual.
    public func refresh(_ fetched: OpenedStream, rung: Int) async -> MediaPlaylist? {
        let (variables, spliced) = table.withLockedValue { ($0.variables, $0.route != nil) }
        guard let m = fetched.playlist.multivariant else {
            return await prewarm(fetched.url, rung: 0, variables: variables, playlist: fetched.url, report: false)
        }
        guard m.variants.indices.contains(rung) else { return nil }
        let url = VirtualPlaylists.resolve(m.variants[rung].uri, against: fetched.url)
        return await prewarm(url, rung: rung, variables: variables, playlist: spliced ? "slot" : url, report: false)
    }

    /// Reads rung `rung`'s media playlist now (and prefetches its keys), before the player is given anything.
    public func prewarmVariant(_ fetched: OpenedStream, rung: Int) async -> MediaPlaylist? {
        guard let m = fetched.playlist.multivariant, m.variants.indices.contains(rung) else { return fetched.playlist.media }
        let variables = table.withLockedValue { $0.variables }
        return await prewarm(VirtualPlaylists.resolve(m.variants[rung].uri, against: fetched.url), rung: rung, variables: variables)
    }

    /// Answers one player request.
    func handle(_ target: String, range: String?, writer: ResponseWriter) async {
        let parts = target.split(separator: "?")[0].split(separator: "/").map(String.init)
        guard parts.count == 3, parts[0] == token else {
            writer.text(403, "hlstui loader: unknown session (the URL must carry this session's token)")
            emit(.diagnostic("refused a request without this session's token: \(target.prefix(80))"))
            return
        }
        guard let id = Int(parts[2].split(separator: ".")[0]), let res = table.withLockedValue({ $0.byID[id] }) else {
            writer.text(404, "hlstui loader: no such resource")
            return
        }
        switch res.kind {
        case .multivariant:
            writer.playlist(table.withLockedValue { $0.multivariantText[id] } ?? "")
        case .media: await media(res, writer: writer)
        case .segment, .part, .initSection: await segment(res, range: range, writer: writer)
        case .key: await keyResource(res, writer: writer)
        }
    }

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
        }
        var picked = resolved
        do {
            let r = try await slotPlaylist(&picked, t0: t0)
            let res = picked
            guard r.head.status == 200 else {
                writer.text(502, "origin answered HTTP \(r.head.status) for \(res.upstream)")
                emit(
                    .request(
                        RequestEvent(
                            kind: .media, url: res.upstream, rung: res.rung, msn: nil, start: t0, ttfbMs: r.head.ttfb * 1000,
                            durationMs: (now - t0) * 1000, bytes: r.body.count, status: r.head.status, local: false, prefetch: false,
                            retries: r.head.retries, outcome: .failed("HTTP \(r.head.status)"), firstPTS: nil)))
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
            if m.endList { table.withLockedValue { _ = $0.complete.insert(res.slot ? "slot" : res.upstream) } }
            var served = parsed.playlist
            let earlier = table.withLockedValue { t -> [Segment] in
                t.recent[r.head.url, default: RecentSegments()].note(m, at: now)
                return res.startMSN.map { t.recent[r.head.url]?.before(m, from: $0, at: now) ?? [] } ?? []
            }
            if let start = res.startMSN { served.body = .media(VirtualPlaylists.starting(at: start, m, earlier: earlier)) }
            if res.slot, let rung = res.rung {
                table.withLockedValue { $0.rungMedia[rung] = RungMedia(url: r.head.url, media: m, read: now) }
                // The other rungs' playlists are read (and reported) first, so the session knows which GAPs are filled.
                if case .media(let sm) = served.body { served.body = .media(await unmarkFillableGaps(sm)) }
            }
            emit(.playlist(PlaylistEvent(url: r.head.url, rung: res.rung, rendition: res.rendition, playlist: m, received: now)))
            // Every segment gets an id carrying what serving it needs: MSN, GAP, key, IV, byte range (spliced: only the MSN; the rest when asked for).
            let decrypt = options.decryptAES
            // A GAP that no rung fills (or an fMP4 discontinuity) ends the player's playlist; the session reloads after it.
            if case .media(let sm) = served.body {
                let last = table.withLockedValue { $0.lastRequested[res.slot ? "slot" : res.upstream] }
                let after = [last, res.startMSN].compactMap { $0 }.max()
                served.body = .media(VirtualPlaylists.endingBeforeBreak(sm, after: after))
            }
            let slot = res.slot
            let virtual = VirtualPlaylists(reference: { [self] ref in
                guard ref.kind == .segment, let s = ref.segment else {
                    var rr = Resource(upstream: ref.upstream, kind: ref.kind, rung: res.rung)
                    rr.byteRange = ref.byteRange
                    // An init section under an AES-128 key is encrypted too (§4.4.4.4): the Loader decrypts it like a segment.
                    if ref.kind == .initSection, decrypt,
                        let (key, iv) = KeyMaterial.aes128(
                            in: ref.map?.keys ?? [], base: r.head.url, mediaSequence: ref.segment?.mediaSequence ?? m.mediaSequence)
                    {
                        rr.key = key
                        rr.iv = iv
                    }
                    return path(register(rr), rr)
                }
                var rr =
                    slot
                    ? Resource(upstream: "slot", kind: .segment, rung: nil, msn: s.mediaSequence, playlist: "slot")
                    : segmentResource(s, base: r.head.url, rung: res.rung, playlist: res.upstream)
                rr.slot = slot
                return path(register(rr), rr)
            }).media(served, base: r.head.url, decryptAES: decrypt)
            writer.playlist(PlaylistWriter.write(virtual, resolveVariables: true))
            emit(
                .request(
                    RequestEvent(
                        kind: .media, url: res.upstream, rung: res.rung, msn: m.mediaSequence, start: t0, ttfbMs: r.head.ttfb * 1000,
                        durationMs: (now - t0) * 1000, bytes: r.body.count, status: 200, local: false, prefetch: false,
                        retries: r.head.retries, outcome: .ok, firstPTS: nil)))
            prefetchKeys(m, base: r.head.url, playlist: res.slot ? "slot" : res.upstream, startMSN: res.startMSN)
        } catch {
            writer.text(502, "hlstui loader: \(error.description)")
            emit(
                .request(
                    RequestEvent(
                        kind: .media, url: picked.upstream, rung: picked.rung, msn: nil, start: t0, ttfbMs: nil,
                        durationMs: (now - t0) * 1000,
                        bytes: 0, status: 502, local: false, prefetch: false, retries: 0, outcome: .failed(error.description), firstPTS: nil
                    )))
        }
    }

    /// Reads a media playlist ahead of the player and prefetches its keys.
    @discardableResult
    func prewarm(_ url: String, rung: Int?, variables: [String: String], playlist: String? = nil, report: Bool = true) async
        -> MediaPlaylist?
    {
        guard let r = try? await read(url, kind: .media, rung: rung), r.head.status == 200 else { return nil }
        let parsed = PlaylistParser.parseLenient(
            String(decoding: r.body, as: UTF8.self), options: ParseOptions(importedVariables: variables, url: r.head.url))
        if let m = parsed.playlist.media {
            table.withLockedValue { $0.recent[r.head.url, default: RecentSegments()].note(m, at: now) }
            if report { emit(.playlist(PlaylistEvent(url: r.head.url, rung: rung, rendition: nil, playlist: m, received: now))) }
            prefetchKeys(m, base: r.head.url, playlist: playlist)
        }
        return parsed.playlist.media
    }

    /// Fetches the identity keys the playlist names before the player needs them (key prewarming, DECISIONS.md):
    /// at once before the player's first segment, spread in a window when a live refresh names a new one, and for a VOD only those
    /// within the horizon — the rest when the player gets near (`releaseKeys`).
    func prefetchKeys(_ m: MediaPlaylist, base: String, playlist: String? = nil, startMSN: Int? = nil) {
        guard options.prefetchKeys else { return }
        var ranges: [String: (Key, ClosedRange<Int>)] = [:]
        var order: [String] = []
        for s in m.segments {
            for k in s.keys + (s.map?.keys ?? []) where k.system == .identity && k.method != .none {
                guard let u = k.uri else { continue }
                let uri = VirtualPlaylists.resolve(u, against: base)
                if let (key, r) = ranges[uri] {
                    ranges[uri] = (key, r.lowerBound...s.mediaSequence)
                } else {
                    ranges[uri] = (k, s.mediaSequence...s.mediaSequence)
                    order.append(uri)
                }
            }
        }
        let last = playlist.flatMap { p in table.withLockedValue { $0.lastRequested[p] } }
        let window = m.isLive ? options.keySpread : 0
        var later: [PendingKeys.Entry] = []
        for uri in order {
            guard let (k, r) = ranges[uri] else { continue }
            if !m.isLive, let ahead = KeySpread.lead(to: r.lowerBound, lastRequested: last ?? ((startMSN ?? m.mediaSequence) - 1), in: m),
                ahead > options.keyHorizon
            {
                later.append(PendingKeys.Entry(uri: uri, key: k, msns: r))
                continue
            }
            let delay = KeySpread.delay(
                lead: KeySpread.lead(to: r.lowerBound, lastRequested: last, in: m), window: window, random: Double.random(in: 0..<1))
            fetchKeyAhead(uri, k, r, delay: delay)
        }
        if let playlist { table.withLockedValue { $0.pendingKeys[playlist] = later.isEmpty ? nil : PendingKeys(media: m, entries: later) } }
        let blocked = DRMExplainer.explain(rungs: [("this rendition", m)])
        for line in blocked { emit(.diagnostic(line)) }
    }

    /// Fetches a key now, or after `delay` seconds unless something fetched it meanwhile (spreading).
    func fetchKeyAhead(_ uri: String, _ k: Key, _ r: ClosedRange<Int>, delay: Double) {
        if delay > 0 {
            guard table.withLockedValue({ $0.spreading.insert(uri).inserted }) else { return }
            Task {
                guard await !keys.has(uri) else { return }
                try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
                _ = await keys.key(uri, method: k.method, keyFormat: k.effectiveKeyFormat, msns: r, prefetch: true, spreadMs: delay * 1000)
            }
        } else {
            Task { _ = await keys.key(uri, method: k.method, keyFormat: k.effectiveKeyFormat, msns: r, prefetch: true) }
        }
    }

    /// Schedules the waiting keys of `playlist` that the player's newest request brought within the horizon, each at a random
    /// moment in the spread window before its first segment is due (DECISIONS.md, keys are prefetched).
    func releaseKeys(near playlist: String) {
        let horizon = options.keyHorizon
        let due: [(PendingKeys.Entry, Double)] = table.withLockedValue { t in
            guard var pending = t.pendingKeys[playlist], let last = t.lastRequested[playlist] else { return [] }
            var out: [(PendingKeys.Entry, Double)] = []
            pending.entries.removeAll { e in
                guard let lead = KeySpread.lead(to: e.msns.lowerBound, lastRequested: last, in: pending.media), lead <= horizon else {
                    return false
                }
                out.append((e, lead))
                return true
            }
            t.pendingKeys[playlist] = pending.entries.isEmpty ? nil : pending
            return out
        }
        for (e, lead) in due {
            fetchKeyAhead(
                e.uri, e.key, e.msns, delay: KeySpread.delay(lead: lead, window: options.keySpread, random: Double.random(in: 0..<1)))
        }
    }

    func keyResource(_ res: Resource, writer: ResponseWriter) async {
        let t0 = now
        switch await keys.key(res.upstream, method: .sampleAES, keyFormat: "identity", msns: nil, prefetch: false) {
        case .success(let k):
            writer.bytes(200, contentType: "application/octet-stream", k)
            emit(
                .request(
                    RequestEvent(
                        kind: .key, url: res.upstream, rung: res.rung, msn: nil, start: t0, ttfbMs: nil, durationMs: (now - t0) * 1000,
                        bytes: 16, status: 200, local: true, prefetch: false, retries: 0, outcome: .ok, firstPTS: nil)))
        case .failure(let e):
            writer.text(502, e.description)
            emit(.diagnostic(e.description))
        }
    }

    /// A GET the Loader makes on its own account (the playlist a session opens, a playlist read ahead of the player or to follow
    /// the live edge), in the request log like every request the player makes: every request the origin sees is there.
    func read(_ url: String, kind: ResourceKind, rung: Int?, retries: Int? = nil) async throws(UpstreamError) -> UpstreamResponse {
        let t0 = now
        do throws(UpstreamError) {
            let r = try await client.get(url, retries: retries)
            report(r, kind: kind, url: url, rung: rung, t0: t0)
            return r
        } catch {
            emit(
                .request(
                    RequestEvent(
                        kind: kind, url: url, rung: rung, msn: nil, start: t0, ttfbMs: nil, durationMs: (now - t0) * 1000, bytes: 0,
                        status: 502, local: false, prefetch: true, retries: 0, outcome: .failed(error.description), firstPTS: nil)))
            throw error
        }
    }

    /// Reports an answer the Loader read whole for itself.
    func report(_ r: UpstreamResponse, kind: ResourceKind, url: String, rung: Int?, t0: Double) {
        emit(
            .request(
                RequestEvent(
                    kind: kind, url: url, rung: rung, msn: nil, start: t0, ttfbMs: r.head.ttfb * 1000, durationMs: (now - t0) * 1000,
                    bytes: r.body.count, status: r.head.status, local: false, prefetch: true, retries: r.head.retries,
                    outcome: (200..<300).contains(r.head.status) ? .ok : .failed("HTTP \(r.head.status)"), firstPTS: nil)))
    }

    /// Reads the media playlist for `res`; for the spliced playlist, when the routed rung's playlist fails (its host is down),
    /// another allowed rung's is read instead — the splice lines rungs up by MSN, and each segment is still asked of the
    /// routed rung first. `res` names the rung actually read.
    func slotPlaylist(_ res: inout Resource, t0: Double) async throws(UpstreamError) -> UpstreamResponse {
        guard res.slot, let first = res.rung else { return try await client.get(res.upstream) }
        let urls = table.withLockedValue { $0.rungURLs }
        let candidates = [first] + failoverOrder(from: first)
        let order = table.withLockedValue { t in t.health.order(candidates, at: now) }
        var last: Result<UpstreamResponse, UpstreamError>?
        for (i, rung) in order.enumerated() {
            guard let url = urls[rung] else { continue }
            let more = i + 1 < order.count
            let t1 = now
            do throws(UpstreamError) {
                let r = try await client.get(url, retries: more ? 0 : nil)
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
                    emit(
                        .request(
                            RequestEvent(
                                kind: .media, url: url, rung: rung, msn: nil, start: t1, ttfbMs: nil, durationMs: (now - t1) * 1000,
                                bytes: 0,
                                status: 502, local: false, prefetch: false, retries: 0, outcome: .failed(error.description), firstPTS: nil))
                    )
                }
            }
            if let l = last { table.withLockedValue { t in _ = t.health.failed(rung, cause: Self.cause(l), at: now) } }
        }
        switch last {
        case .success(let r)?: return r
        case .failure(let e)?: throw e
        case nil: return try await client.get(res.upstream)
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

    func segment(_ requested: Resource, range: String?, writer: ResponseWriter) async {
        let t0 = now
        var resolved = requested
        if requested.slot, let msn = requested.msn { resolved = await resolveSlot(msn) }
        let res = resolved
        if let p = res.playlist, let msn = res.msn {
            table.withLockedValue { $0.lastRequested[p] = max($0.lastRequested[p] ?? msn, msn) }
            releaseKeys(near: p)
        }
        if res.gap {
            // GAP segments are never requested from the origin (RFC 8216bis §4.4.4.7).
            writer.text(404, "segment \(res.msn ?? -1) is an EXT-X-GAP: hlstui does not request it")
            emit(
                .request(
                    RequestEvent(
                        kind: res.kind, url: res.upstream, rung: res.rung, msn: res.msn, start: t0, ttfbMs: nil, durationMs: 0, bytes: 0,
                        status: 404, local: true, prefetch: false, retries: 0, outcome: .gap, firstPTS: nil)))
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
                if next == nil, SegmentHold.passing(status), let p = src.playlist, table.withLockedValue({ $0.complete.contains(p) }),
                    writer.channel.isActive
                {
                    // Every source failed a VOD segment for now: held and retried, so the player waits (a stall with this
                    // cause) instead of skipping the segment's media.
                    var h = held ?? SegmentHold(since: t0, budget: options.vodHold)
                    if let wait = h.next(at: now) {
                        if held == nil {
                            emit(
                                .diagnostic(
                                    "\(cause); held and retried for up to \(Int(h.budget)) s (a VOD segment is never skipped while its origin may answer)"
                                ))
                        }
                        held = h
                        try? await Task.sleep(for: .seconds(wait))
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

    /// The allowed rungs other than `rung` in the order a failure of `rung` tries them: the same bandwidth first (a redundant
    /// copy on another host), then the nearest below, then the nearest above.
    func failoverOrder(from rung: Int?) -> [Int] {
        let (route, bw) = table.withLockedValue { ($0.route, $0.rungBandwidth) }
        guard let route else { return [] }
        let others = ([route.rung] + fillRungs).filter { $0 != rung }
        guard let rung, let mine = bw[rung] else { return others }
        return others.sorted { a, b in
            let (x, y) = (bw[a] ?? 0, bw[b] ?? 0)
            let (kx, ky) = (x == mine ? 0 : x < mine ? 1 : 2, y == mine ? 0 : y < mine ? 1 : 2)
            if kx != ky { return kx < ky }
            return kx == 2 ? x < y : x > y
        }
    }

    /// The other allowed rungs that have media (no GAP) at spliced segment `msn`, in failover order.
    func slotAlternates(_ msn: Int, besides rung: Int?) async -> [Resource] {
        var out: [Resource] = []
        for r in failoverOrder(from: rung) {
            guard let rm = await rungMedia(r, containing: msn), let s = rm.segment(msn), !s.gap else { continue }
            out.append(segmentResource(s, base: rm.url, rung: r, playlist: "slot"))
        }
        return out
    }

    /// Fetches one source of a segment and streams it to the player; a failure before the first byte is returned, not answered.
    func fetchSegment(_ res: Resource, range: String?, writer: ResponseWriter, t0: Double, retries: Int?) async -> Outcome {
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
        let subrange = res.byteRange.map { br in (length: br.length, relative: relative) }
        func report(_ status: Int, _ r: UpstreamResponse?, error: String?, first: Double? = nil) {
            emit(
                .request(
                    RequestEvent(
                        kind: res.kind, url: res.upstream, rung: res.rung, msn: res.msn, start: t0, ttfbMs: r.map { $0.head.ttfb * 1000 },
                        durationMs: (now - t0) * 1000, bytes: r?.bytes ?? 0, status: status, local: false, prefetch: false,
                        retries: r?.head.retries ?? 0, outcome: RequestOutcome(failure: error), firstPTS: first)))
        }
        // Clear media streams through as it arrives.
        do {
            // Keep only what the first-PTS probe and init-section parsing need.
            let keep = res.kind == .initSection ? Int.max : 65_536
            // The first PTS is reported as soon as the first bytes carry it: the player may show the frame before the transfer ends.
            let early = NIOLockedValueBox<(bytes: [UInt8], done: Bool)>(([], res.kind != .segment || res.msn == nil))
            // An origin that answers a sub-range request with the whole resource is named, not passed on as the segment.
            let ignoredRange = NIOLockedValueBox(false)
            let r = try await client.get(
                res.upstream, range: upstreamRange, keepBody: keep, retries: retries,
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
                        emit(.firstPTS(rung: res.rung, msn: msn, seconds: pts))
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
            writer.end()
            if res.kind == .initSection { initTracks.withLockedValue { $0[res.upstream] = FragmentedMP4.tracks(initSection: r.body) } }
            report(r.head.status, r, error: nil, first: firstPTS(res, r.body))
            return .answered
        } catch {
            report(502, nil, error: error.description)
            if writer.started.withLockedValue({ $0 }) {
                // Cut mid-body: the player sees the segment truncated, as the origin sent it.
                writer.abort(502, "hlstui loader: \(error.description)")
                return .answered
            }
            return .failed(cause: error.description, status: 502)
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
        let fetch = Task { [client] in
            do throws(UpstreamError) {
                let range = res.byteRange.flatMap { SubRange.request($0, player: nil)?.upstream }
                let r = try await client.get(
                    res.upstream, range: range, keepBody: 0, retries: retries, onHead: { sink.yield(.head($0)) },
                    onBody: { sink.yield(.body($0)) })
                sink.yield(.end(.success(r)))
            } catch {
                sink.yield(.end(.failure(error)))
            }
            sink.finish()
        }
        defer { fetch.cancel() }
        let keyResult = await keys.key(
            uri, method: key.method, keyFormat: key.effectiveKeyFormat, msns: res.msn.map { $0...$0 }, prefetch: false)
        guard case .success(let k) = keyResult else {
            if case .failure(let e) = keyResult {
                writer.text(502, e.description); emit(.diagnostic("segment \(res.msn ?? -1): \(e.description)"))
            }
            return .answered
        }
        var decryption = StreamingDecryption(key: k, iv: iv, msn: res.msn ?? -1)
        var head: UpstreamHead?
        var probe: [UInt8] = []
        var initSection: [UInt8] = []
        var sent = false
        func report(_ status: Int, _ r: UpstreamResponse?, error: String?) {
            emit(
                .request(
                    RequestEvent(
                        kind: res.kind, url: res.upstream, rung: res.rung, msn: res.msn, start: t0,
                        ttfbMs: (r?.head ?? head).map { $0.ttfb * 1000 },
                        durationMs: (now - t0) * 1000, bytes: r?.bytes ?? 0, status: status, local: false, prefetch: false,
                        retries: (r?.head ?? head)?.retries ?? 0, outcome: RequestOutcome(failure: error),
                        firstPTS: error == nil ? firstPTS(res, probe) : nil)))
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
                    emit(.firstPTS(rung: res.rung, msn: msn, seconds: pts))
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
                        cause: "origin answered \(cause) for \(res.kind.rawValue) \(res.msn.map(String.init) ?? "")", status: r.head.status)
                case .end(.success(let r)):
                    send(try decryption.finish())
                    writer.end()
                    if res.kind == .initSection {
                        initTracks.withLockedValue { $0[res.upstream] = FragmentedMP4.tracks(initSection: initSection) }
                    }
                    report(200, r, error: nil)
                    return .answered
                case .end(.failure(let error)):
                    report(502, nil, error: error.description)
                    if !sent { return .failed(cause: error.description, status: 502) }
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

    /// The first media timestamp in a segment's bytes, seconds.
    func firstPTS(_ res: Resource, _ bytes: [UInt8]) -> Double? {
        guard res.kind == .segment else { return nil }
        if bytes.first == 0x47 {
            return TransportStream.probe(bytes).firstPTS.map { Double($0) / 90_000 }
        }
        let tracks = initTracks.withLockedValue { t in res.initURL.flatMap { t[$0] } ?? t.values.first } ?? []
        return FragmentedMP4.firstTime(segment: bytes, tracks: tracks)
    }

    /// How many times the Loader fetched each key (for tests: once per URI).
    public func keyFetchCounts() async -> [String: Int] { await keys.fetchCount }
}

/// Writes one response to the player's connection from any thread (Channel writes are thread-safe).
final class ResponseWriter: Sendable {
    let channel: Channel
    let keepAlive: Bool
    let version: HTTPVersion
    let headOnly: Bool
    let started = NIOLockedValueBox(false)

    init(channel: Channel, keepAlive: Bool, version: HTTPVersion, headOnly: Bool) {
        self.channel = channel
        self.keepAlive = keepAlive
        self.version = version
        self.headOnly = headOnly
    }

    func send(_ status: Int, _ headers: [(String, String)], _ body: [UInt8]) {
        var h = HTTPHeaders(headers)
        h.replaceOrAdd(name: "Content-Length", value: String(body.count))
        h.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        channel.write(
            HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: .init(statusCode: status), headers: h)), promise: nil)
        if !headOnly && !body.isEmpty { channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        finish()
    }

    func finish() {
        let done = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        if !keepAlive { let c = channel; done.whenComplete { _ in c.close(promise: nil) } }
    }

    func text(_ status: Int, _ s: String) { send(status, [("Content-Type", "text/plain; charset=utf-8")], Array((s + "\n").utf8)) }
    func playlist(_ s: String) { send(200, [("Content-Type", "application/vnd.apple.mpegurl")], Array(s.utf8)) }
    func bytes(_ status: Int, contentType: String, _ b: [UInt8]) { send(status, [("Content-Type", contentType)], b) }

    /// Starts a streamed answer with the origin's status and length; a sub-range the origin sent (206) is presented as a whole
    /// resource of `length` bytes (200), or as the player's own range of it (206).
    func head(_ status: Int, _ upstream: UpstreamHead, subrange: (length: Int, relative: ClosedRange<Int>?)? = nil) {
        started.withLockedValue { $0 = true }
        var h = HTTPHeaders()
        for name in ["Content-Type", "Content-Length", "Content-Range", "Accept-Ranges"] {
            if let v = upstream.header(name) { h.add(name: name, value: v) }
        }
        var status = status
        if let subrange {
            let part = subrange.relative ?? 0...(subrange.length - 1)
            h.replaceOrAdd(name: "Content-Length", value: String(part.count))
            h.remove(name: "Content-Range")
            if subrange.relative != nil {
                h.add(name: "Content-Range", value: "bytes \(part.lowerBound)-\(part.upperBound)/\(subrange.length)")
            }
            status = subrange.relative == nil ? 200 : 206
        }
        h.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        channel.write(
            HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: .init(statusCode: status), headers: h)), promise: nil)
    }

    /// Queues a body chunk; `flush` sends what is queued (once per batch of upstream reads, not per chunk).
    func chunk(_ b: ByteBuffer) {
        guard !headOnly else { return }
        channel.write(HTTPServerResponsePart.body(.byteBuffer(b)), promise: nil)
    }

    func flush() { channel.flush() }

    /// Starts an answer whose length is not known yet (chunked transfer encoding).
    func streamHead(_ status: Int, contentType: String) {
        started.withLockedValue { $0 = true }
        var h = HTTPHeaders([("Content-Type", contentType), ("Transfer-Encoding", "chunked")])
        h.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        channel.write(
            HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: .init(statusCode: status), headers: h)), promise: nil)
    }

    func end() { finish() }

    /// Fails the answer: a clean error if nothing was sent yet, else a cut connection (the player sees a truncated body, as it was).
    func abort(_ status: Int, _ s: String) {
        if started.withLockedValue({ $0 }) { channel.close(promise: nil) } else { text(status, s) }
    }
}

/// Reads player requests and hands them to the Loader.
final class LoaderHTTPHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let loader: @Sendable () -> LoaderServer?
    var head: HTTPRequestHead?

    init(loader: @escaping @Sendable () -> LoaderServer?) { self.loader = loader }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body: break
        case .end:
            guard let h = head, let loader = loader() else { return }
            head = nil
            let writer = ResponseWriter(channel: context.channel, keepAlive: h.isKeepAlive, version: h.version, headOnly: h.method == .HEAD)
            let target = h.uri
            let range = h.headers.first(name: "range")
            Task { await loader.handle(target, range: range, writer: writer) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}
