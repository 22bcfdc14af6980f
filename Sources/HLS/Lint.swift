/// Checks on a parsed playlist that need the whole model: RFC rules across tags, and lint in the spirit of Apple's mediastreamvalidator.
public enum Lint {
    /// Audio-only codec prefixes, to tell audio-only variants (which need no RESOLUTION).
    static let audioCodecs = [
        "mp4a", "ac-3", "ec-3", "ac-4", "opus", "Opus", "flac", "fLaC", "alac", "mp3", ".mp3", "dtsc", "dtse", "dtsh", "dtsl",
    ]

    /// Every finding about `playlist` that the line-by-line parse cannot see.
    public static func check(_ playlist: Playlist) -> [Diagnostic] {
        var d: [Diagnostic] = []
        switch playlist.body {
        case .multivariant(let m): checkMultivariant(m, playlist, &d)
        case .media(let m): checkMedia(m, playlist, &d)
        }
        return d
    }

    static func isAudioOnly(_ v: Variant) -> Bool { isAudioOnly(codecs: v.codecList) }

    static func isAudioOnly(codecs list: [String]) -> Bool {
        !list.isEmpty && list.allSatisfy { c in audioCodecs.contains { c.hasPrefix($0) } }
    }

    static func checkMultivariant(_ m: MultivariantPlaylist, _ p: Playlist, _ d: inout [Diagnostic]) {
        if m.variants.isEmpty && m.iFrameVariants.isEmpty {
            d.append(Diagnostic(.error, line: nil, rule: bis("4.4.6.2"), "the multivariant playlist has no EXT-X-STREAM-INF"))
        }
        // §4.4.6.2: every group a variant names MUST exist with the right TYPE (few groups: a linear scan beats hashing).
        var groups: [(type: String, group: String)] = []
        for r in m.renditions where !groups.contains(where: { $0.type == r.type && $0.group == r.groupID }) {
            groups.append((r.type, r.groupID))
        }
        func checkGroup(_ v: Variant, _ type: String, _ group: String?) {
            guard let group, !groups.contains(where: { $0.type == type && $0.group == group }) else { return }
            d.append(
                Diagnostic(
                    .error, line: v.line.number, rule: bis("4.4.6.2"),
                    "\(type)=\"\(group)\" names no EXT-X-MEDIA group of TYPE=\(type); it MUST match one"))
        }
        for v in m.variants {
            checkGroup(v, "AUDIO", v.audio)
            checkGroup(v, "VIDEO", v.video)
            checkGroup(v, "SUBTITLES", v.subtitles)
            checkGroup(v, "CLOSED-CAPTIONS", v.closedCaptions == "NONE" ? nil : v.closedCaptions)
        }
        // §4.4.6.1: NAME unique and at most one DEFAULT=YES in a group.
        var names: Set<GroupKey> = []
        var defaults: [GroupKey: Int] = [:]
        for r in m.renditions {
            let key = GroupKey(type: r.type, group: r.groupID, name: "")
            if !names.insert(GroupKey(type: r.type, group: r.groupID, name: r.name)).inserted {
                d.append(
                    Diagnostic(
                        .error, line: r.line.number, rule: bis("4.4.6.1"),
                        "two EXT-X-MEDIA in group \"\(r.groupID)\" have NAME=\"\(r.name)\"; NAME MUST be unique in a group"))
            }
            if r.isDefault {
                if let first = defaults[key] {
                    d.append(
                        Diagnostic(
                            .error, line: r.line.number, rule: bis("4.4.6.1"),
                            "group \"\(r.groupID)\" already has DEFAULT=YES on line \(first); at most one rendition in a group may"))
                }
                defaults[key] = r.line.number
            }
        }
        checkRenditions(m, &d)
        for v in m.variants { variantLint(v, &d) }
        for v in m.iFrameVariants { variantLint(v, &d) }
        for k in m.sessionKeys { keyFormatLint(k, &d) }
        if let v = p.version, !p.defines.isEmpty, v < 8 {
            d.append(
                Diagnostic(
                    .error, line: p.defines[0].line.number, rule: bis("7"), "EXT-X-DEFINE needs EXT-X-VERSION 8 or higher (it is \(v))"))
        }
    }

