/// Writes a playlist model back as text; parse → write → parse gives an equal model (RFC 8216bis §4).
public enum PlaylistWriter {
    /// The playlist as text; with `resolveVariables`, EXT-X-DEFINE tags are left out (the model already holds substituted values).
    public static func write(_ p: Playlist, resolveVariables: Bool = false) -> String {
        var w = Out()
        w.line("#EXTM3U")
        for l in p.headerLines { w.line(l) }
        if let v = p.version { w.line("#EXT-X-VERSION:\(v)") }
        if p.independentSegments { w.line("#EXT-X-INDEPENDENT-SEGMENTS") }
        if let s = p.start {
            var a = [Attribute(name: "TIME-OFFSET", value: decimal(s.timeOffset), quoted: false)]
            if s.precise { a.append(Attribute(name: "PRECISE", value: "YES", quoted: false)) }
            w.tag("EXT-X-START", a + s.extra)
        }
        if !resolveVariables {
            for d in p.defines {
                switch d.source {
                case .value(let v): w.tag("EXT-X-DEFINE", [q("NAME", d.name), q("VALUE", v)])
                case .imported: w.tag("EXT-X-DEFINE", [q("IMPORT", d.name)])
                case .queryParameter: w.tag("EXT-X-DEFINE", [q("QUERYPARAM", d.name)])
                }
            }
        }
        switch p.body {
        case .multivariant(let m): writeMultivariant(m, &w)
        case .media(let m): writeMedia(m, &w)
        }
        return w.text
    }

    struct Out {
        var text = ""
        mutating func line(_ s: String) {
            text += s
            text += "\n"
        }
        mutating func tag(_ name: String, _ attrs: [Attribute]) { line("#\(name):\(AttributeList(attrs).text)") }
    }

    static func q(_ n: String, _ v: String) -> Attribute { Attribute(name: n, value: v, quoted: true) }
    static func e(_ n: String, _ v: String) -> Attribute { Attribute(name: n, value: v, quoted: false) }
    static func yes(_ n: String) -> Attribute { e(n, "YES") }

    static func writeMultivariant(_ m: MultivariantPlaylist, _ w: inout Out) {
        if let c = m.contentSteering {
            var a = [q("SERVER-URI", c.serverURI)]
            if let p = c.pathwayID { a.append(q("PATHWAY-ID", p)) }
            w.tag("EXT-X-CONTENT-STEERING", a + c.extra)
        }
        for s in m.sessionData {
            var a = [q("DATA-ID", s.dataID)]
            if let v = s.value { a.append(q("VALUE", v)) }
            if let u = s.uri { a.append(q("URI", u)) }
            if let f = s.format { a.append(e("FORMAT", f)) }
            if let l = s.language { a.append(q("LANGUAGE", l)) }
            w.tag("EXT-X-SESSION-DATA", a + s.extra)
        }
        for k in m.sessionKeys { w.tag("EXT-X-SESSION-KEY", keyAttributes(k)) }
        for r in m.renditions {
            var a = [e("TYPE", r.type), q("GROUP-ID", r.groupID), q("NAME", r.name)]
            if let v = r.language { a.append(q("LANGUAGE", v)) }
            if let v = r.assocLanguage { a.append(q("ASSOC-LANGUAGE", v)) }
            if let v = r.stableRenditionID { a.append(q("STABLE-RENDITION-ID", v)) }
            if r.isDefault { a.append(yes("DEFAULT")) }
            if r.autoselect { a.append(yes("AUTOSELECT")) }
            if r.forced { a.append(yes("FORCED")) }
            if let v = r.instreamID { a.append(q("INSTREAM-ID", v)) }
            if let v = r.bitDepth { a.append(e("BIT-DEPTH", String(v))) }
            if let v = r.sampleRate { a.append(e("SAMPLE-RATE", String(v))) }
            if let v = r.characteristics { a.append(q("CHARACTERISTICS", v)) }
            if let v = r.channels { a.append(q("CHANNELS", v)) }
            if let v = r.uri { a.append(q("URI", v)) }
            w.tag("EXT-X-MEDIA", a + r.extra)
        }
        for v in m.variants {
            for l in v.leadingLines { w.line(l) }
            w.tag("EXT-X-STREAM-INF", variantAttributes(v, iFrame: false))
            w.line(v.uri)
        }
        for v in m.iFrameVariants { w.tag("EXT-X-I-FRAME-STREAM-INF", variantAttributes(v, iFrame: true)) }
        for l in m.trailingLines { w.line(l) }
    }

