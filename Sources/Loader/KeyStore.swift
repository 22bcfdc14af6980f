import LoaderCore
import LoaderEvents
import Foundation
import HLS

/// Fetches each key once (deduplicated), ahead of need, with overrides, a key command and repairs (DECISIONS.md, keys are prefetched).
actor KeyStore {
    struct Entry {
        var task: Task<Result<[UInt8], KeyError>, Never>
        var prefetch: Bool
    }

    let client: UpstreamClient
    let overrides: [String: [UInt8]]
    let deadlines: [String: KeyDeadline]
    let command: String?
    let emit: @Sendable (LoaderEvent) -> Void
    let clock: @Sendable () -> Double
    var entries: [String: Entry] = [:]
    /// The URIs in the order they were first asked for: the oldest are forgotten past `limit` (DECISIONS.md, bounded memory).
    var order: [String] = []
    /// Keys kept: far more than a live window or a player's back buffer spans, so only keys the stream left long ago are
    /// forgotten (asked again, one is fetched again).
    let limit: Int

    init(
        client: UpstreamClient, overrides: [String: [UInt8]], deadlines: [String: KeyDeadline] = [:], command: String?,
        emit: @escaping @Sendable (LoaderEvent) -> Void,
        clock: @escaping @Sendable () -> Double, limit: Int = 512
    ) {
        self.limit = limit
        self.client = client
        self.overrides = overrides
        self.deadlines = deadlines
        self.command = command
        self.emit = emit
        self.clock = clock
    }

    /// How many times each URI was fetched (tests assert once).
    var fetchCount: [String: Int] = [:]

    /// The key at `uri`, fetched once; `prefetch` says whether this call is ahead of need, `spreadMs` how long it was held back.
    func key(_ uri: String, method: KeyMethod, keyFormat: String, msns: ClosedRange<Int>?, prefetch: Bool, spreadMs: Double? = nil) async
        -> Result<[UInt8], KeyError>
    {
        if let e = entries[uri] { return await e.task.value }
        let requested = clock()
        fetchCount[uri, default: 0] += 1
        let deadline = deadlines[uri]
        let task = Task { [client, overrides, command, emit, clock] () -> Result<[UInt8], KeyError> in
            var source = "origin"
            /// Reports the outcome as a key event (never with the key's bytes).
            func report(fingerprint: String? = nil, repair: String? = nil, error: String? = nil, failure: KeyFailure? = nil) {
                emit(
                    .key(
                        KeyEvent(
                            uri: uri, method: method, keyFormat: keyFormat, fingerprint: fingerprint, firstMSN: msns?.lowerBound,
                            lastMSN: msns?.upperBound,
                            requested: requested, latencyMs: (clock() - requested) * 1000, prefetch: prefetch, repair: repair,
                            source: source,
                            error: error, failure: failure, spreadMs: spreadMs, expires: deadline?.at, expiresClock: deadline?.clock)))
            }
            var bytes: [UInt8]
            if let o = overrides[uri] {
                source = deadline == nil ? "--key" : "download"
                bytes = o
                if let d = deadline, Date().timeIntervalSince1970 >= d.at {
                    let e = KeyError(
                        description:
                            "key \(KeyMaterial.fingerprint(o).prefix(4))… expired (\(d.clock)) at \(DateTime(seconds: d.at).iso8601)")
                    report(fingerprint: KeyMaterial.fingerprint(o), error: e.description, failure: .expired)
                    return .failure(e)
                }
            } else if let command {
                source = "--key-command"
                do { bytes = try await KeyCommand.run(command, uri) } catch {
                    let e = KeyError(description: "key command failed for \(uri): \(String(describing: error))")
                    report(error: e.description, failure: .command)
                    return .failure(e)
                }
            } else {
                do {
                    let r = try await client.get(uri, secret: true, cache: .key)
                    guard r.head.status == 200 else {
                        let e = KeyError(description: "key \(uri) could not be fetched: \(uri): HTTP \(r.head.status)")
                        report(error: e.description, failure: r.head.status >= 500 ? .status5xx : .status4xx)
                        return .failure(e)
                    }
                    bytes = r.body
                    if r.head.cache == .hit { source = "cache" }
                } catch {
                    let e = KeyError(description: "key \(uri) could not be fetched: \(String(describing: error))")
                    report(error: e.description, failure: .transport)
                    return .failure(e)
                }
            }
            do {
                let (key, repair) = try KeyMaterial.decode(bytes)
                report(fingerprint: KeyMaterial.fingerprint(key), repair: repair?.rawValue)
                if let repair { emit(.diagnostic("key \(uri): \(repair.rawValue) (fingerprint \(KeyMaterial.fingerprint(key)))")) }
                return .success(key)
            } catch {
                report(error: "key \(uri): \(String(describing: error))", failure: .invalid)
                return .failure(KeyError(description: "key \(uri): \(String(describing: error))"))
            }
        }
        entries[uri] = Entry(task: task, prefetch: prefetch)
        order.append(uri)
        forgetOldest()
        return await task.value
    }

    /// Forgets the oldest keys once a quarter more than `limit` have gathered, so the cut is paid once per `limit / 4` keys.
    func forgetOldest() {
        guard order.count > limit + limit / 4 else { return }
        let cut = order.count - limit
        for uri in order[..<cut] {
            entries[uri] = nil
            fetchCount[uri] = nil
        }
        order.removeFirst(cut)
    }

    /// True once `uri` is fetched or being fetched.
    func has(_ uri: String) -> Bool { entries[uri] != nil }
}
