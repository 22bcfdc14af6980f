import HLS
import JSONValue
import MediaFormats

/// The breaks a media playlist announces (`Cues.breaks`), each SCTE-35 message decoded (docs/EVENTS.md), as `inspect`
/// shows them in text and JSON.
public enum BreaksReport {
    /// One message: decoded, or why it cannot be.
    public static func decoded(_ c: CueBreak.Cue) -> Result<SCTE35.SpliceInfo, SCTE35.DecodeError> { SCTE35.decode(text: c.text) }

    /// The lines of the text report: a heading and, per break, where it starts, planned against actual, then its messages.
    public static func text(_ m: MediaPlaylist) -> [String] {
        let breaks = Cues.breaks(in: m)
        guard !breaks.isEmpty else { return [] }
        var out = ["breaks (\(breaks.count)):"]
        for b in breaks {
            let source: String
            switch b.source {
            case .cueOut: source = "CUE-OUT"
            case .dateRange(let id): source = "DATERANGE \(id)"
            }
            var line = "  \(source) at MSN \(b.startMSN)  \(formatSeconds(b.start)) s"
            if let d = b.startDate { line += "  \(d.iso8601Milliseconds)" }
            line += "  planned " + (b.planned.map { "\(formatSeconds($0)) s" } ?? "–")
            line += ", " + (b.closed ? "lasts " : "so far ") + (b.actual.map { "\(formatSeconds($0)) s" } ?? "–")
            if !b.closed { line += " (no end in the playlist)" }
            out.append(line)
            for c in b.cues {
                switch decoded(c) {
                case .success(let i): out.append("    \(c.tag): \(SCTE35.summary(i))")
                case .failure(let e): out.append("    \(c.tag): cannot decode SCTE-35 (line \(c.line)): \(e)")
                }
            }
        }
        return out
    }

    public static func json(_ m: MediaPlaylist) -> JSONValue {
        .array(
            Cues.breaks(in: m).map { b in
                let source: (String, String?) =
                    switch b.source {
                    case .cueOut: ("cue-out", nil)
                    case .dateRange(let id): ("daterange", id)
                    }
                return .object([
                    ("source", .string(source.0)), ("id", .string(source.1)), ("startMsn", .int(b.startMSN)), ("start", .double(b.start)),
                    ("startDate", .string(b.startDate?.iso8601Milliseconds)), ("planned", .double(b.planned)),
                    ("actual", .double(b.actual)), ("closed", .bool(b.closed)), ("line", .int(b.line)),
                    ("scte35", .array(b.cues.map(cue))),
                ])
            })
    }

    static func cue(_ c: CueBreak.Cue) -> JSONValue {
        var f: [(String, JSONValue)] = [("tag", .string(c.tag)), ("line", .int(c.line))]
        switch decoded(c) {
        case .failure(let e): f.append(("error", .string(e.description)))
        case .success(let i):
            f.append(("summary", .string(SCTE35.summary(i))))
            f.append(("command", .string(i.command.name)))
            f.append(("ptsAdjustment", .int(Int(i.ptsAdjustment))))
            switch i.command {
            case .spliceInsert(let s):
                f += [
                    ("eventId", .int(Int(s.eventID))), ("cancel", .bool(s.cancel)), ("outOfNetwork", .bool(s.outOfNetwork)),
                    ("pts", .int(s.pts.map(Int.init))), ("breakDuration", .double(s.breakDuration.map { Double($0) / 90_000 })),
                    ("autoReturn", .bool(s.autoReturn)),
                ]
            case .timeSignal(let p): f.append(("pts", .int(p.map(Int.init))))
            default: break
            }
            f.append(
                (
                    "segmentations",
                    .array(
                        i.descriptors.compactMap { d -> JSONValue? in
                            guard case .segmentation(let s) = d else { return nil }
                            return .object([
                                ("eventId", .int(Int(s.eventID))), ("cancel", .bool(s.cancel)), ("typeId", .int(s.typeID)),
                                ("type", .string(s.typeName)), ("duration", .double(s.duration.map { Double($0) / 90_000 })),
                                ("upid", .string(s.upidText)), ("segmentNum", .int(s.segmentNum)),
                                ("segmentsExpected", .int(s.segmentsExpected)),
                            ])
                        })
                ))
        }
        return .object(f)
    }
}