    /// The attributes of a variant in RFC order, then the unknown ones.
    static func variantAttributes(_ v: Variant, iFrame: Bool) -> [Attribute] {
        var a: [Attribute] = []
        if let x = v.bandwidth { a.append(e("BANDWIDTH", String(x))) }
        if let x = v.averageBandwidth { a.append(e("AVERAGE-BANDWIDTH", String(x))) }
        if let x = v.score { a.append(e("SCORE", decimal(x))) }
        if let x = v.codecs { a.append(q("CODECS", x)) }
        if let x = v.supplementalCodecs { a.append(q("SUPPLEMENTAL-CODECS", x)) }
        if let x = v.resolution { a.append(e("RESOLUTION", x.description)) }
        if !iFrame, let x = v.frameRate { a.append(e("FRAME-RATE", decimal(x))) }
        if let x = v.hdcpLevel { a.append(e("HDCP-LEVEL", x)) }
        if let x = v.allowedCPC { a.append(q("ALLOWED-CPC", x)) }
        if let x = v.videoRange { a.append(e("VIDEO-RANGE", x)) }
        if let x = v.reqVideoLayout { a.append(q("REQ-VIDEO-LAYOUT", x)) }
        if let x = v.stableVariantID { a.append(q("STABLE-VARIANT-ID", x)) }
        if !iFrame, let x = v.audio { a.append(q("AUDIO", x)) }
        if let x = v.video { a.append(q("VIDEO", x)) }
        if !iFrame, let x = v.subtitles { a.append(q("SUBTITLES", x)) }
        if !iFrame, let x = v.closedCaptions { a.append(x == "NONE" ? e("CLOSED-CAPTIONS", x) : q("CLOSED-CAPTIONS", x)) }
        if let x = v.pathwayID { a.append(q("PATHWAY-ID", x)) }
        if let x = v.programID { a.append(e("PROGRAM-ID", String(x))) }
        if iFrame { a.append(q("URI", v.uri)) }
        return a + v.extra
    }

    static func keyAttributes(_ k: Key) -> [Attribute] {
        var a = [e("METHOD", k.method.rawValue)]
        if let x = k.uri { a.append(q("URI", x)) }
        if let x = k.iv { a.append(e("IV", x)) }
        if let x = k.keyFormat { a.append(q("KEYFORMAT", x)) }
        if let x = k.keyFormatVersions { a.append(q("KEYFORMATVERSIONS", x)) }
        return a + k.extra
    }

    static func range(_ r: ByteRange, implied: Bool = false) -> String { implied ? "\(r.length)" : "\(r.length)@\(r.offset)" }

    static func writeKeys(_ keys: [Key], after previous: [Key], _ w: inout Out) {
        guard keys != previous else { return }
        // A format that stops applying can only be ended by METHOD=NONE, which ends them all.
        let formats = Set(keys.map(\.effectiveKeyFormat))
        if keys.isEmpty || previous.contains(where: { !formats.contains($0.effectiveKeyFormat) }) {
            w.line("#EXT-X-KEY:METHOD=NONE")
            for k in keys { w.tag("EXT-X-KEY", keyAttributes(k)) }
            return
        }
        for k in keys where !previous.contains(k) { w.tag("EXT-X-KEY", keyAttributes(k)) }
    }

