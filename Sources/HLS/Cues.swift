/// The breaks a media playlist announces (docs/EVENTS.md): the CUE-OUT convention's EXT-X-CUE-OUT / EXT-X-CUE-OUT-CONT /
/// EXT-X-CUE-IN tags (not in RFC 8216bis; kept in each segment's leading lines) and EXT-X-DATERANGE tags carrying SCTE-35
/// (RFC 8216bis §4.4.5.1.1), each with its planned length against the segments the playlist really puts in it.
public struct CueBreak: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// EXT-X-CUE-OUT … EXT-X-CUE-IN (or a break joined at its EXT-X-CUE-OUT-CONT).
        case cueOut
        /// EXT-X-DATERANGE with SCTE35-OUT, SCTE35-IN or SCTE35-CMD, merged by ID.
        case dateRange(id: String)
    }

    /// A SCTE-35 message as the playlist writes it: where (the tag or attribute) and the text (base64 or 0x-hex).
    public struct Cue: Sendable, Equatable {
        public var tag: String
        public var text: String
        public var line: Int
    }

    public var source: Source
    /// The first segment in the break (its index, `segments.count` when the break starts after the last one) and its MSN.
    public var startSegment: Int
    public var startMSN: Int
    /// Playlist time where it starts (seconds from the first segment listed); for a break joined mid-way, where it started
    /// by its elapsed time.
    public var start: Double
    public var startDate: DateTime?
    /// The length announced: CUE-OUT's duration, DATERANGE's PLANNED-DURATION or DURATION.
    public var planned: Double?
    /// Seconds of segments between its start and its end in this playlist (so far, while `closed` is false).
    public var actual: Double?
    /// Ended in this playlist (CUE-IN, a DATERANGE end); false while the break goes on past the last segment listed.
    public var closed: Bool
    /// The first MSN after the break, once it has ended in the playlist (a CUE-IN's segment).
    public var endMSN: Int?
    /// Joined inside: the playlist starts after its CUE-OUT (its first tag is an EXT-X-CUE-OUT-CONT).
    public var joined = false
    public var cues: [Cue]
    public var line: Int
    /// A break (the CUE-OUT convention, a date range with SCTE-35); false for any other date range (a chapter, a program
    /// event, an interstitial), which `Cues.dateRanges` gives and is followed the same way.
    public var isBreak = true
    /// A date range's CLASS.
    public var classID: String?

    /// What names it across reloads: a date range's ID, else where its CUE-OUT stands.
    public var key: String {
        switch source {
        case .cueOut: return "cue-out@\(startMSN)"
        case .dateRange(let id): return id
        }
    }
}

public enum Cues {
    /// The breaks of `m`, in playlist order.
    public static func breaks(in m: MediaPlaylist) -> [CueBreak] {
        cueOutBreaks(m).breaks + dateRangeBreaks(m)
    }

    /// The CUE-OUT convention's breaks, and what is wrong with its tags (an IN without an OUT, an OUT inside a break).
    static func cueOutBreaks(_ m: MediaPlaylist) -> (breaks: [CueBreak], diagnostics: [Diagnostic]) {
        let starts = Timeline.startTimes(m)
        var r = CueOutReader(m: m)
        let lines =
            m.segments.map { Array(zip($0.leadingLines, $0.leadingLineNumbers)) } + [Array(zip(m.trailingLines, m.trailingLineNumbers))]
        for (i, leading) in lines.enumerated() {
            let at = i < starts.count ? starts[i] : (starts.last ?? 0) + (m.segments.last?.duration ?? 0)
            let date = m.segments[safe: i]?.effectiveProgramDateTime
            for (text, number) in leading {
                let (tag, value) = split(text)
                r.read(tag, value, line: number.number, segment: i, at: at, date: date)
            }
        }
        while let (b, _) = r.open.last {
            if m.endList {
                r.diagnostics.append(
                    Diagnostic(
                        .warning, line: b.line, rule: "cue",
                        "EXT-X-CUE-OUT at msn \(b.startMSN) has no EXT-X-CUE-IN: the playlist ends inside the break"))
            }
            r.close(at: m.segments.count, closed: false)
        }
        var breaks = r.breaks
        breaks.sort { ($0.startSegment, $0.line) < ($1.startSegment, $1.line) }
        // A break the playlist holds whole whose segments differ from its plan by more than a target duration.
        let target = Double(m.targetDuration ?? 0)
        for b in breaks where b.closed {
            guard let p = b.planned, let a = b.actual, target > 0, abs(a - p) > target + 0.001 else { continue }
            r.diagnostics.append(
                Diagnostic(
                    .warning, line: b.line, rule: "cue",
                    "the break at msn \(b.startMSN) is planned \(formatSeconds(p)) s and holds \(formatSeconds(a)) s of segments, more than a target duration (\(formatSeconds(target)) s) apart"
                ))
        }
        return (breaks, r.diagnostics)
    }