    /// A rendition group (or, with a name, one rendition in it).
    struct GroupKey: Hashable {
        var type: String
        var group: String
        var name: String
    }

    static func variantLint(_ v: Variant, _ d: inout [Diagnostic]) {
        let line = v.line.number
        if v.codecs == nil {
            d.append(
                Diagnostic(
                    .warning, line: line, rule: "lint (RFC 8216bis §4.4.6.2 SHOULD)",
                    "variant \(v.uri) has no CODECS; players must probe it to learn what it holds"))
        }
        if v.resolution == nil && !isAudioOnly(codecs: v.codecList) {
            d.append(
                Diagnostic(
                    .warning, line: line, rule: "lint (RFC 8216bis §4.4.6.2 SHOULD)",
                    "variant \(v.uri) has no RESOLUTION; a resolution cap cannot place it"))
        }
        for c in (mentionsLegacyHEVC(v.codecs) ? v.codecList : []) where c.hasPrefix("hev1") || c.hasPrefix("dvhe") {
            let better = c.hasPrefix("hev1") ? "hvc1" : "dvh1"
            d.append(
                Diagnostic(
                    .warning, line: line, rule: "lint (Apple HLS authoring spec)",
                    "variant \(v.uri) declares \(c); Apple devices need \(better) (parameter sets in the sample entry) for HEVC in HLS"))
        }
        if let a = v.averageBandwidth, let b = v.bandwidth, a > b {
            d.append(Diagnostic(.warning, line: line, rule: bis("4.4.6.2"), "AVERAGE-BANDWIDTH \(a) is above BANDWIDTH \(b), the peak"))
        }
    }

    /// True when a CODECS string may hold `hev1` or `dvhe` (a cheap byte scan before splitting).
    static func mentionsLegacyHEVC(_ codecs: String?) -> Bool {
        guard let codecs else { return false }
        var prev: (UInt8, UInt8, UInt8) = (0, 0, 0)
        for b in codecs.utf8 {
            if (prev == (0x68, 0x65, 0x76) && b == 0x31) || (prev == (0x64, 0x76, 0x68) && b == 0x65) { return true }
            prev = (prev.1, prev.2, b)
        }
        return false
    }

    static func keyFormatLint(_ k: Key, _ d: inout [Diagnostic]) {
        if k.method != .none && !k.system.isKnown {
            d.append(
                Diagnostic(
                    .warning, line: k.line.number, rule: "lint",
                    "KEYFORMAT \"\(k.effectiveKeyFormat)\" is not one hlstui knows (identity, FairPlay, Widevine, PlayReady, ClearKey)"))
        }
    }

    static func checkMedia(_ m: MediaPlaylist, _ p: Playlist, _ d: inout [Diagnostic]) {
        let version = p.version ?? 1
        checkCues(m, &d)
        guard let target = m.targetDuration else {
            d.append(Diagnostic(.error, line: nil, rule: bis("4.4.3.1"), "the media playlist has no EXT-X-TARGETDURATION; it is REQUIRED"))
            return checkSegments(m, p, version, nil, &d)
        }
        checkSegments(m, p, version, target, &d)
        checkLowLatency(m, target: target, &d)
        checkDateRanges(m, &d)
        if let sc = m.serverControl {
            if let skip = sc.canSkipUntil, skip < Double(target) * 6 {
                d.append(
                    Diagnostic(
                        .error, line: nil, rule: bis("4.4.3.8"),
                        "CAN-SKIP-UNTIL \(formatSeconds(skip)) is below six target durations (\(target * 6) s)"))
            }
            if let hb = sc.holdBack, hb < Double(target) * 3 {
                d.append(
                    Diagnostic(
                        .error, line: nil, rule: bis("4.4.3.8"),
                        "HOLD-BACK \(formatSeconds(hb)) is below three target durations (\(target * 3) s)")
                )
            }
            if let phb = sc.partHoldBack, let pt = m.partTarget, phb < pt * 2 {
                d.append(
                    Diagnostic(
                        .error, line: nil, rule: bis("4.4.3.8"),
                        "PART-HOLD-BACK \(formatSeconds(phb)) is below twice the part target (\(formatSeconds(pt * 2)) s)"))
            }
        }
    }