    static func writeMap(_ m: MapSection?, after previous: MapSection?, _ w: inout Out) {
        guard let m, m != previous else { return }
        var a = [q("URI", m.uri)]
        if let r = m.byteRange { a.append(q("BYTERANGE", range(r))) }
        w.tag("EXT-X-MAP", a + m.extra)
    }

    static func writePart(_ p: Part, _ w: inout Out) {
        var a = [e("DURATION", decimal(p.duration)), q("URI", p.uri)]
        if p.independent { a.append(yes("INDEPENDENT")) }
        if let r = p.byteRange { a.append(q("BYTERANGE", range(r))) }
        if p.gap { a.append(yes("GAP")) }
        w.tag("EXT-X-PART", a + p.extra)
    }

    static func writeDateRange(_ r: DateRange, _ w: inout Out) {
        var a = [q("ID", r.id)]
        if let x = r.classID { a.append(q("CLASS", x)) }
        if let x = r.startDateText { a.append(q("START-DATE", x)) }
        if let x = r.cue { a.append(q("CUE", x)) }
        if let x = r.endDateText { a.append(q("END-DATE", x)) }
        if let x = r.duration { a.append(e("DURATION", decimal(x))) }
        if let x = r.plannedDuration { a.append(e("PLANNED-DURATION", decimal(x))) }
        if r.endOnNext { a.append(yes("END-ON-NEXT")) }
        w.tag("EXT-X-DATERANGE", a + r.extra)
    }

