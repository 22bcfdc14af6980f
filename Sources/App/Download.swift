import Foundation
import Glibc
import HLS
import Loader
import LoaderCore
import NIOConcurrencyHelpers
import NIOPosix
import Offline
import NIOCore

/// What `hlstui download` was asked for.
public struct DownloadRequest: Sendable {
    public var url: String
    public var out: String
    public var selection = SelectionOptions()
    /// Segment fetches at once.
    public var parallel = 4
    /// A live or EVENT stream: seconds of media to capture (nil: until ENDLIST).
    public var duration: Double?
    public var storageDuration: Double?
    public var playbackDuration: Double?
    public var upstream = UpstreamOptions()
    public var vaultPath = CacheOptions.defaultVault
    /// Where downloads are listed for `hlstui offline ls`.
    public var registryPath = OfflineRegistry.defaultPath
    /// Redraw progress in place (a terminal) instead of plain lines.
    public var interactive = false
    public init(url: String, out: String) {
        self.url = url
        self.out = out
    }
}

/// Why a download stopped, in one line.
public struct DownloadError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}

/// `hlstui download`: the chosen renditions of a stream into a folder that plays on its own (DECISIONS.md "Offline downloads").
public enum DownloadRunner {
    /// Runs the download, saying what it does through `say`; 0 when complete, 1 when it stopped (what was stored stays, and the
    /// same command continues it).
    public static func run(_ r: DownloadRequest, say: @escaping @Sendable (String) -> Void) async -> Int32 {
        // The process's one event-loop group (DECISIONS.md, "One event-loop group").
        let group = MultiThreadedEventLoopGroup.singleton
        let client: UpstreamClient
        do { client = try UpstreamClient(group: group, options: r.upstream) } catch {
            say("hlstui download: \(error)")
            return 2
        }
        defer { client.shutdown() }
        let job: DownloadJob
        do { job = try await DownloadJob.start(r, client: client, say: say) } catch {
            say("hlstui download: \(error.description)")
            return 1
        }
        do {
            try await job.run()
            return 0
        } catch {
            await job.save()
            say("hlstui download: \(error.description)")
            say("hlstui download: what was stored is kept; the same command continues it")
            return 1
        }
    }
}

/// One rendition being stored: its source playlist and where its files go.
struct RenditionJob: Sendable {
    var dir: String
    var url: String
    var playlist: Playlist
    /// The segments that belong to the download (a capture: those stored or being stored).
    var segments: [Segment]
}

