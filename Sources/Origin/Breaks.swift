import HLS
import JSONValue
import MediaFormats

/// The origin's breaks (`?cues=N`, docs/ORIGIN.md): a break of two segments every N, by MSN so that every reload of a live
/// window agrees, announced both ways packagers announce them (docs/EVENTS.md) — the CUE-OUT convention's tags with a
/// base64 `splice_insert`, and, where the playlist has PDT, EXT-X-DATERANGE with SCTE35-OUT and at its end SCTE35-IN
/// (hexadecimal, RFC 8216bis §4.4.5.1.1). `plannedOff` seconds are added to the length announced (a plan the segments
/// miss).
enum OriginBreaks {
    static func add(to p: Playlist, every n: Int, plannedOff: Double = 0) -> Playlist {
        guard case .media(var m) = p.body, n >= 3 else { return p }
        Timeline.assignProgramDateTimes(&m.segments)
        let nominal = m.segments.first?.duration ?? Double(m.targetDuration ?? 0)
        var ranges: [DateRange] = []
        for i in m.segments.indices {
            let s = m.segments[i]
            let k = s.mediaSequence % n
            guard k < 3 else { continue }
            let first = s.mediaSequence - k
            // The break's two segments as listed (one may have left the window), else their nominal length.
            func duration(_ msn: Int) -> Double { m.segments.first { $0.mediaSequence == msn }?.duration ?? nominal }
            let length = duration(first) + duration(first + 1)
            let planned = length + plannedOff
            let elapsed = k == 0 ? 0 : (first..<s.mediaSequence).reduce(0) { $0 + duration($1) }
            let id = UInt32(truncatingIfNeeded: first)
            let out = SCTE35.spliceInsert(eventID: id, out: true, pts: nil, breakDuration: UInt64((planned * 90_000).rounded()))
            let start = s.effectiveProgramDateTime?.adding(seconds: -elapsed)
            switch k {
            case 0:
                m.segments[i].leadingLines += [
                    "#EXT-X-CUE-OUT:DURATION=\(formatSeconds(planned))", "#EXT-OATCLS-SCTE35:\(SCTE35.base64Text(out))",
                ]
                if let start {
                    ranges.append(
                        DateRange(
                            id: "break-\(first)", startDate: start, startDateText: start.iso8601, plannedDuration: planned,
                            endOnNext: false,
                            extra: [Attribute(name: "SCTE35-OUT", value: SCTE35.hexText(out), quoted: false)], beforeSegment: i))
                }
            case 1:
                m.segments[i].leadingLines.append(
                    "#EXT-X-CUE-OUT-CONT:ElapsedTime=\(formatSeconds(elapsed)),Duration=\(formatSeconds(planned)),SCTE35=\(SCTE35.base64Text(out))"
                )
            default:
                m.segments[i].leadingLines.append("#EXT-X-CUE-IN")
                if let start, let end = s.effectiveProgramDateTime {
                    let back = SCTE35.spliceInsert(eventID: id, out: false, pts: nil, breakDuration: nil)
                    ranges.append(
                        DateRange(
                            id: "break-\(first)", startDate: start, startDateText: start.iso8601, endDate: end, endDateText: end.iso8601,
                            endOnNext: false, extra: [Attribute(name: "SCTE35-IN", value: SCTE35.hexText(back), quoted: false)],
                            beforeSegment: i))
                }
            }
        }
        m.dateRanges = (m.dateRanges + ranges).sorted { $0.beforeSegment < $1.beforeSegment }
        var out = p
        out.body = .media(m)
        return out
    }
}

/// The origin's chapters (`?chapters=N`, docs/ORIGIN.md): an EXT-X-DATERANGE of CLASS `com.hlstui.chapter` every N segments
/// (by MSN, so every reload of a live window agrees) at its first segment's PDT, with END-ON-NEXT (it ends where the next
/// chapter starts, RFC 8216bis §4.4.5.1) and its title as a client attribute: a date range that is no break, for the
/// timeline and `monitor`'s `cue` events (docs/EVENTS.md).
enum OriginChapters {
    static let classID = "com.hlstui.chapter"

    static func add(to p: Playlist, every n: Int) -> Playlist {
        guard case .media(var m) = p.body, n >= 1 else { return p }
        Timeline.assignProgramDateTimes(&m.segments)
        var ranges: [DateRange] = []
        for (i, s) in m.segments.enumerated() where s.mediaSequence % n == 0 {
            guard let start = s.effectiveProgramDateTime else { continue }
            let k = s.mediaSequence / n
            ranges.append(
                DateRange(
                    id: "chapter-\(k)", classID: classID, startDate: start, startDateText: start.iso8601, endOnNext: true,
                    extra: [Attribute(name: "X-TITLE", value: "chapter \(k)", quoted: true)], beforeSegment: i))
        }
        m.dateRanges = (m.dateRanges + ranges).sorted { $0.beforeSegment < $1.beforeSegment }
        var out = p
        out.body = .media(m)
        return out
    }
}

