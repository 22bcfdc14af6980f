/// The low-latency rules of RFC 8216bis that need the whole media playlist: parts against the part target, the server-control
/// attributes parts require, where part-level tags may stand, preload hints and rendition reports.
extension Lint {
    static func checkLowLatency(_ m: MediaPlaylist, target: Int, _ d: inout [Diagnostic]) {
        let withParts = m.segments.contains { !$0.parts.isEmpty } || !m.trailingParts.isEmpty
        if let sc = m.serverControl {
            // §4.4.3.8: CAN-SKIP-DATERANGES REQUIRES CAN-SKIP-UNTIL.
            if sc.canSkipDateRanges && sc.canSkipUntil == nil {
                d.append(
                    Diagnostic(
                        .error, line: nil, rule: bis("4.4.3.8"),
                        "CAN-SKIP-DATERANGES=YES without CAN-SKIP-UNTIL; it REQUIRES a skip boundary"))
            }
        }
        if let pt = m.partTarget {
            // §4.4.3.8: PART-HOLD-BACK is REQUIRED with EXT-X-PART-INF; at least twice the part target (MUST, checked by
            // checkMedia), and SHOULD be three times.
            if let phb = m.serverControl?.partHoldBack {
                if phb >= pt * 2 && phb < pt * 3 - 0.0005 {
                    d.append(
                        Diagnostic(
                            .warning, line: nil, rule: bis("4.4.3.8") + " SHOULD",
                            "PART-HOLD-BACK \(formatSeconds(phb)) is below three part targets (\(formatSeconds(pt * 3)) s): a player there has under three parts of buffer"
                        ))
                }
            } else {
                d.append(
                    Diagnostic(
                        .error, line: nil, rule: bis("4.4.3.8"),
                        "EXT-X-PART-INF without PART-HOLD-BACK in EXT-X-SERVER-CONTROL; it is REQUIRED with parts"))
            }
            if withParts && m.serverControl?.canBlockReload != true && !m.endList {
                d.append(
                    Diagnostic(
                        .warning, line: nil, rule: bis("6.2.5.2"),
                        "live parts without CAN-BLOCK-RELOAD=YES: clients may not block (§6.3.8) and can only poll for new parts"))
            }
            partDurations(m, pt, &d)
        }
        if withParts {
            if m.iFramesOnly {
                d.append(
                    Diagnostic(.warning, line: nil, rule: bis("4.4.4.9") + " SHOULD NOT", "an I-frame playlist with partial segments"))
            }
            partTagOrder(m, &d)
            if !m.endList {
                partsKeptTooLong(m, target: target, &d)
                let all = m.segments.flatMap(\.parts) + m.trailingParts
                if !all.isEmpty && !all.contains(where: \.independent) {
                    d.append(
                        Diagnostic(
                            .warning, line: all[0].line.number, rule: bis("4.4.4.9"),
                            "no EXT-X-PART has INDEPENDENT=YES: a client can join or switch only at whole segments, not near the edge"))
                }
            }
        }
        if m.endList {
            for h in m.preloadHints {
                d.append(
                    Diagnostic(
                        .error, line: nil, rule: bis("4.4.5.3"),
                        "EXT-X-PRELOAD-HINT \(h.uri) in an ended playlist; a playlist with EXT-X-ENDLIST MUST NOT hint"))
            }
        }
        for h in m.preloadHints where h.type == "PART" && m.partTarget == nil {
            d.append(
                Diagnostic(
                    .error, line: nil, rule: bis("4.4.3.7"), "EXT-X-PRELOAD-HINT TYPE=PART \(h.uri) without EXT-X-PART-INF"))
        }
        if let lastMSN = (m.segments.last?.mediaSequence).map({ $0 + (m.trailingParts.isEmpty ? 0 : 1) }) {
            for r in m.renditionReports {
                if let uri = r.uri, uri.contains("://") {
                    d.append(
                        Diagnostic(
                            .error, line: nil, rule: bis("4.4.5.4"),
                            "EXT-X-RENDITION-REPORT URI \(uri) is absolute; it MUST be relative to the media playlist"))
                }
                // A rendition published on the same clock cannot be far ahead of or behind this one.
                if let msn = r.lastMSN, abs(msn - lastMSN) > 1 {
                    d.append(
                        Diagnostic(
                            .warning, line: nil, rule: bis("4.4.5.4"),
                            "EXT-X-RENDITION-REPORT \(r.uri ?? "?") says LAST-MSN=\(msn), this playlist is at \(lastMSN): a client switching there would ask for a stale or future playlist"
                        ))
                }
            }
        }
    }

