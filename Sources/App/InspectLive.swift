import Foundation
import HLS
import HLSReport

/// One playlist `inspect --media --duration` goes on reading: a variant's or an audio rendition's (its new segments
/// measured), a subtitle rendition's or an I-frame playlist's (held to the reload rules only).
struct LiveWatched {
    enum Slot {
        case variant(Int)
        case audio(Int)
        /// Read for the reload rules only, at this URL.
        case rulesOnly(url: String)
    }

    /// Where its measure stands (the variants' or the audio renditions'), and its index in the report's findings.
    var slot: Slot
    var index: Int
    /// What the findings call it: "#1 720p playlist", "audio English [en] playlist", "media playlist".
    var name: String
    /// A variant's playlist: held against the other variants' (§6.2.4).
    var variant: Bool
    /// What measures its segments (nil: a playlist read for the reload rules only).
    var meter: MediaMeter?
    /// The last version read (nil: not read yet).
    var playlist: MediaPlaylist?

    var url: String {
        switch slot {
        case .rulesOnly(let url): url
        case .variant, .audio: meter?.url ?? ""
        }
    }
}

/// `inspect --media --duration S` on a live stream (docs/VALIDATION.md): for S seconds, each live playlist read again when
/// RFC 8216bis §6.3.4 lets a client (a target duration after a change, half of one after none), every reload held to the
/// reload rules and against the other variants (`LiveWatch`), every segment it adds read and measured as the first window's
/// were.
enum LiveWatching {
    /// `progress`: told after each read how far the watch is, in one line.
    static func watch(
        _ seconds: Double, _ watched: inout [LiveWatched], variables: [String: String], _ req: InspectRequest,
        progress: ((String) -> Void)? = nil
    ) async -> (summary: LiveWatchSummary, errors: [String]) {
        let live = watched.indices.filter { watched[$0].playlist?.isLive ?? true }
        guard !live.isEmpty else { return (LiveWatchSummary(seconds: 0, playlists: 0, reloads: 0, newSegments: 0, findings: []), []) }
        let clock = ContinuousClock()
        let start = clock.now
        func now() -> Double {
            let d = clock.now - start
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
        var w = LiveWatch()
        var newSegments = 0
        var errors: [String] = []
        var said: Set<String> = []
        // Reloads failing, per playlist: since when, how many, the first cause and the latest — one line each outage.
        var failing: [Int: (from: Double, last: Double, tries: Int, first: String, latest: String)] = [:]
        func outage(_ i: Int, back at: Double?) {
            guard let o = failing.removeValue(forKey: i) else { return }
            var line = "\(watched[i].name): reloads failed from \(formatSeconds(o.from)) s"
            if o.tries > 1 { line += " to \(formatSeconds(o.last)) s (\(o.tries) tries)" }
            line += ": \(o.first)" + (o.latest != o.first ? "; the last: \(o.latest)" : "")
            line += at.map { "; read again at \(formatSeconds($0)) s" } ?? "; still failing when the watch ended"
            errors.append(line)
        }
        var retryAt: [Int: Double] = [:]
        var ended: Set<Int> = []
        // Each live playlist read at once first (the window measured may be many seconds old): the watch's first reads.
        var first = Set(live)
        // How long the watch covered: all of it, unless every playlist ended before.
        var covered = seconds
        while !Task.isCancelled {
            var next: (i: Int, at: Double)?
            for i in live where !ended.contains(i) {
                let at = first.contains(i) ? 0 : (retryAt[i] ?? w.due(i) ?? .infinity)
                if next == nil || at < next!.at { next = (i, at) }
            }
            guard let n = next, n.at < seconds else {
                // Every playlist ended: the watch is over. Else nothing is due before the end: it runs to the end.
                if next == nil {
                    covered = now()
                } else if seconds > now() {
                    try? await Task.sleep(for: .seconds(seconds - now()))
                }
                break
            }
            let wait = n.at - now()
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
            guard now() < seconds else { break }
            first.remove(n.i)
            retryAt[n.i] = nil
            let x = watched[n.i]
            let td = Double(x.playlist?.targetDuration ?? 10)
            let at = now()
            func failed(_ why: String) {
                if var o = failing[n.i] {
                    (o.last, o.tries, o.latest) = (at, o.tries + 1, why)
                    failing[n.i] = o
                } else {
                    failing[n.i] = (at, at, 1, why, why)
                }
                retryAt[n.i] = at + td / 2
            }
            let text: String
            do {
                text = try await PlaylistSource.load(x.url, timeout: req.timeout, upstream: req.upstream, client: req.client)
            } catch {
                failed(error.description)
                continue
            }
            guard let p = PlaylistParser.parseLenient(text, options: ParseOptions(importedVariables: variables, url: x.url)).playlist.media
            else {
                failed("not a media playlist")
                continue
            }
            outage(n.i, back: at)
            _ = w.read(n.i, name: x.name, variant: x.variant, at: at, answered: now(), p)
            if var meter = x.meter {
                for s in p.segments where !s.gap {
                    meter.listed.insert(s.mediaSequence)
                    guard s.mediaSequence > (meter.lastMSN ?? Int.min) else { continue }
                    do {
                        try await meter.add(s, req)
                        newSegments += 1
                    } catch {
                        if said.insert("\(n.i) \(error.description)").inserted {
                            errors.append("\(x.name): msn \(s.mediaSequence): \(error.description)")
                        }
                    }
                }
                watched[n.i].meter = meter
            }
            watched[n.i].playlist = p
            if !p.isLive { ended.insert(n.i) }
            if let progress {
                let reloads = live.reduce(0) { $0 + w.reloads($1) }
                let f = w.findings.count
                progress(
                    "live: \(Int(now())) s of \(formatSeconds(seconds)) watched, \(reloads) reload\(reloads == 1 ? "" : "s"), \(newSegments) new segment\(newSegments == 1 ? "" : "s"), \(f) finding\(f == 1 ? "" : "s")"
                )
            }
        }
        for i in failing.keys.sorted() { outage(i, back: nil) }
        let findings = w.findings.map { f in
            let x = watched[f.playlist]
            return MediaFinding(
                rule: f.finding.rule.rawValue, must: f.finding.severity == .error, section: f.finding.section, variant: x.index,
                message: "\(x.name): \(f.finding.message)")
        }
        let summary = LiveWatchSummary(
            seconds: covered, playlists: live.count, reloads: live.reduce(0) { $0 + w.reloads($1) }, newSegments: newSegments,
            findings: findings)
        return (summary, errors.map { "live: " + $0 })
    }
}