/// A download in progress: the manifest is its one piece of shared state, owned by this actor.
actor DownloadJob {
    let request: DownloadRequest
    let client: UpstreamClient
    let say: @Sendable (String) -> Void
    let root: URL
    let seal: @Sendable ([UInt8]) -> [UInt8]?
    var manifest: DownloadManifest
    var renditions: [RenditionJob]
    /// The multivariant playlist's variables, for a live media playlist read again.
    var variables: [String: String] = [:]
    var progress: DownloadProgress
    /// Init sections by source URL (and range): their local names, per rendition.
    var maps: [Int: [MapSection: String]] = [:]

    init(
        request: DownloadRequest, client: UpstreamClient, say: @escaping @Sendable (String) -> Void, manifest: DownloadManifest,
        renditions: [RenditionJob], seal: @escaping @Sendable ([UInt8]) -> [UInt8]?
    ) {
        self.request = request
        self.client = client
        self.say = say
        root = URL(fileURLWithPath: request.out)
        self.manifest = manifest
        self.renditions = renditions
        self.seal = seal
        progress = DownloadProgress(names: renditions.map(\.dir), interactive: request.interactive)
    }

    /// Reads the stream, chooses what to keep and opens (or continues) the folder.
    static func start(_ r: DownloadRequest, client: UpstreamClient, say: @escaping @Sendable (String) -> Void) async throws(DownloadError)
        -> DownloadJob
    {
        let fm = FileManager.default
        let previous: DownloadManifest?
        do {
            previous = try DownloadFolder.previous(
                out: r.out, manifest: fm.contents(atPath: r.out + "/" + DownloadManifest.fileName),
                holdsFiles: (try? fm.contentsOfDirectory(atPath: r.out))?.isEmpty == false, source: r.url)
        } catch { throw DownloadError(error.description) }
        do {
            try fm.createDirectory(atPath: r.out, withIntermediateDirectories: true)
        } catch {
            throw DownloadError("\(r.out) cannot be created: \(error.localizedDescription)")
        }
        let sealing: (seal: @Sendable ([UInt8]) -> [UInt8]?, open: @Sendable ([UInt8]) -> [UInt8]?)
        do { sealing = try KeyVault.sealing(at: r.vaultPath) } catch { throw DownloadError("\(error)") }

        let top = try await fetchPlaylist(r.url, client: client)
        var manifest = previous ?? DownloadManifest(source: r.url, created: Date().timeIntervalSince1970, entry: "", live: false)
        manifest.leftOut = []
        let plan: Plan
        switch top.playlist.body {
        case .media:
            if let why = drm(top.playlist) { throw DownloadError("\(r.url) cannot be stored: \(why)") }
            var folders = RenditionFolders()
            let d = folders.name(for: top.url, fallback: "media")
            plan = Plan(
                jobs: [RenditionJob(dir: d, url: top.url, playlist: top.playlist, segments: [])],
                stored: [StoredRendition(type: "VIDEO", name: d, language: nil, source: top.url, playlist: d + "/index.m3u8")],
                choice: ["a media playlist: stored as it is"], leftOut: [], entry: d + "/index.m3u8", rewritten: nil)
            if manifest.renditions.isEmpty { manifest.renditions = plan.stored }
        case .multivariant(let m):
            plan = try await choose(m, top: top, request: r, client: client, say: say)
            do { try DownloadFolder.sameRenditions(previous, plan.stored, out: r.out) } catch { throw DownloadError(error.description) }
            manifest.renditions = previous?.renditions ?? plan.stored
        }
        manifest.choice = plan.choice
        manifest.leftOut = plan.leftOut
        manifest.entry = plan.entry
        guard case .media(let first) = plan.jobs[0].playlist.body else {
            throw DownloadError("\(plan.jobs[0].url): not a media playlist")
        }
        manifest.live = first.isLive
        if manifest.live, r.duration == nil, first.playlistType != "EVENT" {
            say("hlstui download: \(r.url) is live: capturing until ENDLIST (give --duration S to stop after S seconds of media)")
        }
        let job = DownloadJob(
            request: r, client: client, say: say, manifest: manifest, renditions: plan.jobs, seal: sealing.seal)
        await job.setVariables(top.variables)
        if let p = plan.rewritten { try await job.write(PlaylistWriter.write(p, resolveVariables: true), to: "index.m3u8") }
        for line in manifest.choice { say("chose: \(line)") }
        return job
    }

    /// What a download stores: a job per rendition (the video first), the renditions as the manifest lists them, why each
    /// was chosen and what was left out, the entry playlist, and the multivariant playlist rewritten to the stored ones.
    struct Plan {
        var jobs: [RenditionJob]
        var stored: [StoredRendition]
        var choice: [String]
        var leftOut: [String]
        var entry: String
        var rewritten: Playlist?
    }

    /// Chooses the variant and renditions of `m` to store (`Selector`), reading each chosen media playlist: a variant whose
    /// keys need a CDM is refused and the choice made again without it; a rendition that needs one is left out, said.
    static func choose(
        _ m: MultivariantPlaylist, top: (url: String, playlist: Playlist, variables: [String: String]), request r: DownloadRequest,
        client: UpstreamClient, say: @Sendable (String) -> Void
    ) async throws(DownloadError) -> Plan {
        var leftOut: [String] = []
        var refused: [Int: String] = [:]
        var media: [String: (url: String, playlist: Playlist)] = [:]
        func load(_ uri: String) async throws(DownloadError) -> (url: String, playlist: Playlist) {
            let url = VirtualPlaylists.resolve(uri, against: top.url)
            if let p = media[url] { return p }
            let p = try await fetchPlaylist(url, client: client, variables: top.variables)
            media[url] = (p.url, p.playlist)
            return (p.url, p.playlist)
        }
        var selection: Selection
        while true {
            switch Selector.select(m, r.selection, refused: Set(refused.keys)) {
            case .failure(let e):
                if !refused.isEmpty {
                    throw DownloadError(
                        "\(e.description): every variant that qualifies needs DRM (\(Set(refused.values).sorted().joined(separator: "; ")))"
                    )
                }
                throw DownloadError(e.description)
            case .success(let s): selection = s
            }
            let v = m.variants[selection.variant]
            guard let why = drm(try await load(v.uri).playlist) else { break }
            let line = "\(Selector.describe(v)): cannot be stored: \(why)"
            say(line)
            leftOut.append(line)
            refused[selection.variant] = why
        }
        for w in selection.warnings { say("hlstui download: \(w)") }
        let v = m.variants[selection.variant]
        let vp = try await load(v.uri)
        var folders = RenditionFolders()
        let vd = folders.name(for: vp.url, fallback: "video")
        var jobs = [RenditionJob(dir: vd, url: vp.url, playlist: vp.playlist, segments: [])]
        var stored = [
            StoredRendition(type: "VIDEO", name: Selector.describe(v), language: nil, source: vp.url, playlist: vd + "/index.m3u8")
        ]
        var kept: [Int] = []
        var muxed: Set<Int> = []
        for i in selection.audio + selection.subtitles {
            let rend = m.renditions[i]
            guard let uri = rend.uri else {
                muxed.insert(i)
                continue
            }
            let p = try await load(uri)
            if let why = drm(p.playlist) {
                let line = "\(rend.type.lowercased()) \(rend.name): cannot be stored: \(why)"
                say(line)
                leftOut.append(line)
                continue
            }
            let d = folders.name(for: p.url, fallback: rend.type.lowercased())
            jobs.append(RenditionJob(dir: d, url: p.url, playlist: p.playlist, segments: []))
            stored.append(
                StoredRendition(type: rend.type, name: rend.name, language: rend.language, source: p.url, playlist: d + "/index.m3u8"))
            kept.append(i)
        }
        leftOut += RenditionFolders.notChosen(m, variant: v, kept: kept, muxed: muxed)
        let local = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($1, jobs[$0 + 1].dir + "/index.m3u8") })
        return Plan(
            jobs: jobs, stored: stored,
            choice: selection.reasons + muxed.map { "audio \(m.renditions[$0].name): in the variant's own segments" },
            leftOut: leftOut, entry: "index.m3u8",
            rewritten: OfflineRewrite.multivariant(
                top.playlist, variant: selection.variant, variantURI: vd + "/index.m3u8", renditions: local, keptMuxed: muxed))
    }

    /// Why a media playlist cannot be stored: a key system that needs a CDM (RFC 8216bis §4.4.4.4 KEYFORMAT).
    static func drm(_ p: Playlist) -> String? {
        guard case .media(let m) = p.body else { return nil }
        let systems = Set(m.segments.flatMap(\.keys).map(\.system).filter { ![.clear, .identity].contains($0) })
        guard let s = systems.sorted(by: { $0.rawValue < $1.rawValue }).first else { return nil }
        switch s {
        case .fairPlay, .widevine, .playReady:
            return "\(s.rawValue) needs a CDM this platform does not have"
        case .clearKey:
            return "ClearKey (CENC) keys are licensed, not fetched: not supported"
        default:
            return "an unknown KEYFORMAT"
        }
    }

    /// A playlist fetched and parsed, or one line naming why not.
    /// `variables`: the multivariant playlist's, for a media playlist's EXT-X-DEFINE IMPORT (RFC 8216bis §4.4.2.3).
    static func fetchPlaylist(_ url: String, client: UpstreamClient, variables: [String: String] = [:]) async throws(DownloadError) -> (
        url: String, playlist: Playlist, variables: [String: String]
    ) {
        let r: UpstreamResponse
        do { r = try await client.get(url, whole: true) } catch { throw DownloadError("\(url): \(error.detail)") }
        guard r.head.status == 200 else { throw DownloadError("\(url): \(r.head.statusLine)") }
        let parsed = PlaylistParser.parseLenient(
            String(decoding: r.body, as: UTF8.self), options: ParseOptions(importedVariables: variables, url: r.head.url))
        if let e = parsed.errors.first { throw DownloadError("\(url): line \(e.line ?? 0): \(e.message)") }
        return (r.head.url, parsed.playlist, parsed.variables)
    }

    // MARK: running

    func run() async throws(DownloadError) {
        progress.start(now: Date().timeIntervalSince1970)
        progress.live = manifest.live
        progress.goal = request.duration
        for i in manifest.renditions.indices {
            (manifest.renditions[i].stored, manifest.renditions[i].bytes, manifest.renditions[i].duration) = (0, 0, 0)
        }
        // The progress line every half second, until the download ends either way (the ticker is awaited before `run` returns).
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                await self?.tick()
            }
        }
        let stored: Result<Void, DownloadError>
        do throws(DownloadError) {
            try await store()
            stored = .success(())
        } catch { stored = .failure(error) }
        ticker.cancel()
        await ticker.value
        try stored.get()
        manifest.complete = true
        save()
        try? OfflineRegistry(path: request.registryPath).add(root.standardizedFileURL.path)
        progress.finish(now: Date().timeIntervalSince1970, say: say)
        say(
            "stored \(root.path): \(manifest.renditions.count) rendition(s), \(byteSize(manifest.bytes)); play it with `hlstui \(request.out)`"
        )
    }

    /// Stores every segment: a live stream's as it is captured, a VOD's all at once (keys first, playlists, then media).
    func store() async throws(DownloadError) {
        if manifest.live { return try await capture() }
        for i in renditions.indices {
            guard case .media(let m) = renditions[i].playlist.body else { continue }
            renditions[i].segments = m.segments
            progress.expect(i, segments: m.segments.filter { !$0.gap }.count)
        }
        let pieces = renditions.indices.flatMap { i in renditions[i].segments.map { (i, $0) } }
        try await storeKeys(pieces)
        for i in renditions.indices { try writePlaylist(i, final: true) }
        try await fetchAll(pieces)
    }

    func setVariables(_ v: [String: String]) { variables = v }

    func tick() { progress.draw(now: Date().timeIntervalSince1970, say: say) }

    /// Fetches `pieces` (rendition, segment) with at most `parallel` at once; after the first failure nothing more is started.
    func fetchAll(_ pieces: [(Int, Segment)]) async throws(DownloadError) {
        var queue = pieces.filter { !$0.1.gap }[...]
        // The init sections first, each once (a file already stored is not fetched again).
        var inits: [(Int, MapSection, String)] = []
        for (i, s) in queue {
            guard let m = s.map, !inits.contains(where: { $0.0 == i && $0.1 == m }) else { continue }
            let name = maps[i]?[m] ?? OfflineNames.map(maps[i]?.count ?? 0, m)
            maps[i, default: [:]][m] = name
            inits.append((i, m, name))
        }
        for (i, m, name) in inits {
            let url = VirtualPlaylists.resolve(m.uri, against: renditions[i].url)
            let n = try await Self.fetch(client, url, range: m.byteRange, to: root.appendingPathComponent(renditions[i].dir + "/" + name))
            manifest.renditions[i].bytes += n
        }
        let limit = max(1, request.parallel)
        let client = self.client
        let root = self.root
        let jobs = renditions
        let outcome: Result<Void, DownloadError> = await withTaskGroup(of: Result<(Int, Int, Double), DownloadError>.self) { group in
            var running = 0
            func next() -> Bool {
                guard let (i, s) = queue.popFirst() else { return false }
                let url = VirtualPlaylists.resolve(s.uri, against: jobs[i].url)
                let file = root.appendingPathComponent(jobs[i].dir + "/" + OfflineNames.segment(s))
                group.addTask {
                    do {
                        let n = try await Self.fetch(client, url, range: s.byteRange, to: file)
                        return .success((i, n, s.duration))
                    } catch {
                        return .failure(
                            DownloadError(
                                "\(jobs[i].dir) segment \(s.mediaSequence) (\(url)): \((error as? DownloadError)?.description ?? "\(error)")"
                            ))
                    }
                }
                running += 1
                return true
            }
            while running < limit, next() {}
            // The first failure starts nothing more; what is already in flight finishes and is stored (a body cut by a
            // cancel would only be asked for again by the next run).
            var failure: DownloadError?
            while let r = await group.next() {
                running -= 1
                switch r {
                case .success(let (i, n, d)): done(i, bytes: n, duration: d)
                case .failure(let e): failure = failure ?? e
                }
                while failure == nil, running < limit, next() {}
            }
            return failure.map { .failure($0) } ?? .success(())
        }
        if case .failure(let e) = outcome { throw e }
    }

    func done(_ rendition: Int, bytes: Int, duration: Double) {
        manifest.renditions[rendition].stored += 1
        manifest.renditions[rendition].bytes += bytes
        manifest.renditions[rendition].duration += duration
        progress.add(rendition, bytes: bytes, seconds: duration, now: Date().timeIntervalSince1970)
    }

    /// Fetches `url` (the `range` of it) into `file`, resuming a `.part` left by a cut: bytes already held are asked for with
    /// Range; an origin that answers 200 instead starts the file again. Returns the file's size. Three tries.
    static func fetch(_ client: UpstreamClient, _ url: String, range: ByteRange?, to file: URL) async throws(DownloadError) -> Int {
        let fm = FileManager.default
        if let size = (try? fm.attributesOfItem(atPath: file.path))?[.size] as? Int { return size }
        try? fm.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let part = file.path + ".part"
        var lastError = DownloadError("\(url): not fetched")
        for attempt in 0..<3 {
            if attempt > 0 { try? await Task.sleep(for: .milliseconds(300 << attempt)) }
            if !fm.fileExists(atPath: part) { _ = fm.createFile(atPath: part, contents: nil) }
            guard let handle = FileHandle(forUpdatingAtPath: part) else { throw DownloadError("\(part) cannot be written") }
            defer { try? handle.close() }
            let have = Int((try? handle.seekToEnd()) ?? 0)
            if let range, have >= range.length {
                try? handle.truncate(atOffset: UInt64(range.length))
                break
            }
            var header: String?
            if let range {
                header = "bytes=\(range.offset + have)-\(range.offset + range.length - 1)"
            } else if have > 0 {
                header = "bytes=\(have)-"
            }
            let box = NIOLockedValueBox((skip: 0, keep: Int.max, failed: false))
            do {
                let r = try await client.get(
                    url, range: header, keepBody: 0, retries: 2,
                    onHead: { h in
                        box.withLockedValue { b in
                            if h.status == 200 {
                                // The whole resource: start the file again, and keep only the range asked for.
                                try? handle.truncate(atOffset: 0)
                                b.skip = range?.offset ?? 0
                                b.keep = range?.length ?? Int.max
                            }
                        }
                    },
                    onBody: { buf in
                        box.withLockedValue { b in
                            let drop = min(b.skip, buf.readableBytes)
                            b.skip -= drop
                            let take = min(b.keep, buf.readableBytes - drop)
                            guard take > 0 else { return }
                            // Straight from the network buffer to the file, no copy.
                            buf.withUnsafeReadableBytes { raw in
                                var at = drop
                                while at < drop + take {
                                    let n = Glibc.write(handle.fileDescriptor, raw.baseAddress! + at, drop + take - at)
                                    if n < 0 && errno == EINTR { continue }
                                    guard n > 0 else {
                                        b.failed = true
                                        return
                                    }
                                    at += n
                                }
                            }
                            if b.keep != .max { b.keep -= take }
                        }
                    })
                guard (200..<300).contains(r.head.status) else {
                    // 416 after a resume that already had everything: the part is whole.
                    if r.head.status == 416, have > 0, range == nil { break }
                    throw DownloadError(r.head.statusLine)
                }
                if box.withLockedValue({ $0.failed }) { throw DownloadError("\(part): the disk refused a write") }
                break
            } catch let e as DownloadError {
                lastError = e
                if e.description.hasPrefix("HTTP 4") { throw e }
            } catch let e as UpstreamError {
                lastError = DownloadError(e.detail)
            } catch {
                lastError = DownloadError("\(error)")
            }
            if attempt == 2 { throw lastError }
        }
        let size = Int((try? fm.attributesOfItem(atPath: part))?[.size] as? Int ?? 0)
        if let range, size != range.length {
            throw DownloadError("\(url): \(size) bytes of the \(range.length) the playlist's BYTERANGE names")
        }
        do { try fm.moveItem(atPath: part, toPath: file.path) } catch { throw DownloadError("\(file.path): \(error.localizedDescription)") }
        return size
    }

    // MARK: keys

    /// Fetches, checks and seals every key `pieces` (rendition, segment) name that the folder does not hold yet.
    func storeKeys(_ pieces: [(Int, Segment)]) async throws(DownloadError) {
        var wanted: [(Key, String)] = []
        for (i, s) in pieces {
            for k in s.keys + (s.map?.keys ?? []) where k.method != .none {
                guard let uri = k.uri else { continue }
                let abs = VirtualPlaylists.resolve(uri, against: renditions[i].url)
                if !wanted.contains(where: { $0.1 == abs }) && !manifest.keys.contains(where: { $0.uri == abs }) {
                    wanted.append((k, abs))
                }
            }
        }
        guard !wanted.isEmpty else { return }
        let keysDir = root.appendingPathComponent("keys")
        try? FileManager.default.createDirectory(at: keysDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for (k, uri) in wanted {
            let r: UpstreamResponse
            do { r = try await client.get(uri, secret: true, whole: true) } catch { throw DownloadError("key \(uri): \(error.detail)") }
            guard r.head.status == 200 else { throw DownloadError("key \(uri): \(r.head.statusLine)") }
            let key: [UInt8]
            let repair: KeyRepair?
            do { (key, repair) = try KeyMaterial.decode(r.body) } catch { throw DownloadError("key \(uri): \(error.description)") }
            let fp = KeyMaterial.fingerprint(key)
            if let repair { say("key \(fp): \(repair.rawValue), stored as the 16 bytes it stands for") }
            guard let sealed = seal(key) else { throw DownloadError("key \(fp) could not be sealed") }
            let id = "k\(manifest.keys.count)"
            let file = "keys/\(id).sealed"
            do { try Data(sealed).write(to: root.appendingPathComponent(file), options: .atomic) } catch {
                throw DownloadError("\(file): \(error.localizedDescription)")
            }
            chmod(root.appendingPathComponent(file).path, 0o600)
            var stored = StoredKey(
                uri: uri, file: file, id: id, method: k.method.rawValue, fingerprint: fp, fetched: Date().timeIntervalSince1970)
            stored.storageDuration = request.storageDuration
            stored.playbackDuration = request.playbackDuration
            manifest.keys.append(stored)
            save()
        }
    }

    // MARK: live capture

    /// A live or EVENT stream: each rendition's playlist read again every half target duration, new segments stored as they
    /// appear, from three target durations behind the live edge (RFC 8216bis §6.3.3) until `duration` seconds of media or ENDLIST.
    func capture() async throws(DownloadError) {
        var next: [Int?] = Array(repeating: nil, count: renditions.count)
        var captured = Array(repeating: 0.0, count: renditions.count)
        var ended = Array(repeating: false, count: renditions.count)
        let goal = request.duration ?? .infinity
        var startPDT: Double?
        // A capture that was cut: what its playlists list is kept, and the capture goes on after it.
        for i in renditions.indices {
            let local = root.appendingPathComponent(renditions[i].dir + "/index.m3u8").path
            guard let text = try? String(contentsOfFile: local, encoding: .utf8),
                case .media(let stored) = PlaylistParser.parseLenient(text).playlist.body, let last = stored.segments.last
            else { continue }
            renditions[i].segments = stored.segments
            next[i] = last.mediaSequence + 1
            captured[i] = stored.totalDuration
            if i == 0 { startPDT = stored.segments.first?.effectiveProgramDateTime?.seconds }
            for s in stored.segments where !s.gap {
                let file = root.appendingPathComponent(renditions[i].dir + "/" + OfflineNames.segment(s)).path
                done(i, bytes: (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int ?? 0, duration: s.duration)
            }
            say(
                "hlstui download: \(renditions[i].dir): continuing the capture after segment \(last.mediaSequence) (\(Int(captured[i])) s kept)"
            )
        }
        while ended.contains(false) {
            var target = 6.0
            for i in renditions.indices where !ended[i] {
                let fresh = try await Self.fetchPlaylist(renditions[i].url, client: client, variables: variables)
                guard case .media(let m) = fresh.playlist.body else { throw DownloadError("\(renditions[i].url): not a media playlist") }
                renditions[i].playlist = fresh.playlist
                target = min(target, Double(m.targetDuration ?? 6))
                if next[i] == nil {
                    // The first rendition starts three target durations back; the others where its first segment's PDT falls.
                    var from = max(0, m.segments.count - 3)
                    if i == 0 {
                        startPDT = m.segments[safe: from]?.effectiveProgramDateTime?.seconds
                    } else if let t = startPDT,
                        let j = m.segments.lastIndex(where: { ($0.effectiveProgramDateTime?.seconds ?? .infinity) <= t + 0.05 })
                    {
                        from = j
                    }
                    next[i] = m.segments[safe: from]?.mediaSequence ?? m.mediaSequence
                }
                var new = m.segments.filter { $0.mediaSequence >= next[i]! }
                if let n = new.first, n.mediaSequence > next[i]!, !renditions[i].segments.isEmpty {
                    say(
                        "hlstui download: \(renditions[i].dir): segments \(next[i]!)–\(n.mediaSequence - 1) left the live window before they were stored"
                    )
                    // What is missing is a break in the media: the player is told (RFC 8216bis §4.4.4.3).
                    new[0].discontinuity = true
                }
                var take: [Segment] = []
                for s in new where captured[i] < goal {
                    take.append(s)
                    captured[i] += s.duration
                }
                if let last = take.last { next[i] = last.mediaSequence + 1 }
                renditions[i].segments += take
                progress.expect(i, segments: renditions[i].segments.filter { !$0.gap }.count)
                if captured[i] >= goal || m.endList { ended[i] = true }
                if !take.isEmpty {
                    try await storeKeys(take.map { (i, $0) })
                    try await fetchAll(take.map { (i, $0) })
                }
                try writePlaylist(i, final: ended[i])
            }
            save()
            if ended.contains(false) { try? await Task.sleep(for: .seconds(target / 2)) }
        }
    }

    // MARK: files

    func writePlaylist(_ i: Int, final: Bool) throws(DownloadError) {
        let job = renditions[i]
        var inits = maps[i] ?? [:]
        for s in job.segments {
            if let m = s.map, inits[m] == nil { inits[m] = OfflineNames.map(inits.count, m) }
        }
        maps[i] = inits
        let keyNames = Dictionary(manifest.keys.map { ($0.uri, $0.id) }, uniquingKeysWith: { a, _ in a })
        let p = OfflineRewrite.media(
            job.playlist, segments: job.segments, final: final,
            key: { k in k.uri.flatMap { keyNames[VirtualPlaylists.resolve($0, against: job.url)] }.map { "../keys/\($0).key" } },
            map: { inits[$0] ?? OfflineNames.map(0, $0) })
        manifest.renditions[i].segments = job.segments.count
        try write(PlaylistWriter.write(p, resolveVariables: true), to: job.dir + "/index.m3u8")
    }

    func write(_ text: String, to relative: String) throws(DownloadError) {
        let url = root.appendingPathComponent(relative)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw DownloadError("\(url.path): \(error.localizedDescription)")
        }
    }

    /// Writes the manifest (atomically: a cut leaves the last whole one).
    func save() {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? e.encode(manifest) else { return }
        try? data.write(to: root.appendingPathComponent(DownloadManifest.fileName), options: .atomic)
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
