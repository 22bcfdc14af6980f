import Foundation
import HLS
import LoaderEvents
import NIOConcurrencyHelpers

/// Serves a recording with its timing: the recorded origins each get a path prefix (`/h0`, `/h1`, …) on this server; a
/// playlist is answered with the version the origin gave last at that moment of the session (a live window advances as it
/// did), every other resource with the recorded answers in turn — the n-th request for a URL (and range) gets the n-th recorded answer,
/// its status, its wait for the first byte, its pace, its cut or its silence; past the recorded ones, the last good one.
/// `speed` scales every time. A key's bytes were recorded only sealed (`--record-keys`), opened with this user's vault; without
/// them, asking for one says so.
public final class ReplayResponder: OriginResponder, Sendable {
    public let state: OriginState
    /// The recorded origins (`scheme://host:port`), in order of first use.
    public let hosts: [String]
    let entries: [String: [RecordedExchange]]
    /// The URLs that are playlists (answered by time, not in turn), decided once.
    let playlists: Set<String>
    /// What the recorded playlists list (URI lines, resolved): a request for one the recording never made is the player
    /// reading on past where the recorded session ended, not a divergence.
    let listed: Set<String>
    let body: @Sendable (String) -> [UInt8]?
    /// Opens a sealed key's bytes (`--record-keys`) with this user's vault; nil when it cannot.
    let unseal: @Sendable ([UInt8]) -> [UInt8]?
    let speed: Double
    /// What the replay has answered and said so far, and where it listens.
    struct Progress {
        /// Answers given per URL (and range).
        var served: [String: Int] = [:]
        var media = 0
        var divergences: [String] = []
        var said: Set<String> = []
        var base = ""
    }
    let progress = NIOLockedValueBox(Progress())

    /// `exchanges`: in the order they happened.
    public init(
        exchanges: [RecordedExchange], speed: Double, body: @escaping @Sendable (String) -> [UInt8]?,
        unseal: @escaping @Sendable ([UInt8]) -> [UInt8]? = { _ in nil }, startedAt: Double
    ) {
        self.unseal = unseal
        var hosts: [String] = []
        var entries: [String: [RecordedExchange]] = [:]
        for e in exchanges {
            if let h = Self.origin(of: e.url), !hosts.contains(h) { hosts.append(h) }
            entries[e.url, default: []].append(e)
        }
        self.hosts = hosts
        self.entries = entries.mapValues { $0.sorted { $0.t < $1.t } }
        playlists = Set(entries.filter { Self.isPlaylist($0.key, $0.value) }.keys)
        self.listed = Self.listed(playlists.sorted(), entries, body)
        self.body = body
        self.speed = max(0.01, speed)
        state = OriginState(startedAt: startedAt)
    }

