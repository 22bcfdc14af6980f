import HLS
import LoaderEvents

/// The reload rules a live playlist keeps from one reload to the next, as the Session applies them (docs/VALIDATION.md).
extension SessionState {
    /// The reload rules (RFC 8216bis §6.2.1): this playlist against the last one read of the same rung or rendition from the
    /// same URL (another pathway's copy is another server). Each finding said once per playlist, rule and segment.
    mutating func continuity(_ p: PlaylistEvent, at t: Double) -> [SessionFact] {
        let key = p.rung.map { "rung \($0)" } ?? "rendition \(p.rendition ?? "?")"
        // The same playlist whatever delivery directives (_HLS_msn, _HLS_part, _HLS_skip) a blocking reload added.
        let url = Self.withoutDirectives(p.url)
        defer { lastRead[key] = (url, p.playlist) }
        guard let last = lastRead[key], last.url == url, last.playlist.skip == nil, p.playlist.skip == nil else { return [] }
        var facts: [SessionFact] = []
        for f in LiveContinuity.check(previous: last.playlist, next: p.playlist) {
            guard violationsSaid.insert("\(key) \(f.rule.rawValue) \(f.msn.map(String.init) ?? "")").inserted else { continue }
            if violationsSaid.count > 512 { violationsSaid.removeAll() }
            violationCount += 1
            let name = p.rung.map { ladder.rungs[safe: $0]?.name ?? "rung \($0)" } ?? p.rendition ?? "rendition"
            note(f.severity == .error ? .warn : .info, "\(name) playlist: \(f.message) (\(f.rule.rawValue), \(f.section))", t)
            facts.append(.violation(rung: p.rung, rendition: p.rendition, finding: f))
        }
        return facts
    }

    /// `url` without the query items of RFC 8216bis §6.2.5.1's delivery directives (`_HLS_…`).
    static func withoutDirectives(_ url: String) -> String {
        guard let q = url.firstIndex(of: "?") else { return url }
        let kept = url[url.index(after: q)...].split(separator: "&").filter { !$0.hasPrefix("_HLS_") }
        return String(url[..<q]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
}
