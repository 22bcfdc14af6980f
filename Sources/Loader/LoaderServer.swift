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

/// The player's only network (docs/ARCHITECTURE.md): a loopback HTTP server that fetches, times, rewrites, decrypts and serves.
public final class LoaderServer: Sendable {
    public let token: String
    public let port: Int
    public let options: LoaderOptions
    public let events: AsyncStream<LoaderEvent>
    let continuation: AsyncStream<LoaderEvent>.Continuation
    let client: UpstreamClient
    let keys: KeyStore
    let group: any EventLoopGroup
    let channel: any Channel
    /// When the Loader started, on its clock: `now` counts from it.
    let started: Double
    let table = NIOLockedValueBox(Table())
    let initTracks = NIOLockedValueBox([String: [MP4Track]]())
    /// What CMCD the Loader sends (`LoaderServer+CMCD.swift`).
    let cmcd: NIOLockedValueBox<CMCDState>
    /// The players that send CMCD through the Loader, by session.
    let cmcdPlayers = NIOLockedValueBox(CMCDPlayers())

    struct Table {
        var resources = ResourceIDs<PlaylistID, Resource>()
        var multivariantText: [Int: String] = [:]
        var variables: [String: String] = [:]
        /// The newest segment the player asked for, per media playlist.
        var lastRequested: [PlaylistID: Int] = [:]
        /// The segment the player asked for last since it was given its stream, per media playlist (cleared with each load):
        /// a live playlist goes on listing what follows it while the origin must keep it (`media`).
        var progress: [PlaylistID: Int] = [:]

        /// How far the player holds `playlist`, for the blocking reload its read may be (RFC 8216bis §6.2.5.2): the newest
        /// segment it asked for, or nil while the player it was last given (a load, a reload at a switch's boundary) has
        /// asked for none yet — it holds nothing, so its first read is never a blocking reload for the segment the player
        /// before it was reading, which would keep it waiting until that segment completes.
        func playerAt(_ playlist: PlaylistID) -> Int? {
            progress[playlist] == nil ? nil : lastRequested[playlist]
        }

        /// Playlists whose player fell behind the live window since it was given its stream (said once per load).
        var behindSaid: Set<PlaylistID> = []
        /// Segments from this media sequence number on wait to be served until the player's seek is done, at most until `until`
        /// (Loader seconds): `holdSegments(from:seconds:)`.
        var gate: (from: Int, until: Double)?
        /// Keys whose spread fetch is scheduled.
        var spreading: Set<String> = []
        /// A VOD playlist's keys beyond the horizon, by playlist, waiting for the player to get near.
        var pendingKeys: [PlaylistID: PendingKeys] = [:]
        /// The splice route, when the player was given a spliced playlist.
        var route: SpliceRoute?
        /// The multivariant playlist the player was given a stream of, its URL, and the variant its renditions are of.
        var presented: (m: MultivariantPlaylist, base: String, variant: Int)?
        /// Rendition playlists the player was given, by upstream URL, read from another pathway's copy instead (a splice to a
        /// rung of another pathway: `renditionRoute(to:)`).
        var renditionRoute: [String: String] = [:]
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
        var complete: Set<PlaylistID> = []
        /// Segments each live media playlist (by URL) listed, while the server must still keep them.
        var recent: [String: RecentSegments] = [:]
        /// Each live LL-HLS media playlist (by URL) as last read whole (a delta update merged in), and when: what the next
        /// reload's delivery directives are chosen from (`DeliveryDirectives`).
        var held: [String: (playlist: MediaPlaylist, at: Double)] = [:]
        /// Media playlists the Loader read ahead of the player (`prewarm`), by the URL read, for the player's first read of
        /// each: taken once, while fresh (`LoaderServer.reusable`).
        var prewarmed: [String: (response: UpstreamResponse, playlist: MediaPlaylist, at: Double)] = [:]
        /// The init section and first segments read at start before the player asks (`StartReads`), by URL: taken once.
        var readAhead: [String: ReadAhead] = [:]
        /// fMP4 segments in progress given to the player before their first part was listed, by playlist (`growing` checks
        /// that part before it writes a byte).
        var unconfirmed: [PlaylistID: Int] = [:]
        /// A segment given to the player as an empty body because it opens a break (`growing`), by playlist: the player's
        /// next playlist ends before it.
        var emptied: [PlaylistID: Int] = [:]
        /// The parts of the segment in progress read at start, by index, when the player starts inside it: taken by the
        /// player's request of that segment (`growing`).
        var startParts: (msn: Int, parts: [Int: PartAhead])?
        var startReadsDone = false
        /// Playlists whose delta updates did not merge (said once each).
        var deltaRefused: Set<String> = []
        /// Playlists whose server answered a blocking reload before it could (said once each).
        var earlyAnswer: Set<String> = []
        /// Playlists whose server held a blocking reload past the read timeout: polled from then on.
        var slowHold: Set<String> = []
        /// Live playlists whose server held a blocking reload longer than three target durations (and still answered), named.
        var longHold: Set<String> = []
        /// Live playlists whose server hinted a part it never listed, named.
        var falseHint: Set<String> = []
        /// Audio rendition playlists the player was given (`readAlong`).
        var audioPlaylists: Set<PlaylistID> = []
        /// The variant whose media playlist the player was given last.
        var playerRung: Int?
        /// Video segments read along with the audio, newest 64.
        var readAlong: Set<ReadAlong> = []
        /// Progressive files opened, by URL.
        var files: [String: RemoteFile] = [:]
    }

