/// An HLS Interstitial (RFC 8216bis Appendix D): an EXT-X-DATERANGE of CLASS `com.apple.hls.interstitial` that schedules
/// another asset's playback into the primary's timeline, its attributes read and checked.
public struct Interstitial: Sendable, Equatable {
    public static let classID = "com.apple.hls.interstitial"

    public var id: String
    /// When it is scheduled (START-DATE); PRE and POST cues play before and after the primary whatever it says.
    public var startDate: DateTime?
    /// CUE: PRE, POST, ONCE (§4.4.5.1).
    public var cue: Set<String>
    /// X-ASSET-URI: one asset's playlist; X-ASSET-LIST: a JSON list of assets (`AssetList`).
    public var assetURI: String?
    public var assetList: String?
    /// X-RESUME-OFFSET: where the primary resumes, seconds after START-DATE (nil: the interstitial's own playout duration).
    public var resumeOffset: Double?
    /// X-PLAYOUT-LIMIT: at most this many seconds of the interstitial play.
    public var playoutLimit: Double?
    /// X-SNAP (OUT, IN): leave and return at the segment boundaries nearest the start and the resumption point.
    public var snap: Set<String>
    /// X-RESTRICT (SKIP, JUMP): the viewer may not skip it, or seek past it without playing it.
    public var restrict: Set<String>
    /// X-TIMELINE-OCCUPIES (POINT, RANGE) and X-TIMELINE-STYLE (HIGHLIGHT, PRIMARY): how a player draws it on its timeline.
    public var timelineOccupies: String?
    public var timelineStyle: String?
    /// X-CONTENT-MAY-VARY: the asset differs for each viewer (YES, the default).
    public var contentMayVary: Bool
    /// DURATION or PLANNED-DURATION of the date range.
    public var duration: Double?
    /// Index of the segment its tag stood before.
    public var beforeSegment: Int
    public var line: SourceLine

    /// Where the primary resumes after it, seconds after START-DATE: X-RESUME-OFFSET, else the date range's duration (the
    /// asset's own, once known, stands in for it: `AssetList.duration`).
    public var resumesAfter: Double? { resumeOffset ?? duration }

    /// The interstitial a date range is, nil for another CLASS.
    public init?(_ d: DateRange) {
        guard d.classID == Self.classID else { return nil }
        func attr(_ name: String) -> String? { d.extra.first { $0.name == name }?.value }
        func list(_ name: String) -> Set<String> {
            Set((attr(name) ?? "").split(separator: ",").map { String($0).trimmingCharacters() }.filter { !$0.isEmpty })
        }
        id = d.id
        startDate = d.startDate
        cue = Set((d.cue ?? "").split(separator: ",").map { String($0).trimmingCharacters() }.filter { !$0.isEmpty })
        assetURI = attr("X-ASSET-URI")
        assetList = attr("X-ASSET-LIST")
        resumeOffset = attr("X-RESUME-OFFSET").flatMap { parseFloat($0, allowSign: true) }
        playoutLimit = attr("X-PLAYOUT-LIMIT").flatMap { parseFloat($0) }
        snap = list("X-SNAP")
        restrict = list("X-RESTRICT")
        timelineOccupies = attr("X-TIMELINE-OCCUPIES")
        timelineStyle = attr("X-TIMELINE-STYLE")
        contentMayVary = attr("X-CONTENT-MAY-VARY") != "NO"
        duration = d.duration ?? d.plannedDuration
        beforeSegment = d.beforeSegment
        line = d.line
    }

    /// The interstitials a playlist schedules, one per ID (a later tag of the same ID adds to it, §4.4.5.1), in order.
    public static func schedule(_ m: MediaPlaylist) -> [Interstitial] {
        var out: [Interstitial] = []
        for d in m.dateRanges {
            guard let i = Interstitial(d) else { continue }
            if let k = out.firstIndex(where: { $0.id == i.id }) {
                out[k].merge(i)
            } else {
                out.append(i)
            }
        }
        return out
    }

