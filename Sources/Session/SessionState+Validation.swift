import HLS
import LoaderEvents

/// The rules the stream is held to while it plays, as the Session applies them (docs/VALIDATION.md; `StreamChecks`).
extension SessionState {
    /// The reload rules (RFC 8216bis §6.2.1): this playlist against the last one read of the same rung or rendition from the
    /// same URL (another pathway's copy is another server), and the rules that time versions (`StreamChecks.reloaded`).
    mutating func continuity(_ p: PlaylistEvent, at t: Double) -> [SessionFact] {
        let key = p.rung.map { "rung \($0)" } ?? "rendition \(p.rendition ?? "?")"
        let name = p.rung.map { ladder.rungs[safe: $0]?.name ?? "rung \($0)" } ?? p.rendition ?? "rendition"
        // The same playlist whatever delivery directives (_HLS_msn, _HLS_part, _HLS_skip) a blocking reload added.
        let found = checks.reloaded(p, key: key, url: Self.withoutDirectives(p.url), name: name, at: t)
        for f in found {
            note(f.severity == .error ? .warn : .info, "\(name) playlist: \(f.message) (\(f.rule.rawValue), \(f.section))", t)
        }
        return found.map { .violation(rung: p.rung, rendition: p.rendition, finding: $0) }
    }

    /// `url` without the query items of RFC 8216bis §6.2.5.1's delivery directives (`_HLS_…`).
    static func withoutDirectives(_ url: String) -> String {
        guard let q = url.firstIndex(of: "?") else { return url }
        let kept = url[url.index(after: q)...].split(separator: "&").filter { !$0.hasPrefix("_HLS_") }
        return String(url[..<q]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }

    /// A segment's media as its first bytes showed it, against its neighbour before it on the same rung: the rules of
    /// `SegmentMediaRules` (`StreamChecks.segment`), each said once per rung, rule and segment.
    mutating func segmentMedia(rung: Int, msn: Int, video: Double?, audio: Double?, independent: Bool?, at t: Double) -> [SessionFact] {
        guard let playlist = media[rung], let i = playlist.segments.firstIndex(where: { $0.mediaSequence == msn }) else { return [] }
        let s = playlist.segments[i]
        let read = SegmentMedia(
            msn: msn, duration: s.duration, discontinuity: s.discontinuity, videoStart: video, audioStart: audio, independent: independent)
        let name = ladder.rungs[safe: rung]?.name ?? "rung \(rung)"
        let state = self
        let found = checks.segment(read, rung: rung, name: name, inBreak: { state.breakAt($0) }, at: t)
        for f in found { note(f.severity == .error ? .warn : .info, "\(name) media: \(f.message) (\(f.rule.rawValue), \(f.section))", t) }
        return found.map { .violation(rung: rung, rendition: nil, finding: $0) }
    }

    /// The break (not another date range) of the playing rung that holds segment `msn`.
    func breakAt(_ msn: Int) -> CueBreak? {
        breaks.breaks.map(\.cue).first { $0.startMSN <= msn && ($0.endMSN.map { msn < $0 } ?? true) }
    }
}

/// A rule the stream broke while it played (docs/VALIDATION.md): when, in which playlist or media, and the finding.
public struct Violation: Sendable, Equatable {
    /// Session time it was found.
    public var t: Double
    /// "360p playlist", "360p media", "audio en playlist", …
    public var source: String
    public var finding: ContinuityFinding
}