    /// The CUE-OUT convention's tags read in playlist order. Open breaks, innermost last: a break may open inside another (a
    /// provider's break inside a network's), each CUE-IN ends the innermost. `before`: for a break joined inside (its
    /// CUE-OUT before the window), the seconds it had run before its first segment listed.
    struct CueOutReader {
        let m: MediaPlaylist
        var breaks: [CueBreak] = []
        var diagnostics: [Diagnostic] = []
        var open: [(cue: CueBreak, before: Double)] = []
        var pendingCues: [CueBreak.Cue] = []

        /// A sliding window may start after a break's CUE-OUT: only a playlist that holds its beginning (VOD, EVENT, or from
        /// MSN 0) shows an IN with no OUT.
        var holdsStart: Bool { m.playlistType == "VOD" || m.playlistType == "EVENT" || m.mediaSequence == 0 }

        /// Ends the innermost open break before segment `i`.
        mutating func close(at i: Int, closed: Bool) {
            guard let (b0, before) = open.popLast() else { return }
            var b = b0
            b.actual = before + m.segments[b.startSegment..<i].reduce(0) { $0 + $1.duration }
            b.closed = closed
            if closed { b.endMSN = m.mediaSequence + i }
            breaks.append(b)
        }

        /// One tag before segment `i` (which starts at `at` s, at `date`).
        mutating func read(_ tag: String, _ value: String, line: Int, segment i: Int, at: Double, date: DateTime?) {
            let msn = m.mediaSequence + i
            switch tag {
            case "EXT-X-CUE-OUT":
                if let outer = open.last {
                    diagnostics.append(
                        Diagnostic(
                            .info, line: line, rule: "cue",
                            "EXT-X-CUE-OUT before msn \(msn) opens a break inside the break from msn \(outer.cue.startMSN); the next EXT-X-CUE-IN ends the inner one"
                        ))
                }
                let b = CueBreak(
                    source: .cueOut, startSegment: i, startMSN: msn, start: at, startDate: date, planned: Cues.cueOutDuration(value),
                    actual: nil, closed: false, cues: pendingCues, line: line)
                open.append((b, 0))
                pendingCues = []
            case "EXT-X-CUE-OUT-CONT":
                let (elapsed, duration, scte) = Cues.cueOutCont(value)
                if open.isEmpty {
                    // Joined inside a break (a live window that starts after its CUE-OUT): it began `elapsed` earlier.
                    let e = elapsed ?? 0
                    var b = CueBreak(
                        source: .cueOut, startSegment: i, startMSN: msn, start: at - e, startDate: date?.adding(seconds: -e),
                        planned: duration, actual: nil, closed: false, cues: pendingCues, line: line)
                    b.joined = true
                    open.append((b, e))
                    pendingCues = []
                }
                if let scte { open[open.count - 1].cue.cues.append(CueBreak.Cue(tag: tag, text: scte, line: line)) }
            case "EXT-X-CUE-IN":
                if open.isEmpty && holdsStart {
                    diagnostics.append(
                        Diagnostic(
                            .warning, line: line, rule: "cue", "EXT-X-CUE-IN before msn \(msn) ends no break (no EXT-X-CUE-OUT before it)"))
                }
                close(at: i, closed: true)
            case "EXT-OATCLS-SCTE35", "EXT-X-SCTE35", "EXT-SCTE35":
                let payload = Cues.scteText(value)
                guard !payload.isEmpty else { return }
                let cue = CueBreak.Cue(tag: tag, text: payload, line: line)
                if open.isEmpty { pendingCues.append(cue) } else { open[open.count - 1].cue.cues.append(cue) }
            default: return
            }
        }
    }