/// `?interstitials=1` (docs/ORIGIN.md): HLS Interstitials (RFC 8216bis Appendix D) on a media playlist — a pre-roll and a
/// post-roll by X-ASSET-URI, and a mid-roll by X-ASSET-LIST every ten segments (at segment 4 of a VOD) that no viewer may
/// skip or jump past; `?assetlist=empty|bad|slow|404|badasset` spoils what its list answers (`badasset`: its first asset
/// is not there); `?assetseconds=S` makes each asset the VOD's first S seconds (whole segments) rather than all 20.
enum OriginInterstitials {
    static let asset = "/vod-fmp4/v144/index.m3u8"
    /// An asset no origin has: a list's asset that fails.
    static let missingAsset = "/vod-fmp4/v144/missing.m3u8"

    /// The asset, cut to its first `seconds` when given (the VOD's segments are 2 s).
    static func asset(seconds: Double?) -> String {
        seconds.map { asset + "?first=\(max(1, Int(($0 / 2).rounded(.up))))" } ?? asset
    }

    static func add(to p: Playlist, spoil: String?, assetSeconds: Double? = nil) -> Playlist {
        guard case .media(var m) = p.body else { return p }
        Timeline.assignProgramDateTimes(&m.segments)
        guard let first = m.segments.first?.effectiveProgramDateTime, let head = m.segments.first else { return p }
        // Live: the pre-roll's START-DATE stays put as the window slides (an ID's attributes never change, RFC 8216bis
        // §4.4.5.1): the moment of MSN 0, its segments being all as long as the first.
        let preDate = m.isLive ? first.adding(seconds: -Double(head.mediaSequence) * head.duration) : first
        func attr(_ name: String, _ value: String, quoted: Bool = true) -> Attribute { Attribute(name: name, value: value, quoted: quoted) }
        let list =
            "/control/assets.json?n=2" + (spoil.map { "&fault=\($0)" } ?? "") + (assetSeconds.map { "&seconds=\(fixed($0, 0))" } ?? "")
        let asset = Self.asset(seconds: assetSeconds)
        var ranges = [
            DateRange(
                id: "pre", classID: Interstitial.classID, startDate: preDate, startDateText: preDate.iso8601, cue: "PRE", endOnNext: false,
                extra: [attr("X-ASSET-URI", asset), attr("X-RESUME-OFFSET", "0", quoted: false)], beforeSegment: 0)
        ]
        for (i, s) in m.segments.enumerated() where m.isLive ? s.mediaSequence % 10 == 4 : s.mediaSequence == 4 {
            guard let start = s.effectiveProgramDateTime else { continue }
            ranges.append(
                DateRange(
                    id: "mid-\(s.mediaSequence)", classID: Interstitial.classID, startDate: start, startDateText: start.iso8601,
                    plannedDuration: 40, endOnNext: false,
                    extra: [
                        attr("X-ASSET-LIST", list), attr("X-RESUME-OFFSET", "0", quoted: false), attr("X-RESTRICT", "SKIP,JUMP"),
                        attr("X-SNAP", "OUT,IN"), attr("X-TIMELINE-OCCUPIES", "POINT"),
                    ], beforeSegment: i))
        }
        if !m.isLive {
            ranges.append(
                DateRange(
                    id: "post", classID: Interstitial.classID, startDate: first, startDateText: first.iso8601, cue: "POST",
                    endOnNext: false,
                    extra: [attr("X-ASSET-URI", asset)], beforeSegment: m.segments.count))
        }
        m.dateRanges = (m.dateRanges + ranges).sorted { $0.beforeSegment < $1.beforeSegment }
        var out = p
        out.body = .media(m)
        return out
    }

    /// What `/control/assets.json?n=N[&fault=…][&seconds=S]` answers: N times the VOD asset, 20 s each (S when given); `fault`
    /// empty (no assets), bad (not JSON), slow (after 3 s), 404, badasset (the first asset is not there).
    static func list(n: Int, fault: String?, seconds: Double? = nil) -> OriginResponse {
        switch fault {
        case "404": return .text(404, "no such asset list")
        case "bad": return OriginResponse(status: 200, contentType: "application/json", body: Array("{\"ASSETS\": [".utf8), kind: "assets")
        default: break
        }
        let assets: [JSONValue] =
            fault == "empty"
            ? []
            : (0..<max(0, n)).map { i in
                let uri = fault == "badasset" && i == 0 ? missingAsset : asset(seconds: seconds)
                return .object([("URI", .string(uri)), ("DURATION", .double(seconds.map { Double(Int(($0 / 2).rounded(.up)) * 2) } ?? 20))])
            }
        var r = OriginResponse(
            status: 200, contentType: "application/json", body: Array(JSONValue.object([("ASSETS", .array(assets))]).text.utf8),
            kind: "assets")
        if fault == "slow" { r.delayMs = 3000 }
        return r
    }
}
