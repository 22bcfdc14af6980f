import LoaderEvents
import LoaderCore
import Foundation
import HLS
import MediaFormats
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// Keys: prefetched when a playlist names them, spread when they rotate, served to the player.
extension LoaderServer {
    /// Fetches the identity keys the playlist names before the player needs them (key prewarming, DECISIONS.md):
    /// at once before the player's first segment, spread in a window when a live refresh names a new one, and for a VOD only those
    /// within the horizon — the rest when the player gets near (`releaseKeys`).
    func prefetchKeys(_ m: MediaPlaylist, base: String, playlist: PlaylistID? = nil, startMSN: Int? = nil) {
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
        noteCMCD(Resource(upstream: uri, kind: .key))
        if delay > 0 {
            guard table.withLockedValue({ $0.spreading.insert(uri).inserted }) else { return }
            tasks.spawn { [self] in
                guard await !keys.has(uri) else { return }
                await sleep(delay)
                guard !Task.isCancelled else { return }
                _ = await keys.key(uri, method: k.method, keyFormat: k.effectiveKeyFormat, msns: r, prefetch: true, spreadMs: delay * 1000)
            }
        } else {
            tasks.spawn { [self] in _ = await keys.key(uri, method: k.method, keyFormat: k.effectiveKeyFormat, msns: r, prefetch: true) }
        }
    }

    /// Schedules the waiting keys of `playlist` that the player's newest request brought within the horizon, each at a random
    /// moment in the spread window before its first segment is due (DECISIONS.md, keys are prefetched).
    func releaseKeys(near playlist: PlaylistID) {
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
        noteCMCD(res)
        switch await keys.key(res.upstream, method: .sampleAES, keyFormat: "identity", msns: nil, prefetch: false) {
        case .success(let k):
            writer.bytes(200, contentType: "application/octet-stream", k)
            record(.key, res.upstream, rung: res.rung, since: t0, bytes: 16, status: 200, local: true, outcome: .ok)
        case .failure(let e):
            writer.text(502, e.description)
            emit(.diagnostic(e.description))
        }
    }
}
