import HLS

/// The human-readable `hlstui inspect` report: ladder, renditions, segment/key/GAP summary and diagnostics.
public enum InspectText {
    /// The report, one line per entry, fitting in `width` columns where it can.
    /// `assetLists`: what each interstitial's X-ASSET-LIST answered, when they were fetched.
    public static func report(
        _ r: ParseResult, source: String, width: Int = 100, assetLists: [String: Result<AssetList, AssetListError>] = [:]
    ) -> String {
        var out: [String] = []
        let p = r.playlist
        out.append(
            "\(source): \(p.isMultivariant ? "multivariant" : "media") playlist, version \(p.version.map(String.init) ?? "1 (no EXT-X-VERSION)")"
                + (p.independentSegments ? ", independent segments" : ""))
        if !p.defines.isEmpty {
            out.append(
                "variables: " + p.defines.map { "\($0.name)=\($0.resolved.map { "\"\($0)\"" } ?? "(undefined)")" }.joined(separator: " "))
        }
        switch p.body {
        case .multivariant(let m): multivariant(m, &out, width: width)
        case .media(let m):
            media(m, &out)
            out += InterstitialsReport.text(m, lists: assetLists)
        }
        out.append("")
        let errors = r.diagnostics.filter { $0.severity == .error }.count
        let warnings = r.diagnostics.filter { $0.severity == .warning }.count
        if r.diagnostics.isEmpty {
            out.append("no problems found")
        } else {
            out.append("diagnostics: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
            for d in r.diagnostics { out.append("  " + d.description) }
        }
        return out.joined(separator: "\n") + "\n"
    }

    static func table(_ rows: [[String]], _ out: inout [String], width: Int) {
        guard let first = rows.first else { return }
        var widths = Array(repeating: 0, count: first.count)
        for row in rows { for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) } }
        for row in rows {
            var line = "  "
            for (i, c) in row.enumerated() {
                line += c + (i == row.count - 1 ? "" : String(repeating: " ", count: widths[i] - c.count + 2))
            }
            out.append(String(line.prefix(max(width, 40))))
        }
    }

    /// Bits per second as `2.5M`, `800k`.
    public static func bitrate(_ b: Int?) -> String {
        guard let b else { return "-" }
        if b >= 1_000_000 { return formatSeconds(Double(b) / 1_000_000) + "M" }
        if b >= 1000 { return formatSeconds((Double(b) / 1000).rounded()) + "k" }
        return String(b)
    }

    static func multivariant(_ m: MultivariantPlaylist, _ out: inout [String], width: Int) {
        out.append("")
        out.append("variants (\(m.variants.count)):")
        var rows = [["#", "bandwidth", "average", "resolution", "fps", "codecs", "audio", "subs", "uri"]]
        for (i, v) in m.variants.enumerated() {
            rows.append([
                String(i), bitrate(v.bandwidth), bitrate(v.averageBandwidth), v.resolution?.description ?? "-",
                v.frameRate.map(formatSeconds) ?? "-", v.codecs ?? "-", v.audio ?? "-", v.subtitles ?? "-", v.uri,
            ])
        }
        table(rows, &out, width: width)
        if !m.iFrameVariants.isEmpty {
            out.append("")
            out.append("I-frame variants (\(m.iFrameVariants.count)):")
            var irows = [["bandwidth", "resolution", "codecs", "uri"]]
            for v in m.iFrameVariants { irows.append([bitrate(v.bandwidth), v.resolution?.description ?? "-", v.codecs ?? "-", v.uri]) }
            table(irows, &out, width: width)
        }
        if !m.renditions.isEmpty {
            out.append("")
            out.append("renditions (\(m.renditions.count)):")
            var rrows = [["type", "group", "name", "lang", "flags", "uri"]]
            for r in m.renditions {
                let flags = [r.isDefault ? "default" : nil, r.autoselect ? "auto" : nil, r.forced ? "forced" : nil].compactMap { $0 }
                    .joined(separator: ",")
                rrows.append([r.type, r.groupID, r.name, r.language ?? "-", flags.isEmpty ? "-" : flags, r.uri ?? r.instreamID ?? "-"])
            }
            table(rrows, &out, width: width)
        }
        if !m.sessionKeys.isEmpty {
            out.append("")
            out.append("session keys: " + m.sessionKeys.map { "\($0.method.rawValue) \($0.system.rawValue)" }.joined(separator: ", "))
        }
        if let c = m.contentSteering { out.append("content steering: \(c.serverURI)" + (c.pathwayID.map { " (pathway \($0))" } ?? "")) }
    }

    static func media(_ m: MediaPlaylist, _ out: inout [String]) {
        out.append("")
        let type = m.playlistType ?? (m.endList ? "ended" : "live")
        out.append(
            "type: \(type)\(m.iFramesOnly ? ", I-frames only" : "")   target duration: \(m.targetDuration.map(String.init) ?? "-") s"
                + (m.partTarget.map { "   part target: \(formatSeconds($0)) s" } ?? ""))
        let first = m.segments.first?.mediaSequence ?? m.mediaSequence
        let last = m.segments.last?.mediaSequence ?? m.mediaSequence
        out.append(
            "segments: \(m.segments.count) (MSN \(first)…\(last)), \(formatSeconds(m.totalDuration)) s"
                + (m.segments.isEmpty
                    ? ""
                    : ", min \(formatSeconds(m.segments.map(\.duration).min() ?? 0)) s, max \(formatSeconds(m.segments.map(\.duration).max() ?? 0)) s")
        )
        let discontinuities = m.segments.filter(\.discontinuity).count
        out.append(
            "discontinuities: \(discontinuities) (sequence \(m.discontinuitySequence)…\(m.segments.last?.discontinuitySequence ?? m.discontinuitySequence))"
        )
        if let f = m.segments.first(where: { $0.effectiveProgramDateTime != nil })?.effectiveProgramDateTime,
            let l = m.segments.last(where: { $0.effectiveProgramDateTime != nil })
        {
            let end = l.effectiveProgramDateTime!.adding(seconds: l.duration)
            out.append("program date-time: \(f.iso8601Milliseconds) … \(end.iso8601Milliseconds)")
        } else {
            out.append("program date-time: none")
        }
        // Keys: each distinct key with the MSN range it covers.
        var keyRuns: [(Key, Int, Int)] = []
        for s in m.segments {
            for k in s.keys {
                if let i = keyRuns.lastIndex(where: { $0.0 == k && $0.0.uri == k.uri && $0.0.iv == k.iv }),
                    keyRuns[i].2 == s.mediaSequence - 1
                {
                    keyRuns[i].2 = s.mediaSequence
                } else {
                    keyRuns.append((k, s.mediaSequence, s.mediaSequence))
                }
            }
        }
        if keyRuns.isEmpty {
            out.append("keys: none (clear)")
        } else {
            out.append("keys (\(keyRuns.count)):")
            for (k, a, b) in keyRuns {
                out.append("  \(k.method.rawValue) \(k.system.rawValue) \(k.uri ?? "-")\(k.iv.map { " IV=\($0)" } ?? "")  MSN \(a)…\(b)")
            }
        }
        let gaps = Timeline.gapRanges(m)
        if gaps.isEmpty {
            out.append("gaps: none")
        } else {
            out.append("gaps (\(gaps.count)):")
            for g in gaps {
                out.append(
                    "  MSN \(g.firstMSN)…\(g.lastMSN)  \(formatSeconds(g.range.start))–\(formatSeconds(g.range.end)) s"
                        + (g.programDateTime.map { "  from \($0.iso8601Milliseconds)" } ?? ""))
            }
        }
        let parts = m.segments.reduce(0) { $0 + $1.parts.count } + m.trailingParts.count
        if parts > 0 || !m.preloadHints.isEmpty {
            out.append("low latency: \(parts) parts, \(m.preloadHints.count) preload hints, \(m.renditionReports.count) rendition reports")
        }
        if let sc = m.serverControl {
            var can: [String] = []
            if sc.canBlockReload { can.append("blocking reload") }
            if let x = sc.canSkipUntil {
                can.append("delta updates beyond \(formatSeconds(x)) s" + (sc.canSkipDateRanges ? " (date ranges too)" : ""))
            }
            if let x = sc.partHoldBack { can.append("PART-HOLD-BACK \(formatSeconds(x)) s") }
            if let x = sc.holdBack { can.append("HOLD-BACK \(formatSeconds(x)) s") }
            if !can.isEmpty { out.append("server control: " + can.joined(separator: ", ")) }
        }
        if let skip = m.skip {
            out.append(
                "delta update: \(skip.skippedSegments) segments skipped (EXT-X-SKIP)"
                    + (skip.recentlyRemovedDateRanges.isEmpty
                        ? "" : ", date ranges removed: \(skip.recentlyRemovedDateRanges.joined(separator: ", "))"))
        }
        if !m.dateRanges.isEmpty {
            out.append(
                "date ranges: \(m.dateRanges.count) (" + m.dateRanges.prefix(5).map(\.id).joined(separator: ", ")
                    + (m.dateRanges.count > 5 ? ", …" : "") + ")")
        }
        out += BreaksReport.text(m)
    }
}