    static func writeMedia(_ m: MediaPlaylist, _ w: inout Out) {
        if let t = m.targetDuration { w.line("#EXT-X-TARGETDURATION:\(t)") }
        if m.mediaSequenceTagged || m.mediaSequence != 0 { w.line("#EXT-X-MEDIA-SEQUENCE:\(m.mediaSequence)") }
        if m.discontinuitySequenceTagged || m.discontinuitySequence != 0 {
            w.line("#EXT-X-DISCONTINUITY-SEQUENCE:\(m.discontinuitySequence)")
        }
        if let t = m.playlistType { w.line("#EXT-X-PLAYLIST-TYPE:\(t)") }
        if m.iFramesOnly { w.line("#EXT-X-I-FRAMES-ONLY") }
        if let p = m.partTarget { w.tag("EXT-X-PART-INF", [e("PART-TARGET", decimal(p))]) }
        if let s = m.serverControl {
            var a: [Attribute] = []
            if let x = s.canSkipUntil { a.append(e("CAN-SKIP-UNTIL", decimal(x))) }
            if s.canSkipDateRanges { a.append(yes("CAN-SKIP-DATERANGES")) }
            if let x = s.holdBack { a.append(e("HOLD-BACK", decimal(x))) }
            if let x = s.partHoldBack { a.append(e("PART-HOLD-BACK", decimal(x))) }
            if s.canBlockReload { a.append(yes("CAN-BLOCK-RELOAD")) }
            w.tag("EXT-X-SERVER-CONTROL", a + s.extra)
        }
        if let s = m.skip {
            var a = [e("SKIPPED-SEGMENTS", String(s.skippedSegments))]
            if !s.recentlyRemovedDateRanges.isEmpty {
                a.append(q("RECENTLY-REMOVED-DATERANGES", s.recentlyRemovedDateRanges.joined(separator: "\t")))
            }
            w.tag("EXT-X-SKIP", a + s.extra)
        }
        var keys: [Key] = []
        var map: MapSection?
        var bitrate: Int?
        var ranges = m.dateRanges[...]
        for (i, s) in m.segments.enumerated() {
            for l in s.leadingLines { w.line(l) }
            while let r = ranges.first, r.beforeSegment <= i {
                writeDateRange(r, &w)
                ranges = ranges.dropFirst()
            }
            if s.discontinuity { w.line("#EXT-X-DISCONTINUITY") }
            // The keys in effect where EXT-X-MAP appears are the ones that apply to the section (§4.4.4.4): when they are not the
            // segment's, they are written first, then the section, then the segment's keys.
            if s.map != map, let sm = s.map, sm.keys != s.keys {
                writeKeys(sm.keys, after: keys, &w)
                keys = sm.keys
                writeMap(sm, after: map, &w)
                map = sm
            }
            writeKeys(s.keys, after: keys, &w)
            keys = s.keys
            writeMap(s.map, after: map, &w)
            map = s.map
            if let p = s.programDateTime { w.line("#EXT-X-PROGRAM-DATE-TIME:\(p.iso8601)") }
            if s.bitrateTagged || (s.byteRange == nil && s.bitrate != bitrate) {
                if let b = s.bitrate ?? bitrate { w.line("#EXT-X-BITRATE:\(b)") }
            }
            if s.byteRange == nil || s.bitrateTagged { bitrate = s.bitrate ?? bitrate }
            if let r = s.byteRange { w.line("#EXT-X-BYTERANGE:\(range(r, implied: s.byteRangeOffsetImplied))") }
            if s.gap { w.line("#EXT-X-GAP") }
            for p in s.parts { writePart(p, &w) }
            w.line("#EXTINF:\(decimal(s.duration)),\(s.title ?? "")")
            w.line(s.uri)
        }
        for r in ranges { writeDateRange(r, &w) }
        if m.trailingDiscontinuity { w.line("#EXT-X-DISCONTINUITY") }
        if let p = m.trailingProgramDateTime { w.line("#EXT-X-PROGRAM-DATE-TIME:\(p.iso8601)") }
        if let trailing = m.trailingKeys { writeKeys(trailing, after: keys, &w) }
        writeMap(m.trailingMap, after: map, &w)
        for p in m.trailingParts { writePart(p, &w) }
        for h in m.preloadHints {
            var a = [e("TYPE", h.type), q("URI", h.uri)]
            if let x = h.byteRangeStart { a.append(e("BYTERANGE-START", String(x))) }
            if let x = h.byteRangeLength { a.append(e("BYTERANGE-LENGTH", String(x))) }
            w.tag("EXT-X-PRELOAD-HINT", a + h.extra)
        }
        for r in m.renditionReports {
            var a: [Attribute] = []
            if let x = r.uri { a.append(q("URI", x)) }
            if let x = r.lastMSN { a.append(e("LAST-MSN", String(x))) }
            if let x = r.lastPart { a.append(e("LAST-PART", String(x))) }
            w.tag("EXT-X-RENDITION-REPORT", a + r.extra)
        }
        for l in m.trailingLines { w.line(l) }
        if m.endList { w.line("#EXT-X-ENDLIST") }
    }
}

/// A decimal with no exponent and no trailing zeros, exact enough to read back to the same Double.
public func decimal(_ x: Double) -> String {
    if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
    let s = String(x)
    if !s.contains("e") { return s }
    // Shift the decimal point of Swift's shortest representation by its exponent: exact, no rounding.
    let negative = s.hasPrefix("-")
    let body = negative ? String(s.dropFirst()) : s
    let parts = body.split(separator: "e")
    guard parts.count == 2, let exp = Int(parts[1]) else { return s }
    let mantissa = parts[0].split(separator: ".", omittingEmptySubsequences: false)
    let intDigits = String(mantissa[0])
    let fracDigits = mantissa.count > 1 ? String(mantissa[1]) : ""
    var digits = intDigits + fracDigits
    var point = intDigits.count + exp
    if point <= 0 {
        digits = String(repeating: "0", count: -point + 1) + digits
        point = 1
    } else if point > digits.count {
        digits += String(repeating: "0", count: point - digits.count)
    }
    var whole = String(digits.prefix(point))
    var frac = String(digits.dropFirst(point))
    while frac.hasSuffix("0") { frac.removeLast() }
    while whole.count > 1 && whole.hasPrefix("0") { whole.removeFirst() }
    return (negative ? "-" : "") + whole + (frac.isEmpty ? "" : "." + frac)
}