    mutating func merge(_ later: Interstitial) {
        startDate = startDate ?? later.startDate
        if cue.isEmpty { cue = later.cue }
        assetURI = assetURI ?? later.assetURI
        assetList = assetList ?? later.assetList
        resumeOffset = resumeOffset ?? later.resumeOffset
        playoutLimit = playoutLimit ?? later.playoutLimit
        duration = duration ?? later.duration
    }

    /// When it plays, in words: "before the primary", "after the primary", or its START-DATE.
    public var when: String {
        if cue.contains("PRE") { return "before the primary (CUE=PRE)" }
        if cue.contains("POST") { return "after the primary (CUE=POST)" }
        return startDate.map { "at \($0.iso8601)" } ?? "at no START-DATE"
    }

    /// One line of what it schedules and how.
    public var summary: String {
        var parts = ["\(id)  \(when)" + (cue.contains("ONCE") ? " once" : "")]
        if let u = assetURI { parts.append("X-ASSET-URI \(u)") }
        if let l = assetList { parts.append("X-ASSET-LIST \(l)") }
        parts.append(resumeOffset.map { "resumes \(fixed($0, 3)) s after its start" } ?? "resumes after its own duration")
        if let p = playoutLimit { parts.append("plays at most \(fixed(p, 3)) s") }
        if !restrict.isEmpty { parts.append("restricts \(restrict.sorted().joined(separator: ","))") }
        if !snap.isEmpty { parts.append("snaps \(snap.sorted().joined(separator: ","))") }
        if let o = timelineOccupies { parts.append("occupies \(o)") }
        if let s = timelineStyle { parts.append("style \(s)") }
        return parts.joined(separator: ", ")
    }

    /// The interstitial rules (RFC 8216bis Appendix D): each attribute's values, one asset source, a playout limit that
    /// can be played.
    public func diagnostics() -> [Diagnostic] {
        var out: [Diagnostic] = []
        let rule = "RFC 8216bis Appendix D"
        func bad(_ text: String) { out.append(Diagnostic(.error, line: line.number, rule: rule, "interstitial ID=\"\(id)\" \(text)")) }
        for c in cue where !["PRE", "POST", "ONCE"].contains(c) { bad("has CUE value \(c); the values are PRE, POST and ONCE") }
        for s in snap where !["OUT", "IN"].contains(s) { bad("has X-SNAP value \(s); the values are OUT and IN") }
        for r in restrict where !["SKIP", "JUMP"].contains(r) { bad("has X-RESTRICT value \(r); the values are SKIP and JUMP") }
        if let o = timelineOccupies, !["POINT", "RANGE"].contains(o) {
            bad("has X-TIMELINE-OCCUPIES=\(o); the values are POINT and RANGE")
        }
        if let s = timelineStyle, !["HIGHLIGHT", "PRIMARY"].contains(s) {
            bad("has X-TIMELINE-STYLE=\(s); the values are HIGHLIGHT and PRIMARY")
        }
        if let p = playoutLimit, p <= 0 { bad("has X-PLAYOUT-LIMIT=\(fixed(p, 3)): a limit MUST be a positive number of seconds") }
        if let r = resumeOffset, r < 0 {
            bad("has X-RESUME-OFFSET=\(fixed(r, 3)): the primary cannot resume before the interstitial's start")
        }
        return out
    }
}

/// What an X-ASSET-LIST answers (RFC 8216bis Appendix D.2): a JSON object whose ASSETS array lists each asset's URI and
/// DURATION (seconds).
public struct AssetList: Sendable, Equatable {
    public struct Asset: Sendable, Equatable {
        public var uri: String
        public var duration: Double
        public init(uri: String, duration: Double) {
            self.uri = uri
            self.duration = duration
        }
    }

    public var assets: [Asset]
    /// Seconds from asking for the list to having it whole, when it was fetched (a slow list delays the interstitial).
    public var answeredIn: Double?
    public init(assets: [Asset]) { self.assets = assets }

    /// All the assets' playout, seconds.
    public var duration: Double { assets.reduce(0) { $0 + $1.duration } }
}

/// Why an asset list cannot be used, in a few words.
public struct AssetListError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
