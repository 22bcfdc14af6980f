import HLS
import LoaderEvents

/// The rules the stream is held to while it plays (a feature sub-state, docs/ARCHITECTURE.md; docs/VALIDATION.md): the
/// reload rules between two reads of a playlist, the rules that time its versions, and the rules of each segment's media
/// against its neighbour. Each finding is said once (per playlist, rule and segment), counted, and the newest kept for the
/// validation panel. Its state changes only through its transitions; what is logged and reported is the Session's.
public struct StreamChecks: Sendable {
    /// How many findings were said (docs/VALIDATION.md).
    public private(set) var count = 0
    /// The newest findings (`SessionState.violationLimit`), each with its session time and where: the validation panel's (`V`).
    public private(set) var violations: [Violation] = []
    /// Findings said (rule and segment, per playlist): each once.
    private(set) var said: Set<String> = []
    /// The last playlist read of each rung and rendition (its URL, its body as read and when), for the reload rules.
    private(set) var lastRead: [String: (url: String, playlist: MediaPlaylist, t: Double)] = [:]
    /// `SessionSettings.judgesVersions`: the rules that time versions are applied.
    let judgesVersions: Bool
    /// The live playlists' versions as read, for the stale and drift rules (`LiveWatch`), by index (`versionIndex`).
    private(set) var versions = LiveWatch()
    /// Each playlist's index in `versions`: its rung or rendition and URL (another pathway's copy is another server).
    private(set) var versionIndex: [String: Int] = [:]
    /// The segments' media as their first bytes showed it, by rung and msn (the last few).
    private(set) var segmentsRead: [Int: [Int: SegmentMedia]] = [:]
    /// The top playlist declares EXT-X-INDEPENDENT-SEGMENTS (for every media playlist, RFC 8216bis §4.4.2.1).
    private(set) var declaredIndependent = false

    public init(judgesVersions: Bool = true) { self.judgesVersions = judgesVersions }

    /// The stream opened: whether its top playlist declares EXT-X-INDEPENDENT-SEGMENTS.
    mutating func opened(independentSegments: Bool) { declaredIndependent = independentSegments }

    /// `p`, a playlist read at `t` (`key`: its rung or rendition; `url` without delivery directives; `name` as said): the
    /// reload rules (RFC 8216bis §6.2.1) against the last one read of the same `key` from the same URL, and the rules that
    /// time versions. The findings to say, each counted and kept.
    mutating func reloaded(_ p: PlaylistEvent, key: String, url: String, name: String, at t: Double) -> [ContinuityFinding] {
        defer { lastRead[key] = (url, p.playlist, t) }
        var found: [ContinuityFinding] = []
        if let last = lastRead[key], last.url == url, last.playlist.skip == nil, p.playlist.skip == nil {
            found += LiveContinuity.check(previous: last.playlist, next: p.playlist, elapsed: t - last.t)
        }
        // Said once each by `LiveWatch` itself (a drift once per pair of variants).
        let timed = versionRules(p, key: key, url: url, name: name, at: t)
        let new = found.filter { firstTime("\(key) \($0.rule.rawValue) \($0.msn.map(String.init) ?? "")") } + timed
        for f in new { keep(Violation(t: t, source: "\(name) playlist", finding: f)) }
        return new
    }

    /// The rules that time versions, on a live playlist read at `t` (`LiveWatch`: the same as `inspect --media --duration`):
    /// `playlist-stale` (RFC 8216bis §6.3.4), and for a variant, its end against the other variants' last reads by PDT
    /// (§6.2.4). Only the rungs read are compared: every rung of a spliced MPEG-TS ladder, the playing one of fMP4.
    private mutating func versionRules(_ p: PlaylistEvent, key: String, url: String, name: String, at t: Double) -> [ContinuityFinding] {
        guard judgesVersions, p.playlist.isLive else { return [] }
        let id = "\(key) \(url)"
        let index = versionIndex[id] ?? versionIndex.count
        versionIndex[id] = index
        let found = versions.read(index, name: name, variant: p.rung != nil, at: t, p.playlist)
        versions.forgetFindings()
        let timed: Set<ContinuityFinding.Rule> = [.playlistStale, .variantsDrift, .variantsDiscontinuity]
        return found.filter { timed.contains($0.rule) }
    }

    /// A segment's media as its first bytes showed it (`segment`, of rung `rung` named `name`), against its neighbour before
    /// it on the same rung: the rules of `SegmentMediaRules` (docs/VALIDATION.md). `inBreak` names the break a segment lies
    /// in. The findings to say, each counted and kept.
    mutating func segment(
        _ segment: SegmentMedia, rung: Int, name: String, inBreak: (Int) -> CueBreak?, at t: Double
    ) -> [ContinuityFinding] {
        let msn = segment.msn
        let before = segmentsRead[rung]?[msn - 1]
        segmentsRead[rung, default: [:]][msn] = segment
        if let kept = segmentsRead[rung], kept.count > 8 { segmentsRead[rung] = kept.filter { $0.key > msn - 8 } }
        var found: [ContinuityFinding] = []
        if segment.independent == false {
            let declared = declaredIndependent
            found.append(
                ContinuityFinding(
                    .segmentNotIndependent, declared ? .error : .warning, declared ? "RFC 8216bis §4.4.2.1" : "Apple HLS authoring spec",
                    msn: msn,
                    "msn \(msn) opens with a frame that needs an earlier one (no IDR or sync sample first)"
                        + (declared ? "; the playlist declares EXT-X-INDEPENDENT-SEGMENTS" : "")))
        }
        if let a = before {
            if let gap = SegmentMediaRules.jump(from: a, to: segment) {
                found.append(
                    ContinuityFinding(
                        .timestampsContinuous, .error, "RFC 8216bis §4.4.4.3", msn: msn,
                        SegmentMediaRules.jumpText(msn: msn, gap: gap, extinf: a.duration)))
            }
            if let (o0, o1) = SegmentMediaRules.offsetMove(from: a, to: segment) {
                found.append(
                    ContinuityFinding(
                        .avOffset, .warning, "Apple HLS authoring spec", msn: msn,
                        SegmentMediaRules.offsetText(msn: msn, discontinuity: segment.discontinuity, from: o0, to: o1)
                            + (inBreak(msn).map { " (in the break at msn \($0.startMSN))" } ?? "")))
            }
        }
        let new = found.filter { firstTime("rung \(rung) \($0.rule.rawValue) \(msn)") }
        for f in new { keep(Violation(t: t, source: "\(name) media", finding: f)) }
        return new
    }

    /// A subtitle rule broken in rendition `rendition`: true the first time (once per rendition and rule), counted then.
    mutating func subtitle(_ f: ContinuityFinding, rendition: String) -> Bool {
        guard firstTime("rendition \(rendition) \(f.rule.rawValue)") else { return false }
        count += 1
        return true
    }

    /// Whether the finding `key` names is said for the first time (the memory of what was said bounded).
    private mutating func firstTime(_ key: String) -> Bool {
        guard said.insert(key).inserted else { return false }
        if said.count > 512 { said.removeAll() }
        return true
    }

    /// A finding said: counted, and kept for the validation panel (the newest `SessionState.violationLimit`).
    private mutating func keep(_ v: Violation) {
        count += 1
        violations.append(v)
        if violations.count > SessionState.violationLimit { violations.removeFirst(violations.count - SessionState.violationLimit) }
    }
}

/// The checks as the Session's readers know them.
extension SessionState {
    /// How many findings were said while playing (docs/VALIDATION.md).
    public var violationCount: Int { checks.count }
    public var violations: [Violation] { checks.violations }
}
