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
        var run = LiveWatchRun(seconds: seconds, watched: watched, variables: variables, req: req)
        guard !run.live.isEmpty else { return (LiveWatchSummary(seconds: 0, playlists: 0, reloads: 0, newSegments: 0, findings: []), []) }
        while !Task.isCancelled {
            guard let n = run.next(), n.at < seconds else {
                await run.finish(everyEnded: run.next() == nil)
                break
            }
            let wait = n.at - run.now()
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
            guard run.now() < seconds else { break }
            if await run.reload(n.i), let progress { progress(run.progressLine) }
        }
        watched = run.watched
        return run.summary()
    }
}

/// One watch's state (`LiveWatching.watch`): what each playlist last gave, when each is read next, its outages.
struct LiveWatchRun {
    let seconds: Double
    var watched: [LiveWatched]
    let variables: [String: String]
    let req: InspectRequest
    /// The playlists watched: those not known to have ended.
    let live: [Int]
    let clock = ContinuousClock()
    let start: ContinuousClock.Instant
    var w = LiveWatch()
    var newSegments = 0
    var errors: [String] = []
    /// Measuring errors said once per playlist.
    var said: Set<String> = []
    /// Reloads failing, per playlist: since when, how many, the first cause and the latest — one line each outage.
    var failing: [Int: (from: Double, last: Double, tries: Int, first: String, latest: String)] = [:]
    var retryAt: [Int: Double] = [:]
    var ended: Set<Int> = []
    /// Each live playlist read at once first (the window measured may be many seconds old): the watch's first reads.
    var first: Set<Int>
    /// How long the watch covered: all of it, unless every playlist ended before.
    var covered: Double

    init(seconds: Double, watched: [LiveWatched], variables: [String: String], req: InspectRequest) {
        self.seconds = seconds
        self.watched = watched
        self.variables = variables
        self.req = req
        live = watched.indices.filter { watched[$0].playlist?.isLive ?? true }
        first = Set(live)
        covered = seconds
        start = clock.now
    }

    /// Seconds since the watch began.
    func now() -> Double {
        let d = clock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// The playlist read next and when (nil: every one has ended).
    func next() -> (i: Int, at: Double)? {
        var next: (i: Int, at: Double)?
        for i in live where !ended.contains(i) {
            let at = first.contains(i) ? 0 : (retryAt[i] ?? w.due(i) ?? .infinity)
            if next == nil || at < next!.at { next = (i, at) }
        }
        return next
    }

    /// Nothing is due before the end: the watch runs to it — unless every playlist ended, which ends it now.
    mutating func finish(everyEnded: Bool) async {
        if everyEnded {
            covered = now()
        } else if seconds > now() {
            try? await Task.sleep(for: .seconds(seconds - now()))
        }
    }

    /// Playlist `i` read again: held to the reload rules, its new segments measured; a failure counted into its outage
    /// (false).
    mutating func reload(_ i: Int) async -> Bool {
        first.remove(i)
        retryAt[i] = nil
        let x = watched[i]
        let td = Double(x.playlist?.targetDuration ?? 10)
        let at = now()
        let text: String
        do {
            text = try await PlaylistSource.load(x.url, timeout: req.timeout, upstream: req.upstream, client: req.client)
        } catch {
            failed(i, at: at, td: td, error.description)
            return false
        }
        guard let p = PlaylistParser.parseLenient(text, options: ParseOptions(importedVariables: variables, url: x.url)).playlist.media
        else {
            failed(i, at: at, td: td, "not a media playlist")
            return false
        }
        outage(i, back: at)
        _ = w.read(i, name: x.name, variant: x.variant, at: at, answered: now(), p)
        if var meter = x.meter {
            for s in p.segments where !s.gap {
                meter.listed.insert(s.mediaSequence)
                guard s.mediaSequence > (meter.lastMSN ?? Int.min) else { continue }
                do {
                    try await meter.add(s, req)
                    newSegments += 1
                } catch {
                    if said.insert("\(i) \(error.description)").inserted {
                        errors.append("\(x.name): msn \(s.mediaSequence): \(error.description)")
                    }
                }
            }
            watched[i].meter = meter
        }
        watched[i].playlist = p
        if !p.isLive { ended.insert(i) }
        return true
    }

    /// A read of playlist `i` that failed at `at`: into its outage, read again half a target duration on.
    mutating func failed(_ i: Int, at: Double, td: Double, _ why: String) {
        if var o = failing[i] {
            (o.last, o.tries, o.latest) = (at, o.tries + 1, why)
            failing[i] = o
        } else {
            failing[i] = (at, at, 1, why, why)
        }
        retryAt[i] = at + td / 2
    }

    /// Playlist `i`'s outage, if it had one, ended (`back`: read again then; nil: still failing at the end): one line.
    mutating func outage(_ i: Int, back at: Double?) {
        guard let o = failing.removeValue(forKey: i) else { return }
        var line = "\(watched[i].name): reloads failed from \(formatSeconds(o.from)) s"
        if o.tries > 1 { line += " to \(formatSeconds(o.last)) s (\(o.tries) tries)" }
        line += ": \(o.first)" + (o.latest != o.first ? "; the last: \(o.latest)" : "")
        line += at.map { "; read again at \(formatSeconds($0)) s" } ?? "; still failing when the watch ended"
        errors.append(line)
    }

    /// How far the watch is, in one line.
    var progressLine: String {
        let reloads = live.reduce(0) { $0 + w.reloads($1) }
        let f = w.findings.count
        return
            "live: \(Int(now())) s of \(formatSeconds(seconds)) watched, \(reloads) reload\(reloads == 1 ? "" : "s"), \(newSegments) new segment\(newSegments == 1 ? "" : "s"), \(f) finding\(f == 1 ? "" : "s")"
    }

    /// The watch's summary and its error lines, outages still open said as such.
    mutating func summary() -> (summary: LiveWatchSummary, errors: [String]) {
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