    static func checkSegments(_ m: MediaPlaylist, _ p: Playlist, _ version: Int, _ target: Int?, _ d: inout [Diagnostic]) {
        var hasPDT = false
        var needs = VersionNeeds()
        var anyParts = !m.trailingParts.isEmpty
        var previous: Segment?
        var pdtSpanHasTag = false
        for s in m.segments {
            if s.discontinuity { pdtSpanHasTag = false }
            if let target, (s.duration).rounded() > Double(target) {
                d.append(
                    Diagnostic(
                        .error, line: s.durationLine.number, rule: bis("4.4.3.1"),
                        "segment \(s.mediaSequence): EXTINF \(formatSeconds(s.duration)) s rounds above EXT-X-TARGETDURATION \(target); it MUST be less than or equal"
                    ))
            }
            needs.check(s, in: m, version: version, &d)
            if checkProgramDateTime(s, previous: previous, spanHasTag: &pdtSpanHasTag, in: m, &d) { hasPDT = true }
            if !s.parts.isEmpty { anyParts = true }
            if let pt = m.partTarget {
                for part in s.parts where part.duration > pt + 0.0005 {
                    d.append(
                        Diagnostic(
                            .error, line: part.line.number, rule: bis("4.4.4.9"),
                            "EXT-X-PART DURATION \(formatSeconds(part.duration)) is above PART-TARGET \(formatSeconds(pt))"))
                }
            }
            previous = s
        }
        checkWhole(m, p, hasPDT: hasPDT, anyParts: anyParts, &d)
    }

    /// What the segments' tags need of EXT-X-VERSION (RFC 8216bis §7), each need said once per playlist, and each key's
    /// KEYFORMAT once per tag.
    struct VersionNeeds {
        var float = false, range = false, keyFormat = false, map = false
        var keyLines: Set<Int> = []

        mutating func check(_ s: Segment, in m: MediaPlaylist, version: Int, _ d: inout [Diagnostic]) {
            let line = s.line.number
            if !float, version < 3, s.duration != s.duration.rounded() {
                float = true
                d.append(
                    Diagnostic(
                        .error, line: s.durationLine.number, rule: bis("7"),
                        "floating-point EXTINF durations need EXT-X-VERSION 3 or higher (it is \(version))"))
            }
            if !range, version < 4, s.byteRange != nil || m.iFramesOnly {
                range = true
                d.append(
                    Diagnostic(
                        .error, line: line, rule: bis("7"),
                        "EXT-X-BYTERANGE and EXT-X-I-FRAMES-ONLY need EXT-X-VERSION 4 or higher (it is \(version))"))
            }
            if !map, s.map != nil, version < (m.iFramesOnly ? 5 : 6) {
                map = true
                d.append(
                    Diagnostic(
                        .error, line: line, rule: bis("7"),
                        "EXT-X-MAP needs EXT-X-VERSION \(m.iFramesOnly ? 5 : 6) or higher (it is \(version))"))
            }
            for k in s.keys where !keyLines.contains(k.line.number) {
                keyLines.insert(k.line.number)
                keyFormatLint(k, &d)
                if !keyFormat, version < 5, k.keyFormat != nil || k.keyFormatVersions != nil {
                    keyFormat = true
                    d.append(
                        Diagnostic(
                            .error, line: k.line.number, rule: bis("7"),
                            "KEYFORMAT and KEYFORMATVERSIONS need EXT-X-VERSION 5 or higher (it is \(version))"))
                }
            }
        }
    }