    /// §4.4.4.9: every part at most the part target; at least 85 % of it unless INDEPENDENT, GAP, followed by a GAP, or the
    /// last part of its parent segment.
    static func partDurations(_ m: MediaPlaylist, _ pt: Double, _ d: inout [Diagnostic]) {
        func check(_ parts: [Part]) {
            for (i, part) in parts.enumerated() {
                let isFinal = i == parts.count - 1
                let beforeGap = i + 1 < parts.count && parts[i + 1].gap
                // The last part of the segment in progress may be its final one: not known yet.
                if part.independent || part.gap || beforeGap || isFinal { continue }
                if part.duration < pt * 0.85 - 0.0005 {
                    d.append(
                        Diagnostic(
                            .error, line: part.line.number, rule: bis("4.4.4.9"),
                            "EXT-X-PART \(part.uri) lasts \(formatSeconds(part.duration)) s, under 85 % of PART-TARGET \(formatSeconds(pt)) (\(formatSeconds(pt * 0.85)) s), and is neither INDEPENDENT nor its segment's last"
                        ))
                }
            }
        }
        for s in m.segments where !s.parts.isEmpty { check(s.parts) }
        check(m.trailingParts)
        for part in m.trailingParts where part.duration > pt + 0.0005 {
            d.append(
                Diagnostic(
                    .error, line: part.line.number, rule: bis("4.4.4.9"),
                    "EXT-X-PART DURATION \(formatSeconds(part.duration)) is above PART-TARGET \(formatSeconds(pt))"))
        }
    }

    /// §4.4.4.9: EXT-X-KEY, EXT-X-MAP and EXT-X-PROGRAM-DATE-TIME applied to a parent segment apply to its first part too,
    /// so they MUST stand before its first EXT-X-PART.
    static func partTagOrder(_ m: MediaPlaylist, _ d: inout [Diagnostic]) {
        for s in m.segments {
            guard let first = s.parts.first?.line.number, first > 0 else { continue }
            if s.programDateTime != nil, s.programDateTimeLine.number > first {
                d.append(
                    Diagnostic(
                        .error, line: s.programDateTimeLine.number, rule: bis("4.4.4.9"),
                        "segment \(s.mediaSequence): EXT-X-PROGRAM-DATE-TIME after its first EXT-X-PART (line \(first)); it MUST come before"
                    ))
            }
            for k in s.keys where k.line.number > first && k.line.number < s.line.number {
                d.append(
                    Diagnostic(
                        .error, line: k.line.number, rule: bis("4.4.4.9"),
                        "segment \(s.mediaSequence): EXT-X-KEY after its first EXT-X-PART (line \(first)); it MUST come before"))
            }
        }
    }

    /// §6.2.2: EXT-X-PART tags SHOULD leave the playlist once more than three target durations from its end.
    static func partsKeptTooLong(_ m: MediaPlaylist, target: Int, _ d: inout [Diagnostic]) {
        var fromEnd = m.trailingParts.reduce(0) { $0 + $1.duration }
        var stale: [Int] = []
        for s in m.segments.reversed() {
            if !s.parts.isEmpty && fromEnd > Double(target) * 3 + 0.0005 { stale.append(s.mediaSequence) }
            fromEnd += s.duration
        }
        guard let oldest = stale.last, let newest = stale.first else { return }
        let which = oldest == newest ? "segment \(oldest) still lists its" : "segments \(oldest)–\(newest) still list their"
        d.append(
            Diagnostic(
                .warning, line: nil, rule: bis("6.2.2") + " SHOULD",
                "\(which) parts more than three target durations (\(target * 3) s) from the end; the playlist grows for nothing"))
    }
}