    /// The base every player URL starts with, token included.
    public var base: String { "http://127.0.0.1:\(port)/\(token)" }

    /// Starts on 127.0.0.1 with a random port and a fresh secret token.
    public static func start(options: LoaderOptions = LoaderOptions()) throws -> LoaderServer {
        // The process's one event-loop group, shared by every Loader (DECISIONS.md, "One event-loop group"): never shut down,
        // so work still in flight at a stop cannot trap NIO, and a fleet that restarts sessions does not grow a thread a time.
        let group = MultiThreadedEventLoopGroup.singleton
        var bytes = [UInt8](repeating: 0, count: 16)
        var rng = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = rng.next() }
        let token = bytes.map { String(format: "%02x", $0) }.joined()
        let box = NIOLockedValueBox<LoaderServer?>(nil)
        let players = PlayerConnections()
        let bound = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { ch in
                players.add(ch)
                return ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try ch.pipeline.syncOperations.addHandler(LoaderHTTPHandler(loader: { box.withLockedValue { $0 } }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        let server = try LoaderServer(token: token, channel: bound, group: group, options: options, players: players)
        box.withLockedValue { $0 = server }
        return server
    }

    init(token: String, channel: any Channel, group: any EventLoopGroup, options: LoaderOptions, players: PlayerConnections) throws {
        self.players = players
        self.token = token
        self.channel = channel
        self.group = group
        self.options = options
        port = channel.localAddress?.port ?? 0
        let (stream, cont) = AsyncStream<LoaderEvent>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        events = stream
        continuation = cont
        let clock = options.upstream.clock
        let started = clock.now
        self.started = started
        var upstream = options.upstream
        let cmcd = NIOLockedValueBox(CMCDState())
        self.cmcd = cmcd
        var settings = options.cmcd
        // One session ID per Loader (a pane's session) unless the user gave one.
        if settings?.sessionID.isEmpty == true { settings?.sessionID = UUID().uuidString.lowercased() }
        let fixed = settings
        // hlstui's own CMCD, or a proxied player's as it came (`PlayerRequest`).
        upstream.decorate = { url in cmcd.withLockedValue { $0.decoration(url, settings: fixed) } }
        client = try UpstreamClient(group: group, options: upstream)
        keys = KeyStore(
            client: client, overrides: options.keyOverrides, deadlines: options.keyDeadlines, command: options.keyCommand,
            emit: { cont.yield($0) },
            clock: { clock.now - started })
    }

    let stopped = NIOLockedValueBox(false)
    /// Every task the Loader starts (a player's request, a prewarm, a key fetched ahead, a segment read along): `stop`
    /// cancels them, `shutdown` waits for them too.
    let tasks = OwnedTasks()
    /// The player's connections, closed with the Loader.
    let players: PlayerConnections

    /// Stops serving: cancels the Loader's tasks and closes the player's and the origins' connections; safe to call more than
    /// once. `shutdown` also waits until all of that has ended.
    public func stop() {
        guard
            !stopped.withLockedValue({
                let was = $0; $0 = true; return was
            })
        else { return }
        tasks.cancelAll()
        continuation.finish()
        client.shutdown()
        channel.close(promise: nil)
        players.closeAll()
    }

    /// `stop`, returning once every task the Loader started has ended and every connection it held is closed.
    public func shutdown() async {
        stop()
        await tasks.drain()
        try? await channel.closeFuture.get()
        await players.closed()
        await client.closed()
    }

    /// How many tasks the Loader has running (for tests: none after `shutdown`).
    public var runningTasks: Int { tasks.count }

    /// Seconds since the Loader started, on its clock (`UpstreamOptions.clock`): the time its events are stamped in.
    public var now: Double { options.upstream.clock.now - started }

    /// Waits `seconds` on the Loader's clock.
    func sleep(_ seconds: Double) async { await options.upstream.clock.sleep(seconds) }

    /// Segments of a live playlist whose ids outlive the playlists that listed them: a player held or paused this long
    /// (segments) behind what it was last given still finds what it was given before.
    static let segmentMargin = 256

    func emit(_ e: LoaderEvent) { continuation.yield(e) }

    /// The Loader id for an upstream resource, the same every time it is named.
    func register(_ r: Resource) -> Int {
        table.withLockedValue { t in
            let k =
                "\(r.kind.rawValue) \(r.upstream) \(r.msn ?? -1) \(r.startMSN ?? -1) \(r.slot) \(r.growing) \(r.byteRange.map { "\($0.offset)+\($0.length)" } ?? "")"
            let segment = r.kind == .segment ? r.playlist : nil
            return t.resources.id(k, r, segmentOf: segment, msn: r.msn)
        }
    }

    func path(_ id: Int, _ r: Resource) -> String {
        let ext: String
        switch r.kind {
        case .multivariant, .media: ext = "m3u8"
        case .steering, .assetList: ext = "json"
        case .key: ext = "key"
        case .initSection, .file: ext = "mp4"
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
        if ProgressiveFile.named(url) { return try await openFile(url) }
        let r = try await read(url, kind: .multivariant, rung: nil)
        guard r.head.status == 200 else { throw UpstreamError(cause: .protocolError, detail: "\(url): HTTP \(r.head.status)") }
        // Named like a playlist but an MP4 file: read it as one (by ranges, from here on).
        if !r.body.starts(with: Array("#EXTM3U".utf8)), FragmentedMP4.startsLikeMP4(Array(r.body.prefix(16))) {
            return try await openFile(url)
        }
        // An MPEG-TS segment (a sync byte every 188 bytes, ISO/IEC 13818-1 §2.4.3.2) where a playlist was expected: said as
        // such, not as the playlist rules it breaks.
        if r.body.count >= 376, r.body[0] == 0x47, r.body[188] == 0x47 {
            throw UpstreamError(
                cause: .protocolError, detail: "\(url): an MPEG-TS segment, not a playlist (give hlstui the playlist that lists it)")
        }
        let parsed = PlaylistParser.parseLenient(String(decoding: r.body, as: UTF8.self), options: ParseOptions(url: r.head.url))
        if parsed.playlist.multivariant != nil { table.withLockedValue { $0.variables = parsed.variables } }
        return OpenedStream(playerURL: "", url: r.head.url, playlist: parsed.playlist, diagnostics: parsed.diagnostics)
    }

    /// Keeps segments from `msn` on from the player for at most `seconds`, until `releaseSegments()`: a reload that seeks into
    /// a fresh cache before a discontinuity does so while the cache holds no timestamp reset (mpv 0.35 seeks each stream of
    /// its cache on its own by packet timestamp, and with a reset cached after the target it sends video to the reset's far
    /// side, docs/PLATFORM.md). Set before the stream is presented; a new presentation keeps it.
    public func holdSegments(from msn: Int, seconds: Double) {
        let until = now + seconds
        table.withLockedValue { $0.gate = (msn, until) }
    }

    /// Serves the segments `holdSegments` kept back.
    public func releaseSegments() {
        table.withLockedValue { $0.gate = nil }
    }

    /// Whether `msn` is kept back now (`holdSegments`).
    func isHeld(_ msn: Int) -> Bool {
        table.withLockedValue { t in t.gate.map { msn >= $0.from && now < $0.until } ?? false }
    }

    /// The rungs `m` lists beyond those presented (a steering manifest's clones): their upstream URLs and bandwidths, so a
    /// splice or failover can route to them before the player is given a playlist naming them.
    public func addRungs(_ m: MultivariantPlaylist, base: String) {
        table.withLockedValue { t in
            if let p = t.presented { t.presented = (m, p.base, p.variant) }
            for (i, v) in m.variants.enumerated() where t.rungURLs[i] == nil {
                t.rungURLs[i] = VirtualPlaylists.resolve(v.uri, against: base)
                t.rungBandwidth[i] = v.bandwidth
            }
        }
    }

    /// Waits while `msn` is kept back (`holdSegments`).
    func passGate(_ msn: Int) async {
        while let g = table.withLockedValue({ $0.gate }), msn >= g.from, now < g.until, !Task.isCancelled {
            await sleep(0.005)
        }
    }

    /// Gives the player a fetched stream: a virtual multivariant playlist with only `variants` (or the media playlist itself),
    /// media playlists starting at `startMSN` when given; keys of the chosen rungs are prefetched now.
    /// With `splice`, the one variant the player sees is served through the route, so `route(_:)` changes its rung segment by segment.
    public func present(
        _ fetched: OpenedStream, variants: [Int]? = nil, startMSN: Int? = nil, prewarmVariants: Bool = true,
        splice: SpliceRoute? = nil, audio: Rendition? = nil, subtitles: Bool = true
    ) -> OpenedStream {
        var out = fetched
        let base = fetched.url
        table.withLockedValue { t in
            t.progress = [:]
            t.unconfirmed = [:]
            t.emptied = [:]
            t.behindSaid = []
            t.gate = nil
        }
        // A reload: what was read ahead for the first player and not asked for is over.
        dropReadsAhead()
        if fetched.file != nil {
            let res = Resource(upstream: base, kind: .file, rung: 0)
            out.playerURL = path(register(res), res)
            return out
        }
        guard case .multivariant(let m) = fetched.playlist.body else {
            let res = Resource(upstream: base, kind: .media, rung: 0, startMSN: startMSN)
            if let media = fetched.playlist.media {
                emit(.playlist(PlaylistEvent(url: base, rung: 0, rendition: nil, playlist: media, received: now)))
                prefetchKeys(media, base: base)
            }
            out.playerURL = path(register(res), res)
            readAheadAtStart(media: base, playlist: fetched.playlist.media, rung: 0, startMSN: startMSN, spliced: false)
            return out
        }
        let variables = table.withLockedValue { $0.variables }
        let keep = splice.map { [$0.rung] } ?? variants ?? Array(m.variants.indices)
        table.withLockedValue { t in
            t.route = splice
            t.presented = keep.first.map { (m, base, $0) }
            t.renditionRoute = [:]
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
        }.multivariant(fetched.playlist, base: base, variants: keep, audio: audio, subtitles: subtitles)
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
                tasks.spawn { [self] in await prewarm(u, rung: i, variables: variables) }
            }
            for u in renditions { tasks.spawn { [self] in await prewarm(u, rung: nil, variables: variables) } }
        }
        out.playerURL = path(id, res)
        // One variant given: the player's start is known (a proxy's player picks among several itself).
        if keep.count == 1, let first = keep.first, m.variants.indices.contains(first) {
            readAheadAtStart(
                media: VirtualPlaylists.resolve(m.variants[first].uri, against: base), rung: first, startMSN: startMSN,
                spliced: splice != nil)
        }
        return out
    }

    /// Reads rung `rung`'s media playlist again for hlstui alone (live: where the edge is while the player does not reload — a full
    /// cache, or a playlist the Loader ended before a break); not reported as the player's playlist; new keys are spread as usual.
    public func refresh(_ fetched: OpenedStream, rung: Int) async -> MediaPlaylist? {
        let (variables, spliced) = table.withLockedValue { ($0.variables, $0.route != nil) }
        if fetched.file != nil { return fetched.playlist.media }
        guard let m = fetched.playlist.multivariant else {
            return await prewarm(fetched.url, rung: 0, variables: variables, playlist: .upstream(fetched.url), report: false)
        }
        guard m.variants.indices.contains(rung) else { return nil }
        let url = VirtualPlaylists.resolve(m.variants[rung].uri, against: fetched.url)
        return await prewarm(url, rung: rung, variables: variables, playlist: spliced ? .splice : .upstream(url), report: false)
    }

    /// Reads rung `rung`'s media playlist now (and prefetches its keys), before the player is given anything.
    public func prewarmVariant(_ fetched: OpenedStream, rung: Int) async -> MediaPlaylist? {
        guard let m = fetched.playlist.multivariant, m.variants.indices.contains(rung) else { return fetched.playlist.media }
        let variables = table.withLockedValue { $0.variables }
        return await prewarm(VirtualPlaylists.resolve(m.variants[rung].uri, against: fetched.url), rung: rung, variables: variables)
    }

    /// Answers one player request.
    func handle(_ target: String, range: String?, cmcd: [(String, String)] = [], writer: ResponseWriter) async {
        let parts = target.split(separator: "?")[0].split(separator: "/").map(String.init)
        guard parts.count == 3, parts[0] == token else {
            writer.text(403, "hlstui loader: unknown session (the URL must carry this session's token)")
            emit(.diagnostic("refused a request without this session's token: \(target.prefix(80))"))
            return
        }
        guard let id = Int(parts[2].split(separator: ".")[0]), let res = table.withLockedValue({ $0.resources[id] }) else {
            writer.text(404, "hlstui loader: no such resource")
            return
        }
        if let forward = playerCMCD(headers: cmcd, target: target, res: res) {
            await PlayerRequest.$cmcd.withValue(forward) { await route(res, id: id, range: range, writer: writer) }
        } else {
            await route(res, id: id, range: range, writer: writer)
        }
    }

    func route(_ res: Resource, id: Int, range: String?, writer: ResponseWriter) async {
        if res.kind == .segment, readsCaptions, let msn = res.msn {
            writer.collect()
            defer { emitCaptions(res, msn: msn, writer.collected()) }
            return await route(segment: res, range: range, writer: writer)
        }
        switch res.kind {
        case .multivariant:
            writer.playlist(table.withLockedValue { $0.multivariantText[id] } ?? "")
        case .media: await media(res, writer: writer)
        case .segment: await route(segment: res, range: range, writer: writer)
        case .part, .initSection: await segment(res, range: range, writer: writer)
        case .key: await keyResource(res, writer: writer)
        case .file: await file(res, range: range, writer: writer)
        case .steering, .assetList: writer.text(404, "hlstui loader: a \(res.kind.rawValue) is read by hlstui, not by the player")
        }
    }

    func route(segment res: Resource, range: String?, writer: ResponseWriter) async {
        if res.growing { await growing(res, writer: writer) } else { await segment(res, range: range, writer: writer) }
    }

    /// Reads the steering manifest at `url` (a reload: `_HLS_pathway` and `_HLS_throughput` already set) for hlstui itself,
    /// reported in the request log; never retried here (the steering client waits its TTL, or Retry-After, instead). A
    /// `data:` URL is the manifest in-line (SERVER-URI may carry the first one so): read without a request, its RELOAD-URI
    /// resolved against `base`, the stream's URL.
    public func steering(_ url: String, base: String) async -> SteeringAnswer {
        let t0 = now
        if DataURI.isData(url) {
            switch DataURI.decode(url) {
            case .success(let body):
                record(
                    .steering, "data: (\(body.count) bytes in-line)", rung: nil, since: t0, bytes: body.count, status: 200, local: true,
                    outcome: .ok)
                switch SteeringManifest.parse(body, from: base) {
                case .success(let m): return .manifest(m)
                case .failure(let e): return .invalid(e)
                }
            case .failure(let e):
                record(.steering, "data: (in-line)", rung: nil, since: t0, status: 400, local: true, outcome: .failed(e.description))
                return .invalid(.inline(e.description))
            }
        }
        do throws(UpstreamError) {
            let r = try await readOwn(.steering, url)
            guard r.head.status == 200 else { return .status(r.head.status, retryAfter: r.head.header("retry-after")) }
            switch SteeringManifest.parse(r.body, from: r.head.url) {
            case .success(let m): return .manifest(m)
            case .failure(let e): return .invalid(e)
            }
        } catch {
            return .unreachable(error.description)
        }
    }

    /// A document hlstui reads for itself and never serves to the player (a steering manifest, an asset list): read whole in
    /// one try and recorded in the request log as `kind`; a transport failure recorded, then thrown.
    func readOwn(_ kind: ResourceKind, _ url: String) async throws(UpstreamError) -> UpstreamResponse {
        let t0 = now
        do throws(UpstreamError) {
            let r = try await client.get(url, keepBody: 1 << 20, retries: 0, whole: true)
            record(
                kind, url, rung: nil, since: t0, head: r.head, bytes: r.bytes, status: r.head.status,
                outcome: r.head.status == 200 ? .ok : .failed(r.head.statusLine))
            return r
        } catch {
            record(kind, url, rung: nil, since: t0, status: 502, outcome: .failed(error.description))
            throw error
        }
    }

    /// How many times the Loader fetched each key (for tests: once per URI).
    public func keyFetchCounts() async -> [String: Int] { await keys.fetchCount }
}

extension LoaderServer {
    /// Reports one request the Loader served or failed: what it was, what the upstream answer cost (time to first byte and
    /// retries from `head`, when there was one) and how it ended. The one place a `RequestEvent` is made.
    func record(
        _ kind: ResourceKind, _ url: String, rung: Int?, msn: Int? = nil, since t0: Double, head: UpstreamHead? = nil,
        durationMs: Double? = nil,
        bytes: Int = 0, status: Int, local: Bool = false, prefetch: Bool = false, outcome: RequestOutcome, firstPTS: Double? = nil,
        range: String? = nil, paced: Bool = false, hint: Bool = false, resumed: String? = nil
    ) {
        var e = RequestEvent(
            kind: kind, url: url, rung: rung, msn: msn, start: t0, ttfbMs: head.map { $0.ttfb * 1000 },
            durationMs: durationMs ?? (now - t0) * 1000, bytes: bytes, status: status,
            local: local || head?.cache == .hit || head?.reused == true,
            prefetch: prefetch, retries: head?.retries ?? 0, outcome: outcome, firstPTS: firstPTS, cache: head?.cache,
            savedBytes: head?.savedBytes ?? 0, range: range, paced: paced, hint: hint)
        e.resumed = resumed
        e.cmcd = head?.sent
        if let head, head.headers.contains(where: { $0.0.lowercased().hasPrefix("cmsd-") }) { e.cmsd = CMSD.read(headers: head.headers) }
        emit(.request(e))
    }
}
