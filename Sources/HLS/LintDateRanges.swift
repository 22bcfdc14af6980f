/// The EXT-X-DATERANGE rules that span tags (RFC 8216bis §4.4.5.1); those of one tag are the parser's.
extension Lint {
    static func checkDateRanges(_ m: MediaPlaylist, _ d: inout [Diagnostic]) {
        guard let first = m.dateRanges.first else { return }
        // §4.4.5.1: a playlist with a date range MUST hold at least one EXT-X-PROGRAM-DATE-TIME, which dates its segments.
        if !m.segments.contains(where: { $0.programDateTime != nil }) {
            d.append(
                Diagnostic(
                    .error, line: first.line.number, rule: bis("4.4.5.1"),
                    "the playlist has EXT-X-DATERANGE but no EXT-X-PROGRAM-DATE-TIME; it MUST have at least one"))
        }
        // §4.4.5.1: two tags of one ID give every attribute both carry the same value (an update adds, never changes).
        var seen: [String: (attributes: [String: String], line: Int)] = [:]
        var reported: Set<String> = []
        for r in m.dateRanges {
            let attributes = attributeValues(r)
            if let before = seen[r.id] {
                for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
                    guard let was = before.attributes[name], was != value, reported.insert(r.id + "\u{0}" + name).inserted else {
                        continue
                    }
                    d.append(
                        Diagnostic(
                            .error, line: r.line.number, rule: bis("4.4.5.1"),
                            "EXT-X-DATERANGE ID=\"\(r.id)\" changes \(name) from \(was) (line \(before.line)) to \(value); tags of one ID MUST give an attribute the same value"
                        ))
                }
                seen[r.id] = (before.attributes.merging(attributes) { old, _ in old }, before.line)
            } else {
                seen[r.id] = (attributes, r.line.number)
            }
        }
        // §4.4.5.1: date ranges of one CLASS MUST NOT overlap (END-ON-NEXT ranges end where the next of their class starts).
        let spans = ranges(m.dateRanges)
        for (i, a) in spans.enumerated() {
            for b in spans[(i + 1)...] where a.classID == b.classID && a.id != b.id && a.start < b.end && b.start < a.end {
                d.append(
                    Diagnostic(
                        .error, line: b.line, rule: bis("4.4.5.1"),
                        "EXT-X-DATERANGE ID=\"\(b.id)\" overlaps ID=\"\(a.id)\" (line \(a.line)) of the same CLASS=\"\(a.classID)\"; ranges of one CLASS MUST NOT overlap"
                    ))
            }
        }
    }

    /// Every attribute a date range carries, by name, as comparable text (numbers as numbers, so 30 and 30.0 agree).
    static func attributeValues(_ r: DateRange) -> [String: String] {
        var a: [String: String] = [:]
        a["CLASS"] = r.classID
        a["START-DATE"] = r.startDate.map { String($0.seconds) } ?? r.startDateText
        a["END-DATE"] = r.endDate.map { String($0.seconds) } ?? r.endDateText
        a["DURATION"] = r.duration.map { formatSeconds($0) }
        a["PLANNED-DURATION"] = r.plannedDuration.map { formatSeconds($0) }
        a["CUE"] = r.cue
        if r.endOnNext { a["END-ON-NEXT"] = "YES" }
        for x in r.extra { a[x.name] = x.value }
        return a
    }

    /// The classed date ranges whose start and end are known, by ID (an ID's later tags complete its earlier ones).
    static func ranges(_ all: [DateRange]) -> [(id: String, classID: String, start: Double, end: Double, line: Int)] {
        var merged: [(id: String, classID: String?, start: Double?, end: Double?, endOnNext: Bool, line: Int)] = []
        for r in all {
            let end = r.endDate?.seconds ?? both(r.startDate, r.duration).map { $0.seconds + $1 }
            if let k = merged.firstIndex(where: { $0.id == r.id }) {
                merged[k].classID = merged[k].classID ?? r.classID
                merged[k].start = merged[k].start ?? r.startDate?.seconds
                merged[k].end = merged[k].end ?? end
                merged[k].endOnNext = merged[k].endOnNext || r.endOnNext
            } else {
                merged.append((r.id, r.classID, r.startDate?.seconds, end, r.endOnNext, r.line.number))
            }
        }
        // END-ON-NEXT: the range ends at the START-DATE of the next range of its CLASS (the earliest one starting after it).
        for k in merged.indices where merged[k].endOnNext && merged[k].end == nil {
            guard let c = merged[k].classID, let s = merged[k].start else { continue }
            merged[k].end = merged.filter { $0.classID == c && ($0.start ?? -.infinity) > s }.compactMap(\.start).min()
        }
        return merged.compactMap { r in
            guard let c = r.classID, let s = r.start, let e = r.end else { return nil }
            return (r.id, c, s, e, r.line)
        }
    }
}

/// Both values when both are there.
private func both<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