    /// The playlist's other date ranges — no tag of their ID carries SCTE-35 (chapters, program events, interstitials, any
    /// CLASS) — merged by ID and followed as breaks are (RFC 8216bis §4.4.5.1); one with END-ON-NEXT ends where the next of
    /// its CLASS starts (§4.4.5.1).
    public static func dateRanges(in m: MediaPlaylist) -> [CueBreak] {
        var ranges = dateRangeBreaks(m, breaks: false)
        let next = Set(m.dateRanges.filter(\.endOnNext).map(\.id))
        for i in ranges.indices where next.contains(ranges[i].key) && !ranges[i].closed {
            guard let start = ranges[i].startDate, let c = ranges[i].classID else { continue }
            let later = ranges.compactMap { r in r.classID == c ? r.startDate.map { $0.seconds(since: start) } : nil }.filter { $0 > 0 }
            if let d = later.min() {
                ranges[i].actual = d
                ranges[i].closed = true
            }
        }
        return ranges
    }

    /// EXT-X-DATERANGE tags carrying SCTE-35 (`breaks`), or those of the IDs none of whose tags does, merged by ID (RFC
    /// 8216bis §4.4.5.1.1).
    static func dateRangeBreaks(_ m: MediaPlaylist, breaks: Bool = true) -> [CueBreak] {
        let starts = Timeline.startTimes(m)
        let firstPDT = m.segments.first?.effectiveProgramDateTime
        var order: [String] = []
        var byID: [String: CueBreak] = [:]
        let scteNames: Set<String> = ["SCTE35-OUT", "SCTE35-IN", "SCTE35-CMD"]
        let scteIDs = Set(m.dateRanges.filter { $0.extra.contains { scteNames.contains($0.name) } }.map(\.id))
        for r in m.dateRanges {
            let scte = r.extra.filter { scteNames.contains($0.name) }
            guard scteIDs.contains(r.id) == breaks else { continue }
            let cues = scte.map { CueBreak.Cue(tag: $0.name, text: $0.value, line: r.line.number) }
            // Where START-DATE falls: its segment, or seconds before the first segment listed when the window has moved past it.
            let interstitial = r.classID == Interstitial.classID
            let cue = Set((r.cue ?? "").split(separator: ",").map { String($0).trimmingSpaces })
            var start =
                r.startDate.flatMap { d in Timeline.playlistTime(at: d, in: m) ?? firstPDT.map { d.seconds(since: $0) } }
                ?? starts[safe: r.beforeSegment] ?? 0
            // An interstitial cued PRE or POST plays before or after the primary, whatever its START-DATE (RFC 8216bis
            // Appendix D): on the primary's timeline, its start or its end.
            if interstitial, cue.contains("PRE") { start = 0 }
            if interstitial, cue.contains("POST"), m.endList { start = m.totalDuration }
            let segment = Timeline.segmentIndex(at: max(0, start), in: m) ?? r.beforeSegment
            var b =
                byID[r.id]
                ?? CueBreak(
                    source: .dateRange(id: r.id), startSegment: segment, startMSN: m.mediaSequence + segment, start: start,
                    startDate: r.startDate, planned: nil, actual: nil, closed: false, cues: [], line: r.line.number)
            if byID[r.id] == nil { order.append(r.id) }
            b.isBreak = breaks
            b.classID = b.classID ?? r.classID
            b.cues += cues
            b.planned = b.planned ?? r.plannedDuration ?? r.duration
            // An interstitial takes no time of the primary's unless it says it occupies a range (X-TIMELINE-OCCUPIES): a point.
            if interstitial, r.extra.first(where: { $0.name == "X-TIMELINE-OCCUPIES" })?.value != "RANGE" {
                if cue.contains("PRE") { b.startDate = firstPDT }
                if cue.contains("POST"), m.endList {
                    b.startDate = m.segments.last.flatMap { s in s.effectiveProgramDateTime?.adding(seconds: s.duration) }
                }
                b.actual = 0
                b.closed = true
            } else if let d = r.duration {
                b.actual = d
                b.closed = true
            } else if let end = r.endDate, let s = b.startDate {
                b.actual = end.seconds(since: s)
                b.closed = true
            } else if scte.contains(where: { $0.name == "SCTE35-IN" }) {
                b.closed = true
            }
            byID[r.id] = b
        }
        // One still open: how long it has run by the end of the playlist's last segment.
        let end = m.segments.last.flatMap { s in s.effectiveProgramDateTime?.adding(seconds: s.duration) }
        return order.compactMap { id in
            guard var b = byID[id] else { return nil }
            if !b.closed, b.actual == nil, let s = b.startDate, let e = end, e.seconds(since: s) >= 0 { b.actual = e.seconds(since: s) }
            return b
        }
    }