    /// A segment's EXT-X-PROGRAM-DATE-TIME: one that jumps from what the previous segment's PDT and duration give without a
    /// discontinuity, or a discontinuity that leaves its span without one (RFC 8216bis §6.2.1). True when the segment has
    /// the tag; `spanHasTag` follows the span since the last discontinuity.
    static func checkProgramDateTime(
        _ s: Segment, previous: Segment?, spanHasTag: inout Bool, in m: MediaPlaylist, _ d: inout [Diagnostic]
    ) -> Bool {
        guard let pdt = s.programDateTime else {
            if s.discontinuity, m.segments.contains(where: { $0.programDateTime != nil }), s.effectiveProgramDateTime == nil {
                d.append(
                    Diagnostic(
                        .warning, line: s.line.number, rule: bis("6.2.1"),
                        "segment \(s.mediaSequence) starts a discontinuity without EXT-X-PROGRAM-DATE-TIME, so its span has no PDT"))
            }
            return false
        }
        if spanHasTag, let prev = previous, let expected = prev.effectiveProgramDateTime?.adding(seconds: prev.duration), !s.discontinuity {
            let drift = pdt.seconds(since: expected)
            if abs(drift) > 0.5 {
                d.append(
                    Diagnostic(
                        .warning, line: s.programDateTimeLine.number, rule: "lint",
                        "segment \(s.mediaSequence): EXT-X-PROGRAM-DATE-TIME jumps \(formatSeconds(drift)) s from what the previous segment's PDT and duration give, without a discontinuity"
                    ))
            }
        }
        spanHasTag = true
        return true
    }

    /// The rules on a media playlist as a whole, once its segments are read: parts need EXT-X-PART-INF (§4.4.3.7), a live
    /// playlist wants PDT and no GAP at its edge, EXT-X-DEFINE needs version 8 (§7), an ended playlist holds a segment.
    static func checkWhole(_ m: MediaPlaylist, _ p: Playlist, hasPDT: Bool, anyParts: Bool, _ d: inout [Diagnostic]) {
        if anyParts && m.partTarget == nil {
            d.append(
                Diagnostic(
                    .error, line: nil, rule: bis("4.4.3.7"), "the playlist has EXT-X-PART tags but no EXT-X-PART-INF; it is REQUIRED then"))
        }
        if m.isLive && !m.segments.isEmpty && !hasPDT {
            d.append(
                Diagnostic(
                    .warning, line: nil, rule: "lint (Apple HLS authoring spec)",
                    "live playlist without EXT-X-PROGRAM-DATE-TIME: players cannot map it to wall-clock time or sync it with others"))
        }
        if m.isLive, let last = m.segments.last, last.gap {
            d.append(
                Diagnostic(
                    .warning, line: last.line.number, rule: "lint",
                    "segment \(last.mediaSequence) at the live edge is an EXT-X-GAP; players starting at the edge have nothing to play"))
        }
        if let v = p.version, !p.defines.isEmpty, v < 8 {
            d.append(
                Diagnostic(
                    .error, line: p.defines[0].line.number, rule: bis("7"), "EXT-X-DEFINE needs EXT-X-VERSION 8 or higher (it is \(v))"))
        }
        if m.segments.isEmpty && m.endList {
            d.append(Diagnostic(.warning, line: nil, rule: "lint", "the playlist is ended (EXT-X-ENDLIST) but holds no segment"))
        }
    }
}

/// Seconds with up to three decimals and no trailing zeros.
public func formatSeconds(_ s: Double) -> String {
    let r = (s * 1000).rounded() / 1000
    guard r.isFinite, abs(r) < 1e15 else { return String(s) }
    if r == r.rounded() { return String(Int(r)) }
    var t = String(r)
    if let dot = t.firstIndex(of: "."), t.distance(from: dot, to: t.endIndex) > 4 { t = String(t[..<t.index(dot, offsetBy: 4)]) }
    return t
}
