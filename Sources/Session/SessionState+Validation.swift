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
        defer { lastRead[key] = (url, p.playlist, t) }
        var found: [ContinuityFinding] = []
        if let last = lastRead[key], last.url == url, last.playlist.skip == nil, p.playlist.skip == nil {
            found += LiveContinuity.check(previous: last.playlist, next: p.playlist, elapsed: t - last.t)
        }
        // Said once each by `LiveWatch` itself (a drift once per pair of variants).
        let timed = versionRules(p, key: key, url: url, at: t)
        var facts: [SessionFact] = []
        for f in found + timed {
            guard timed.contains(f) || violationsSaid.insert("\(key) \(f.rule.rawValue) \(f.msn.map(String.init) ?? "")").inserted
            else { continue }
            if violationsSaid.count > 512 { violationsSaid.removeAll() }
            violationCount += 1
            let name = p.rung.map { ladder.rungs[safe: $0]?.name ?? "rung \($0)" } ?? p.rendition ?? "rendition"
            note(f.severity == .error ? .warn : .info, "\(name) playlist: \(f.message) (\(f.rule.rawValue), \(f.section))", t)
            keep(Violation(t: t, source: "\(name) playlist", finding: f))
            facts.append(.violation(rung: p.rung, rendition: p.rendition, finding: f))
        }
        return facts
    }

    /// The rules that time versions, on a live playlist read at `t` (`LiveWatch`: the same as `inspect --media --duration`):
    /// `playlist-stale` (RFC 8216bis §6.3.4), and for a variant, its end against the other variants' last reads by PDT
    /// (§6.2.4). Only the rungs read are compared: every rung of a spliced MPEG-TS ladder, the playing one of fMP4. The
    /// reload rules proper are `continuity`'s; each finding here comes once (a drift once per pair of variants).
    mutating func versionRules(_ p: PlaylistEvent, key: String, url: String, at t: Double) -> [ContinuityFinding] {
        guard judgesVersions, p.playlist.isLive else { return [] }
        let id = "\(key) \(url)"
        let index = versionIndex[id] ?? versionIndex.count
        versionIndex[id] = index
        let name = p.rung.map { ladder.rungs[safe: $0]?.name ?? "rung \($0)" } ?? p.rendition ?? "rendition"
        let found = versions.read(index, name: name, variant: p.rung != nil, at: t, p.playlist)
        versions.forgetFindings()
        let timed: Set<ContinuityFinding.Rule> = [.playlistStale, .variantsDrift, .variantsDiscontinuity]
        return found.filter { timed.contains($0.rule) }
    }

    /// `url` without the query items of RFC 8216bis §6.2.5.1's delivery directives (`_HLS_…`).
    static func withoutDirectives(_ url: String) -> String {
        guard let q = url.firstIndex(of: "?") else { return url }
        let kept = url[url.index(after: q)...].split(separator: "&").filter { !$0.hasPrefix("_HLS_") }
        return String(url[..<q]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }

    /// A segment's media as its first bytes showed it, against its neighbour before it on the same rung: the rules of
    /// `SegmentMediaRules` (docs/VALIDATION.md), each said once per rung, rule and segment.
    mutating func segmentMedia(rung: Int, msn: Int, video: Double?, audio: Double?, independent: Bool?, at t: Double) -> [SessionFact] {
        guard let playlist = media[rung], let i = playlist.segments.firstIndex(where: { $0.mediaSequence == msn }) else { return [] }
        let s = playlist.segments[i]
        let now = SegmentMedia(
            msn: msn, duration: s.duration, discontinuity: s.discontinuity, videoStart: video, audioStart: audio, independent: independent)
        let before = segmentsRead[rung]?[msn - 1]
        segmentsRead[rung, default: [:]][msn] = now
        if let kept = segmentsRead[rung], kept.count > 8 { segmentsRead[rung] = kept.filter { $0.key > msn - 8 } }
        var found: [ContinuityFinding] = []
        if independent == false {
            let declared = declaredIndependent
            found.append(
                ContinuityFinding(
                    .segmentNotIndependent, declared ? .error : .warning, declared ? "RFC 8216bis §4.4.2.1" : "Apple HLS authoring spec",
                    msn: msn,
                    "msn \(msn) opens with a frame that needs an earlier one (no IDR or sync sample first)"
                        + (declared ? "; the playlist declares EXT-X-INDEPENDENT-SEGMENTS" : "")))
        }
        if let a = before {
            if let gap = SegmentMediaRules.jump(from: a, to: now) {
                found.append(
                    ContinuityFinding(
                        .timestampsContinuous, .error, "RFC 8216bis §4.4.4.3", msn: msn,
                        SegmentMediaRules.jumpText(msn: msn, gap: gap, extinf: a.duration)))
            }
            if let (o0, o1) = SegmentMediaRules.offsetMove(from: a, to: now) {
                found.append(
                    ContinuityFinding(
                        .avOffset, .warning, "Apple HLS authoring spec", msn: msn,
                        SegmentMediaRules.offsetText(msn: msn, discontinuity: now.discontinuity, from: o0, to: o1)
                            + (breakAt(msn).map { " (in the break at msn \($0.startMSN))" } ?? "")))
            }
        }
        var facts: [SessionFact] = []
        let name = ladder.rungs[safe: rung]?.name ?? "rung \(rung)"
        for f in found {
            guard violationsSaid.insert("rung \(rung) \(f.rule.rawValue) \(msn)").inserted else { continue }
            if violationsSaid.count > 512 { violationsSaid.removeAll() }
            violationCount += 1
            note(f.severity == .error ? .warn : .info, "\(name) media: \(f.message) (\(f.rule.rawValue), \(f.section))", t)
            keep(Violation(t: t, source: "\(name) media", finding: f))
            facts.append(.violation(rung: rung, rendition: nil, finding: f))
        }
        return facts
    }

    /// A finding kept for the validation panel, the newest `violationLimit`.
    mutating func keep(_ v: Violation) {
        violations.append(v)
        if violations.count > Self.violationLimit { violations.removeFirst(violations.count - Self.violationLimit) }
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