    /// The tag name and what follows its colon.
    static func split(_ line: String) -> (String, String) {
        let body = line.hasPrefix("#") ? line.dropFirst() : Substring(line)
        guard let colon = body.firstIndex(of: ":") else { return (String(body).trimmingSpaces, "") }
        return (String(body[..<colon]).trimmingSpaces, String(body[body.index(after: colon)...]).trimmingSpaces)
    }

    /// `15`, `15.000`, `DURATION=15`, `DURATION=15,…`.
    static func cueOutDuration(_ v: String) -> Double? {
        if let d = attribute("DURATION", in: v) { return Double(d) }
        return Double(v.split(separator: ",").first.map(String.init)?.trimmingSpaces ?? "")
    }

    /// `ElapsedTime=5.9,Duration=25,SCTE35=…` or `10/120`: elapsed, duration, the SCTE-35 payload.
    static func cueOutCont(_ v: String) -> (Double?, Double?, String?) {
        if let slash = v.firstIndex(of: "/"), !v.contains("=") || v.firstIndex(of: "=")! > slash {
            let elapsed = Double(String(v[..<slash]).trimmingSpaces)
            let rest = v[v.index(after: slash)...].split(separator: ",").first.map(String.init) ?? ""
            return (elapsed, Double(rest.trimmingSpaces), nil)
        }
        return (
            attribute("ElapsedTime", in: v).flatMap(Double.init), attribute("Duration", in: v).flatMap(Double.init),
            attribute("SCTE35", in: v)
        )
    }

    /// `CUE="…"` or the bare payload.
    static func scteText(_ v: String) -> String {
        if let c = attribute("CUE", in: v) { return c }
        return v.trimmingSpaces.trimmingQuotes
    }

    /// The value of `name=` in a comma-separated list (quotes removed; a base64 value keeps its `=` padding).
    static func attribute(_ name: String, in v: String) -> String? {
        for part in v.split(separator: ",") {
            let p = String(part).trimmingSpaces
            guard let eq = p.firstIndex(of: "="), p[..<eq].caseInsensitiveEquals(name) else { continue }
            return String(p[p.index(after: eq)...]).trimmingQuotes
        }
        return nil
    }
}

extension Lint {
    /// The CUE-OUT convention's checks (docs/EVENTS.md): an IN without an OUT, an OUT with no IN in an ended playlist, a
    /// break whose segments differ from its plan by more than a target duration.
    static func checkCues(_ m: MediaPlaylist, _ d: inout [Diagnostic]) {
        d += Cues.cueOutBreaks(m).diagnostics
    }
}

extension StringProtocol {
    var trimmingQuotes: String {
        hasPrefix("\"") && hasSuffix("\"") && count >= 2 ? String(dropFirst().dropLast()) : String(self)
    }

    func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