    /// The URIs the recorded playlists list, resolved against each playlist's URL with its variables substituted (RFC
    /// 8216bis §4.2: a multivariant playlist's — its QUERYPARAM read from its URL — are what its media playlists IMPORT).
    static func listed(_ playlists: [String], _ entries: [String: [RecordedExchange]], _ body: (String) -> [UInt8]?) -> Set<String> {
        let texts = playlists.flatMap { url in
            (entries[url] ?? []).compactMap { e in e.body.flatMap(body).flatMap { String(bytes: $0, encoding: .utf8) }.map { (url, $0) } }
        }
        var imported: [String: String] = [:]
        for (url, text) in texts where text.contains("#EXT-X-STREAM-INF") {
            imported.merge(PlaylistParser.parseLenient(text, options: ParseOptions(url: url, lint: false)).variables) { a, _ in a }
        }
        var listed: Set<String> = []
        for (url, text) in texts {
            guard let base = URL(string: url) else { continue }
            let variables = PlaylistParser.parseLenient(text, options: ParseOptions(importedVariables: imported, url: url, lint: false))
                .variables
            for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") && !line.isEmpty {
                let uri = variables.reduce(String(line)) { $0.replacingOccurrences(of: "{$\($1.key)}", with: $1.value) }
                if let u = URL(string: uri, relativeTo: base)?.absoluteString { listed.insert(u) }
            }
        }
        return listed
    }

    /// Where this server answers, once it listens (`http://127.0.0.1:PORT`).
    public func listening(at base: String) { progress.withLockedValue { $0.base = base } }

    /// The replay's URL for a recorded one.
    public func replayURL(_ url: String) -> String? {
        guard let h = Self.origin(of: url), let i = hosts.firstIndex(of: h) else { return nil }
        return progress.withLockedValue { $0.base } + "/h\(i)" + url.dropFirst(h.count)
    }

    static func origin(of url: String) -> String? {
        guard let u = URLComponents(string: url), let scheme = u.scheme, let host = u.host else { return nil }
        return "\(scheme)://\(host)" + (u.port.map { ":\($0)" } ?? "")
    }

    public func respond(_ req: OriginRequest, now: Double) -> OriginResponse {
        let parts = req.target.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true)
        var url: String?
        if let first = parts.first, first.hasPrefix("h"), let i = Int(first.dropFirst()), hosts.indices.contains(i) {
            url = hosts[i] + "/" + (parts.count > 1 ? parts[1] : "")
        }
        // A path-absolute URI in a playlist ("/keys/k1.key") reaches this server's root: the recorded origin that has it.
        if url.map({ entries[$0] == nil }) ?? true, let other = hosts.lazy.map({ $0 + req.target }).first(where: { entries[$0] != nil }) {
            url = other
        }
        if let url, entries[url] == nil, listed.contains(url) {
            // Listed, never asked for while recording: the recorded session ended before its player got there. Held, as the
            // recorded origin would have been had the session gone on, until this one ends (docs/REPLAY.md).
            var r = OriginResponse(status: 0, contentType: "", body: [], kind: "segment")
            r.delivery = .silent(seconds: 3600)
            return r
        }
        guard let url, let list = entries[url], !list.isEmpty else {
            diverged("the player asked for \(req.target), which the recording does not have (answered 404)", once: req.target)
            return .text(404, "not in the recording: \(req.target)")
        }
        let playlist = playlists.contains(url)
        let sessionTime = (now - state.startedAt) * speed
        let entry: RecordedExchange
        if playlist {
            // The version the origin gave last at this moment of the session (the first, before it).
            entry = list.last { $0.t <= sessionTime } ?? list[0]
        } else {
            // A range gets the answers recorded for that range in turn (a progressive file's pieces, byte-range segments, a
            // resumed body); a range never recorded, the URL's answers.
            let same = list.filter { $0.range == req.range }
            // A range the recording never asked, whose bytes its answers hold (the player split a progressive file's reads
            // another way this time): answered with exactly those bytes, and said.
            if same.isEmpty, let range = req.range, let cut = Self.cut(range, from: list, body: body) {
                let what = (URLComponents(string: url)?.path ?? url) + " (\(range))"
                diverged("the player asked for \(what), which the recording never asked: answered from the bytes it recorded", once: what)
                var r = OriginResponse(
                    status: 206, contentType: cut.contentType, body: cut.bytes, headers: [("Content-Range", cut.contentRange)],
                    kind: "segment")
                r.exact = true
                return r
            }
            let pool = same.isEmpty ? list : same
            let key = url + "#" + (same.isEmpty ? "" : req.range ?? "")
            let n = progress.withLockedValue { p -> Int in
                defer {
                    p.served[key, default: 0] += 1
                    p.media += 1
                }
                return p.served[key, default: 0]
            }
            if n == pool.count {
                let what = (URLComponents(string: url)?.path ?? url) + (same.isEmpty ? "" : req.range.map { " (\($0))" } ?? "")
                diverged(
                    "the player asked for \(what) \(Self.times(n + 1)); the recording has it \(Self.times(pool.count)): answered as the last good one"
                )
            }
            entry = n < pool.count ? pool[n] : (pool.last { $0.answered } ?? pool[pool.count - 1])
        }
        return answer(entry, playlist: playlist, url: url)
    }

    /// How many media requests the recorded session had made (started) `t` seconds in: where a command given then met the
    /// player.
    public func recordedMediaRequests(before t: Double) -> Int {
        entries.reduce(0) { n, e in playlists.contains(e.key) ? n : n + e.value.filter { $0.t < t }.count }
    }

    /// How many requests for media (anything but a playlist, which is answered by time) the replay has been asked so far.
    public var mediaRequests: Int { progress.withLockedValue { $0.media } }

    /// What the replay was asked that the recording cannot answer as it happened, each said once; taken, so each is said
    /// once.
    public func takeDivergences() -> [String] {
        progress.withLockedValue { p in
            defer { p.divergences = [] }
            return p.divergences
        }
    }

    func diverged(_ what: String, once key: String? = nil) {
        progress.withLockedValue { p in
            if let key, !p.said.insert(key).inserted { return }
            p.divergences.append(what)
        }
    }

    static func times(_ n: Int) -> String { n == 1 ? "once" : n == 2 ? "twice" : "\(n) times" }

    func answer(_ e: RecordedExchange, playlist: Bool, url: String) -> OriginResponse {
        let kind = playlist ? "playlist" : e.secret ? "key" : "segment"
        let wait = (e.ttfb ?? 0) / speed
        guard let status = e.status else {
            // No answer was recorded: the connection failed, or the origin said nothing until the client gave up.
            var r = OriginResponse(status: 0, contentType: "", body: [], kind: kind)
            r.delivery = e.failure == "timeout" ? .silent(seconds: e.seconds / speed) : .refuse
            r.fault = e.failure
            return r
        }
        if e.secret && e.body == nil {
            var r = OriginResponse.text(404, "\(url): a key's bytes are never recorded (unless with --record-keys)")
            r.kind = "key"
            return r
        }
        var bytes = e.body.flatMap(body) ?? []
        if e.sealed {
            guard let clear = unseal(bytes) else {
                var r = OriginResponse.text(404, "\(url): the key was sealed under another user's vault key")
                r.kind = "key"
                return r
            }
            bytes = clear
        }
        if playlist, !bytes.isEmpty, let text = String(bytes: bytes, encoding: .utf8) {
            // Absolute URIs to a recorded origin lead back here.
            var t = text
            let base = progress.withLockedValue { $0.base }
            for (i, h) in hosts.enumerated() { t = t.replacingOccurrences(of: h + "/", with: base + "/h\(i)/") }
            bytes = Array(t.utf8)
        }
        let contentType = e.headers.first { $0.0.lowercased() == "content-type" }?.1 ?? "application/octet-stream"
        let passed = e.headers.filter {
            !["content-length", "content-type", "connection", "transfer-encoding", "keep-alive"].contains($0.0.lowercased())
        }
        var r = OriginResponse(status: status, contentType: contentType, body: bytes, headers: passed, kind: kind)
        r.delayMs = Int(wait * 1000)
        r.exact = true
        let transfer = max(0, e.seconds - (e.ttfb ?? 0)) / speed
        if e.failure == "truncated" || e.failure == "timeout" || e.failure == "slow" {
            // Content-Length promises what the origin promised; the bytes stop where they stopped.
            let promised = e.headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? bytes.count + 1
            r.body = bytes + [UInt8](repeating: 0, count: max(0, promised - bytes.count))
        }
        switch e.failure {
        case "truncated":
            r.delivery = .cut(bytes: bytes.count)
            r.fault = "truncated"
        case "timeout":
            // The client gave up waiting: the silence outlasts its read timeout (at any --speed), so it gives up again.
            r.delivery = .hang(bytes: bytes.count, seconds: e.seconds + 5)
            r.fault = "timeout"
        case "slow":
            // The body came too slowly to be taken: it comes as slowly again (the client gives up at the same point).
            r.delivery = .trickle(interval: transfer / Double(max(1, bytes.count)))
            r.fault = "slow"
        case .some(let other):
            r.delivery = .cut(bytes: bytes.count)
            r.fault = other
        case nil:
            if transfer > 0.05 && !bytes.isEmpty { r.delivery = .paced(bytesPerSecond: max(1, Int(Double(bytes.count) / transfer))) }
        }
        return r
    }

    /// The bytes `range` (`bytes=A-B` or `bytes=A-`) asks for, cut from the recorded answers of one URL that hold them: 206
    /// answers by their Content-Range, a 200 whole; nil unless every byte asked for was recorded (RFC 9110 §14.1.2).
    static func cut(_ range: String, from list: [RecordedExchange], body: (String) -> [UInt8]?) -> (
        bytes: [UInt8], contentRange: String, contentType: String
    )? {
        guard range.hasPrefix("bytes="), !range.contains(",") else { return nil }
        let ends = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Int(ends[0]) else { return nil }
        var total: Int?
        var pieces: [(offset: Int, bytes: [UInt8])] = []
        var type = "application/octet-stream"
        for e in list where e.failure == nil && (e.status == 206 || e.status == 200) {
            guard let hash = e.body, let bytes = body(hash) else { continue }
            let header = { (name: String) in e.headers.first { $0.0.lowercased() == name }?.1 }
            type = header("content-type") ?? type
            if e.status == 200 {
                pieces.append((0, bytes))
                total = total ?? bytes.count
            } else if let cr = header("content-range"), cr.hasPrefix("bytes ") {
                // bytes X-Y/TOTAL
                let parts = cr.dropFirst(6).split(separator: "/")
                let span = parts.first?.split(separator: "-").compactMap { Int($0) } ?? []
                guard span.count == 2, span[1] - span[0] + 1 == bytes.count else { continue }
                pieces.append((span[0], bytes))
                if parts.count == 2, let t = Int(parts[1]) { total = total ?? t }
            }
        }
        guard let size = total else { return nil }
        let last = min(Int(ends[1]) ?? size - 1, size - 1)
        guard first <= last else { return nil }
        var out = [UInt8](repeating: 0, count: last - first + 1)
        var covered = 0
        // The pieces by offset: each adds what it holds past what is covered so far.
        for p in pieces.sorted(by: { $0.offset < $1.offset }) {
            let from = first + covered
            guard from <= last else { break }
            guard p.offset <= from else { return nil }
            let end = min(p.offset + p.bytes.count - 1, last)
            guard end >= from else { continue }
            out.replaceSubrange((from - first)...(end - first), with: p.bytes[(from - p.offset)...(end - p.offset)])
            covered = end - first + 1
        }
        guard covered == out.count else { return nil }
        return (out, "bytes \(first)-\(last)/\(size)", type)
    }

    static func isPlaylist(_ url: String, _ list: [RecordedExchange]) -> Bool {
        let path = URLComponents(string: url)?.path.lowercased() ?? url
        if path.hasSuffix(".m3u8") || path.hasSuffix(".m3u") { return true }
        return list.contains { e in e.headers.contains { $0.0.lowercased() == "content-type" && $0.1.lowercased().contains("mpegurl") } }
    }
}
