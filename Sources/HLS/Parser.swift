/// What the parser needs from outside the playlist text.
public struct ParseOptions: Sendable {
    /// Stop at the first error (throwing it) instead of reporting and going on.
    public var strict: Bool
    /// Variables of the multivariant playlist, for EXT-X-DEFINE IMPORT (RFC 8216bis §4.4.2.3).
    public var importedVariables: [String: String]
    /// The playlist's URL, for EXT-X-DEFINE QUERYPARAM.
    public var url: String?
    /// Run the lint checks (mediastreamvalidator-style) after parsing.
    public var lint: Bool

    public init(strict: Bool = false, importedVariables: [String: String] = [:], url: String? = nil, lint: Bool = true) {
        self.strict = strict
        self.importedVariables = importedVariables
        self.url = url
        self.lint = lint
    }
}

/// A parsed playlist with what was found wrong in it, sorted by line.
public struct ParseResult: Sendable {
    public var playlist: Playlist
    public var diagnostics: [Diagnostic]
    /// The variables in force at the end, for children's IMPORT.
    public var variables: [String: String]

    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Parses playlists: lexing, attribute lists, variables, then a semantic pass building the typed model.
public enum PlaylistParser {
    /// Parses `text`; throws only in strict mode, with the first error.
    public static func parse(_ text: String, options: ParseOptions = ParseOptions()) throws(PlaylistError) -> ParseResult {
        var state = ParserState(options: options)
        let result = state.run(text)
        if options.strict, let first = result.diagnostics.first(where: { $0.severity == .error }) {
            throw PlaylistError(diagnostic: first)
        }
        return result
    }

    /// Parses `text` leniently, never throwing.
    public static func parseLenient(_ text: String, options: ParseOptions = ParseOptions()) -> ParseResult {
        var o = options
        o.strict = false
        var state = ParserState(options: o)
        return state.run(text)
    }
}

/// The mutable state of one parse.
struct ParserState {
    let options: ParseOptions
    var d: [Diagnostic] = []
    var vars = Variables()
    var playlist = Playlist(body: .media(MediaPlaylist()))
    var media = MediaPlaylist()
    var multi = MultivariantPlaylist()
    var isMultivariant = false
    var seen = [Bool](repeating: false, count: TagKind.allCases.count)

    // Media segment state.
    var pendingDuration: Double?
    var pendingTitle: String?
    var pendingExtinfLine = 0
    var pendingByteRange: (length: Int, offset: Int?, line: Int)?
    var pendingDiscontinuity = false
    var pendingPDT: DateTime?
    var pendingPDTLine = 0
    var pendingGap = false
    var pendingParts: [Part] = []
    var pendingLines: [String] = []
    var pendingLineNumbers: [SourceLine] = []
    var pendingBitrateTagged = false
    var keys: [Key] = []
    var map: MapSection?
    var mapLine = 0
    var bitrate: Int?
    var previousRange: (uri: String, end: Int)?
    var discontinuitySequence = 0
    var sawSegment = false
    var keyTagSinceSegment = false
    var mapTagSinceSegment = false
    var mapNeedsIVCheck = false

    // Multivariant state.
    var pendingVariant: Variant?
    var pendingVariantLine = 0

    init(options: ParseOptions) {
        self.options = options
        vars.values.reserveCapacity(4)
    }

    mutating func report(_ sev: Severity, _ line: Int, _ section: String, _ msg: String, column: Int? = nil) {
        d.append(Diagnostic(sev, line: line, column: column, rule: bis(section), msg))
    }

    mutating func run(_ text: String) -> ParseResult {
        let storage = LineStorage(Array(text.utf8))
        // First pass, stopping early: the header line and the playlist's kind.
        var ignored: [Diagnostic] = []
        var firstLine: Line?
        var kindDecided = false
        Lexer.scan(storage, diagnostics: &ignored) { l in
            if firstLine == nil && l.kind != .blank { firstLine = l }
            if l.kind == .tag {
                if l.tag.isMultivariantOnly { isMultivariant = true; kindDecided = true }
                if l.tag.isMediaOnly { kindDecided = true }
            }
            return !(kindDecided && firstLine != nil)
        }
        // §4.4.1.1: the first line MUST be EXTM3U.
        if let first = firstLine {
            if !(first.number == 1 && first.kind == .tag && first.tag == .extm3u) {
                report(.error, 1, "4.4.1.1", "the first line is not #EXTM3U; every playlist MUST start with it")
            }
        } else {
            report(.error, 1, "4.4.1.1", "the playlist is empty; it MUST start with #EXTM3U")
        }
        // Second pass: everything.
        var lexDiagnostics: [Diagnostic] = []
        Lexer.scan(storage, strict: options.strict, diagnostics: &lexDiagnostics) { l in
            if l.hadLeadingSpace {
                report(.warning, l.number, "4.1", "line starts with white space; it was ignored")
            }
            switch l.kind {
            case .blank: break
            case .comment:
                pendingLines.append(l.text)
                pendingLineNumbers.append(SourceLine(l.number))
                pendingLineNumbers.append(SourceLine(l.number))
            case .uri: uriLine(l)
            case .tag: tag(l)
            }
            return true
        }
        d = lexDiagnostics + d
        finish()
        if options.lint { d += Lint.check(playlist) }
        // Sort by line, keeping the order of findings on one line.
        let indexed = d.enumerated().sorted { a, b in
            let la = a.element.line ?? 0, lb = b.element.line ?? 0
            return la != lb ? la < lb : a.offset < b.offset
        }
        return ParseResult(playlist: playlist, diagnostics: indexed.map(\.element), variables: vars.values)
    }

    // MARK: Tags

    mutating func attributes(_ l: Line, _ section: String, substitute: Bool = true) -> AttributeList {
        guard l.colonOffset != nil else {
            report(.error, l.number, section, "#\(l.tagName) needs an attribute list after ':'")
            return AttributeList()
        }
        var list = l.withValueBytes { AttributeList.parse(bytes: $0, line: l.number, column: l.valueColumn, diagnostics: &d) }
        if substitute && list.attributes.contains(where: { Variables.mayContainReference($0.value) }) {
            for i in list.attributes.indices
            where list.attributes[i].quoted || list.attributes[i].value.hasPrefix("0x") || list.attributes[i].value.hasPrefix("0X") {
                list.attributes[i].value = vars.substitute(list.attributes[i].value, line: l.number, diagnostics: &d)
            }
        }
        return list
    }

    /// The value of a single-value tag, trimmed of white space (reported, since the RFC allows none).
    mutating func scalarValue(_ l: Line) -> String {
        guard let v = l.tagValue else { return "" }
        let t = v.trimmingCharacters()
        if t.utf8.count != v.utf8.count {
            report(.warning, l.number, l.tag.section, "white space around the value of #\(l.tagName) (ignored)", column: l.valueColumn)
        }
        return t
    }

    mutating func once(_ l: Line) -> Bool {
        if seen[Int(l.tag.rawValue)] {
            report(.error, l.number, l.tag.section, "#\(l.tag.name) appears more than once; it MUST NOT (the first one is kept)")
            return false
        }
        seen[Int(l.tag.rawValue)] = true
        return true
    }

    mutating func mark(_ t: TagKind) { seen[Int(t.rawValue)] = true }
    func saw(_ t: TagKind) -> Bool { seen[Int(t.rawValue)] }

    mutating func define(_ l: Line) {
        let r = AttributeReader(attributes(l, "4.4.2.3", substitute: false), line: l.number, tag: "EXT-X-DEFINE", section: "4.4.2.3")
        mark(.define)
        let kinds = ["NAME", "IMPORT", "QUERYPARAM"].filter { r.has($0) }
        guard kinds.count == 1 else {
            report(
                .error, l.number, "4.4.2.3",
                kinds.isEmpty
                    ? "EXT-X-DEFINE needs one of NAME, IMPORT or QUERYPARAM"
                    : "EXT-X-DEFINE MUST have only one of NAME, IMPORT and QUERYPARAM")
            return
        }
        let kind = kinds[0]
        guard let name = r.string(kind, &d) else { return }
        if !Variables.isValidName(name) {
            report(.error, l.number, "4.4.2.3", "variable name \"\(name)\" must use only a-z, A-Z, 0-9, '-' and '_'")
            return
        }
        if vars.values[name] != nil {
            report(.error, l.number, "4.4.2.3", "variable \(name) is defined more than once; a playlist MUST NOT define a name twice")
            return
        }
        var source = Define.Source.imported
        var value: String?
        switch kind {
        case "NAME":
            guard r.require("VALUE", &d), let v = r.string("VALUE", &d) else { return }
            source = .value(v)
            value = v
        case "IMPORT":
            if isMultivariant {
                report(.error, l.number, "4.4.2.3", "EXT-X-DEFINE IMPORT MUST NOT appear in a multivariant playlist")
                return
            }
            value = options.importedVariables[name]
            if value == nil {
                report(
                    .error, l.number, "4.4.2.3", "EXT-X-DEFINE IMPORT=\"\(name)\": the multivariant playlist defines no variable \(name)")
            }
        default:
            source = .queryParameter
            value = queryParameters(ofURL: options.url ?? "")[name]
            if value == nil {
                report(
                    .error, l.number, "4.4.2.3",
                    "EXT-X-DEFINE QUERYPARAM=\"\(name)\": the playlist URL \(options.url.map { "(\($0)) " } ?? "")has no query parameter \(name)"
                )
            }
        }
        if let value { vars.values[name] = value }
        playlist.defines.append(Define(name: name, source: source, resolved: value, line: SourceLine(l.number)))
    }

    mutating func extinf(_ l: Line) {
        mark(.extinf)
        if pendingDuration != nil {
            report(.error, pendingExtinfLine, "4.4.4.1", "EXTINF is not followed by a URI line (dropped)")
        }
        // Fast path on bytes: "<duration>,[<title>]".
        let (dur, comma, title) = l.withValueBytes { v -> (Double?, Bool, String?) in
            var c = 0
            while c < v.count && v[c] != 0x2C { c += 1 }
            let d = parseFloat(bytes: UnsafeBufferPointer(rebasing: v[0..<c]))
            let t = c + 1 < v.count ? String(decoding: UnsafeBufferPointer(rebasing: v[(c + 1)...]), as: UTF8.self) : nil
            return (d, c < v.count, t)
        }
        if !comma { report(.warning, l.number, "4.4.4.1", "EXTINF has no ',' after the duration") }
        var duration = dur
        if duration == nil {
            let value = l.tagValue ?? ""
            let durText = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = durText.trimmingCharacters()
            if let v = parseFloat(trimmed, allowSign: true) {
                report(
                    .error, l.number, "4.4.4.1",
                    "EXTINF duration \"\(durText)\" is not a decimal-floating-point\(v < 0 ? "; a negative duration is read as 0" : "")",
                    column: l.valueColumn)
                duration = max(0, v)
            } else {
                report(
                    .error, l.number, "4.4.4.1", "EXTINF duration \"\(durText)\" is not a decimal-floating-point; read as 0",
                    column: l.valueColumn)
                duration = 0
            }
        }
        pendingDuration = duration
        pendingExtinfLine = l.number
        pendingTitle = title
    }

    mutating func keyAttributes(_ l: Line, session: Bool) -> Key? {
        let section = session ? "4.4.6.5" : "4.4.4.4"
        let tagName = session ? "EXT-X-SESSION-KEY" : "EXT-X-KEY"
        let r = AttributeReader(attributes(l, section), line: l.number, tag: tagName, section: section)
        guard r.require("METHOD", &d) else { return nil }
        let method = r.enumerated("METHOD", allowed: KeyMethod.allCases.map(\.rawValue), &d).flatMap(KeyMethod.init(rawValue:)) ?? .none
        var k = Key(
            method: method, uri: r.string("URI", &d), iv: r.hex("IV", &d), keyFormat: r.string("KEYFORMAT", &d),
            keyFormatVersions: r.string("KEYFORMATVERSIONS", &d))
        k.extra = r.extras()
        k.line = SourceLine(l.number)
        if method == .none {
            if k.uri != nil || k.iv != nil || k.keyFormat != nil || k.keyFormatVersions != nil {
                report(.error, l.number, section, "\(tagName) METHOD=NONE MUST NOT have other attributes")
            }
        } else if k.uri == nil {
            report(.error, l.number, section, "\(tagName) METHOD=\(method.rawValue) is missing its REQUIRED URI attribute")
        }
        if let iv = k.iv, iv.utf8.count > 34 {
            report(.error, l.number, section, "\(tagName) IV \(iv) is longer than 128 bits")
        }
        return k
    }

    mutating func key(_ l: Line) {
        mark(.key)
        guard let k = keyAttributes(l, session: false) else { return }
        keyTagSinceSegment = true
        // §4.4.4.4: a key applies until the next EXT-X-KEY with the same KEYFORMAT; METHOD=NONE clears them all.
        if k.method == .none {
            keys.removeAll()
        } else {
            keys.removeAll { $0.effectiveKeyFormat == k.effectiveKeyFormat }
            keys.append(k)
        }
    }

    mutating func mapTag(_ l: Line) {
        mark(.map)
        let r = AttributeReader(attributes(l, "4.4.4.5"), line: l.number, tag: "EXT-X-MAP", section: "4.4.4.5")
        guard r.require("URI", &d), let uri = r.string("URI", &d) else { return }
        var range: ByteRange?
        if let br = r.string("BYTERANGE", &d) {
            if let p = parseByteRange(br) {
                range = ByteRange(length: p.0, offset: p.1 ?? 0)
                if p.1 == nil { report(.warning, l.number, "4.4.4.5", "EXT-X-MAP BYTERANGE has no @offset; read as 0") }
            } else {
                report(.error, l.number, "4.4.4.5", "EXT-X-MAP BYTERANGE=\"\(br)\" is not <n>[@<o>]")
            }
        }
        map = MapSection(uri: uri, byteRange: range, extra: r.extras(), keys: keys)
        mapLine = l.number
        mapTagSinceSegment = true
        if let aes = keys.first(where: { $0.method == .aes128 }), aes.iv == nil {
            report(
                .error, l.number, "4.4.4.5",
                "EXT-X-MAP applies to segments encrypted with AES-128, so the EXT-X-KEY (line \(aes.line.number)) MUST have an IV")
        }
    }

    mutating func part(_ l: Line) {
        mark(.part)
        let r = AttributeReader(attributes(l, "4.4.4.9"), line: l.number, tag: "EXT-X-PART", section: "4.4.4.9")
        let okURI = r.require("URI", &d), okDur = r.require("DURATION", &d)
        guard okURI, okDur, let uri = r.string("URI", &d) else { return }
        var range: ByteRange?
        if let br = r.string("BYTERANGE", &d) {
            if let p = parseByteRange(br) {
                var offset = p.1 ?? 0
                if p.1 == nil, let prev = pendingParts.last, prev.uri == uri, let pr = prev.byteRange { offset = pr.offset + pr.length }
                range = ByteRange(length: p.0, offset: offset)
            } else {
                report(.error, l.number, "4.4.4.9", "EXT-X-PART BYTERANGE=\"\(br)\" is not <n>[@<o>]")
            }
        }
        pendingParts.append(
            Part(
                uri: uri, duration: r.float("DURATION", &d) ?? 0, independent: r.bool("INDEPENDENT", &d) ?? false,
                byteRange: range, gap: r.bool("GAP", &d) ?? false,
                extra: r.extras(), line: SourceLine(l.number)))
    }

    mutating func dateRange(_ l: Line) {
        let r = AttributeReader(attributes(l, "4.4.5.1"), line: l.number, tag: "EXT-X-DATERANGE", section: "4.4.5.1")
        guard r.require("ID", &d), let id = r.string("ID", &d) else { return }
        let startText = r.string("START-DATE", &d)
        let endText = r.string("END-DATE", &d)
        var start: DateTime?, end: DateTime?
        if let startText {
            start = DateTime(iso8601: startText)
            if start == nil { report(.error, l.number, "4.4.5.1", "EXT-X-DATERANGE START-DATE=\"\(startText)\" is not an ISO 8601 date") }
        } else {
            report(.warning, l.number, "4.4.5.1", "EXT-X-DATERANGE ID=\"\(id)\" has no START-DATE")
        }
        if let endText {
            end = DateTime(iso8601: endText)
            if end == nil { report(.error, l.number, "4.4.5.1", "EXT-X-DATERANGE END-DATE=\"\(endText)\" is not an ISO 8601 date") }
        }
        let duration = r.float("DURATION", &d)
        let endOnNext = r.bool("END-ON-NEXT", &d) ?? false
        let classID = r.string("CLASS", &d)
        if let s = start, let e = end, e < s { report(.error, l.number, "4.4.5.1", "EXT-X-DATERANGE END-DATE is before its START-DATE") }
        if let s = start, let e = end, let dur = duration, abs(e.seconds - s.seconds - dur) > 0.001 {
            report(.error, l.number, "4.4.5.1", "EXT-X-DATERANGE END-DATE MUST equal START-DATE plus DURATION")
        }
        // SCTE-35 splice_info_sections carried as hexadecimal-sequences (§4.4.5.1.1).
        for name in ["SCTE35-CMD", "SCTE35-OUT", "SCTE35-IN"] { _ = r.hex(name, &d) }
        let cue = r.string("CUE", &d)
        if let cue, Set(cue.split(separator: ",").map(String.init)).isSuperset(of: ["PRE", "POST"]) {
            report(.error, l.number, "4.4.5.1", "EXT-X-DATERANGE ID=\"\(id)\" CUE=\"\(cue)\" MUST NOT include both PRE and POST")
        }
        // HLS Interstitials (RFC 8216bis Appendix D): an interstitial names its asset by X-ASSET-URI or X-ASSET-LIST, not both.
        if classID == "com.apple.hls.interstitial" {
            let (uri, list) = (r.raw("X-ASSET-URI") != nil, r.raw("X-ASSET-LIST") != nil)
            if uri == list {
                d.append(
                    Diagnostic(
                        .error, line: l.number, rule: "RFC 8216bis Appendix D",
                        "interstitial ID=\"\(id)\" has \(uri ? "both X-ASSET-URI and X-ASSET-LIST" : "neither X-ASSET-URI nor X-ASSET-LIST"); it MUST have exactly one"
                    ))
            }
        }
        if endOnNext {
            if classID == nil { report(.error, l.number, "4.4.5.1", "EXT-X-DATERANGE with END-ON-NEXT=YES MUST have a CLASS") }
            if duration != nil || end != nil {
                report(.error, l.number, "4.4.5.1", "EXT-X-DATERANGE with END-ON-NEXT=YES MUST NOT have DURATION or END-DATE")
            }
        }
        let range = DateRange(
            id: id, classID: classID, startDate: start, startDateText: startText, cue: cue, endDate: end,
            endDateText: endText,
            duration: duration, plannedDuration: r.float("PLANNED-DURATION", &d), endOnNext: endOnNext,
            extra: dateRangeExtras(r),
            beforeSegment: media.segments.count, line: SourceLine(l.number))
        if let i = Interstitial(range) { d += i.diagnostics() }
        media.dateRanges.append(range)
    }

    /// A date range's attributes beyond those modelled, in the order written: SCTE35-* (checked above, kept as written) and
    /// any other (X-*, unknown).
    func dateRangeExtras(_ r: AttributeReader) -> [Attribute] {
        let unread = Set(r.extras())
        return r.list.attributes.filter { $0.name.hasPrefix("SCTE35-") || $0.name.hasPrefix("X-") || unread.contains($0) }
    }

    mutating func uriLine(_ l: Line) {
        var uri = l.text
        if Variables.mayContainReference(uri) { uri = vars.substitute(uri, line: l.number, diagnostics: &d) }
        if isMultivariant {
            guard var v = pendingVariant else {
                report(.error, l.number, "4.4.6.2", "URI line \"\(uri.prefix(60))\" does not follow an EXT-X-STREAM-INF tag (ignored)")
                return
            }
            v.uri = uri
            v.leadingLines = pendingLines
            pendingLines = []
            pendingLineNumbers = []
            multi.variants.append(v)
            pendingVariant = nil
            return
        }
        guard let duration = pendingDuration else {
            report(
                .error, l.number, "4.4.4.1",
                "URI line \"\(uri.prefix(60))\" has no EXTINF before it; every Media Segment MUST have one (ignored)")
            pendingByteRange = nil
            return
        }
        let base = media.mediaSequence + (media.skip?.skippedSegments ?? 0)
        var s = Segment(uri: uri, duration: duration, mediaSequence: base + media.segments.count)
        s.title = pendingTitle
        s.line = SourceLine(l.number)
        s.durationLine = SourceLine(pendingExtinfLine)
        s.programDateTimeLine = SourceLine(pendingPDT == nil ? 0 : pendingPDTLine)
        if pendingDiscontinuity { discontinuitySequence += 1 }
        s.discontinuity = pendingDiscontinuity
        s.discontinuitySequence = discontinuitySequence
        if let br = pendingByteRange {
            var offset = br.offset ?? 0
            if br.offset == nil {
                if let prev = previousRange, prev.uri == uri {
                    offset = prev.end
                } else {
                    report(
                        .error, br.line, "4.4.4.2",
                        "EXT-X-BYTERANGE has no @offset, so the previous Media Segment MUST be a sub-range of the same resource; it is not (read as 0)"
                    )
                }
                s.byteRangeOffsetImplied = true
            }
            s.byteRange = ByteRange(length: br.length, offset: offset)
            previousRange = (uri, offset + br.length)
        } else {
            previousRange = nil
        }
        s.keys = keys
        s.map = map
        s.programDateTime = pendingPDT
        s.gap = pendingGap
        s.bitrate = s.byteRange == nil ? bitrate : nil
        s.bitrateTagged = pendingBitrateTagged
        s.parts = pendingParts
        s.leadingLines = pendingLines
        s.leadingLineNumbers = pendingLineNumbers
        media.segments.append(s)
        sawSegment = true
        keyTagSinceSegment = false
        mapTagSinceSegment = false
        pendingDuration = nil
        pendingTitle = nil
        pendingByteRange = nil
        pendingDiscontinuity = false
        pendingPDT = nil
        pendingGap = false
        pendingParts = []
        pendingLines = []
        pendingLineNumbers = []
        pendingBitrateTagged = false
    }

    mutating func variant(_ l: Line, iFrame: Bool) -> Variant? {
        let section = iFrame ? "4.4.6.3" : "4.4.6.2"
        let tagName = iFrame ? "EXT-X-I-FRAME-STREAM-INF" : "EXT-X-STREAM-INF"
        let r = AttributeReader(attributes(l, section), line: l.number, tag: tagName, section: section)
        _ = r.require("BANDWIDTH", &d)
        var v = Variant(uri: "", bandwidth: r.integer("BANDWIDTH", &d))
        v.line = SourceLine(l.number)
        v.averageBandwidth = r.integer("AVERAGE-BANDWIDTH", &d)
        v.score = r.float("SCORE", &d)
        v.codecs = r.string("CODECS", &d)
        v.supplementalCodecs = r.string("SUPPLEMENTAL-CODECS", &d)
        v.resolution = r.resolution("RESOLUTION", &d)
        v.hdcpLevel = r.enumerated("HDCP-LEVEL", allowed: ["TYPE-0", "TYPE-1", "NONE"], &d)
        v.allowedCPC = r.string("ALLOWED-CPC", &d)
        v.videoRange = r.enumerated("VIDEO-RANGE", allowed: ["SDR", "HLG", "PQ"], &d)
        v.reqVideoLayout = r.string("REQ-VIDEO-LAYOUT", &d)
        v.stableVariantID = r.string("STABLE-VARIANT-ID", &d)
        v.video = r.string("VIDEO", &d)
        v.pathwayID = r.string("PATHWAY-ID", &d)
        v.programID = r.integer("PROGRAM-ID", &d)
        if iFrame {
            guard r.require("URI", &d), let uri = r.string("URI", &d) else { return nil }
            v.uri = uri
            for forbidden in ["FRAME-RATE", "AUDIO", "SUBTITLES", "CLOSED-CAPTIONS"] where r.has(forbidden) {
                report(.warning, l.number, section, "EXT-X-I-FRAME-STREAM-INF does not take \(forbidden) (ignored)")
            }
        } else {
            v.frameRate = r.float("FRAME-RATE", &d)
            v.audio = r.string("AUDIO", &d)
            v.subtitles = r.string("SUBTITLES", &d)
            if let cc = r.raw("CLOSED-CAPTIONS") {
                if !cc.quoted && cc.value != "NONE" {
                    report(.error, l.number, section, "EXT-X-STREAM-INF CLOSED-CAPTIONS must be a quoted-string or NONE")
                }
                v.closedCaptions = cc.value
            }
        }
        v.extra = r.extras()
        return v
    }

    mutating func rendition(_ l: Line) {
        let r = AttributeReader(attributes(l, "4.4.6.1"), line: l.number, tag: "EXT-X-MEDIA", section: "4.4.6.1")
        let okT = r.require("TYPE", &d), okG = r.require("GROUP-ID", &d)
        _ = r.require("NAME", &d)
        guard okT, okG else { return }
        let type = r.enumerated("TYPE", allowed: ["AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS"], &d) ?? ""
        let rd = Rendition(
            type: type, uri: r.string("URI", &d), groupID: r.string("GROUP-ID", &d) ?? "", language: r.string("LANGUAGE", &d),
            assocLanguage: r.string("ASSOC-LANGUAGE", &d), name: r.string("NAME", &d) ?? "",
            stableRenditionID: r.string("STABLE-RENDITION-ID", &d),
            isDefault: r.bool("DEFAULT", &d) ?? false, autoselect: r.bool("AUTOSELECT", &d) ?? false, forced: r.bool("FORCED", &d) ?? false,
            instreamID: r.string("INSTREAM-ID", &d), bitDepth: r.integer("BIT-DEPTH", &d), sampleRate: r.integer("SAMPLE-RATE", &d),
            characteristics: r.string("CHARACTERISTICS", &d), channels: r.string("CHANNELS", &d),
            extra: r.extras(),
            line: SourceLine(l.number))
        if type == "CLOSED-CAPTIONS" {
            if rd.uri != nil { report(.error, l.number, "4.4.6.1", "EXT-X-MEDIA TYPE=CLOSED-CAPTIONS MUST NOT have a URI") }
            if rd.instreamID == nil { report(.error, l.number, "4.4.6.1", "EXT-X-MEDIA TYPE=CLOSED-CAPTIONS MUST have an INSTREAM-ID") }
        } else if rd.instreamID != nil {
            report(.error, l.number, "4.4.6.1", "INSTREAM-ID MUST NOT be given for TYPE=\(type)")
        }
        if type == "SUBTITLES" && rd.uri == nil { report(.error, l.number, "4.4.6.1", "EXT-X-MEDIA TYPE=SUBTITLES MUST have a URI") }
        if rd.forced && type != "SUBTITLES" { report(.error, l.number, "4.4.6.1", "FORCED MUST only be given for TYPE=SUBTITLES") }
        if rd.isDefault && r.has("AUTOSELECT") && !rd.autoselect {
            report(.error, l.number, "4.4.6.1", "EXT-X-MEDIA with DEFAULT=YES MUST have AUTOSELECT=YES")
        }
        multi.renditions.append(rd)
    }

    mutating func sessionData(_ l: Line) {
        let r = AttributeReader(attributes(l, "4.4.6.4"), line: l.number, tag: "EXT-X-SESSION-DATA", section: "4.4.6.4")
        guard r.require("DATA-ID", &d) else { return }
        let sd = SessionData(
            dataID: r.string("DATA-ID", &d) ?? "", value: r.string("VALUE", &d), uri: r.string("URI", &d),
            format: r.enumerated("FORMAT", allowed: ["JSON", "RAW"], &d), language: r.string("LANGUAGE", &d),
            extra: r.extras(), line: SourceLine(l.number))
        if (sd.value == nil) == (sd.uri == nil) {
            report(.error, l.number, "4.4.6.4", "EXT-X-SESSION-DATA MUST have exactly one of VALUE and URI")
        }
        multi.sessionData.append(sd)
    }

    mutating func finish() {
        if isMultivariant {
            if pendingVariant != nil {
                report(.error, pendingVariantLine, "4.4.6.2", "EXT-X-STREAM-INF is not followed by its URI line (dropped)")
            }
            multi.trailingLines = pendingLines
            playlist.body = .multivariant(multi)
            return
        }
        if pendingDuration != nil {
            report(.error, pendingExtinfLine, "4.4.4.1", "the last EXTINF is not followed by a URI line (dropped)")
        }
        media.trailingParts = pendingParts
        media.trailingKeys = keyTagSinceSegment ? keys : nil
        media.trailingMap = mapTagSinceSegment ? map : nil
        media.trailingDiscontinuity = pendingDiscontinuity
        media.trailingProgramDateTime = pendingPDT
        media.trailingLines = pendingLines
        media.trailingLineNumbers = pendingLineNumbers
        Timeline.assignProgramDateTimes(&media.segments)
        playlist.body = .media(media)
    }
}

/// Tags outside RFC 8216bis that are common enough not to report (SCTE-35 cues, Apple/AWS extensions).
let knownExtensionTags: Set<String> = [
    "EXT-X-CUE-OUT", "EXT-X-CUE-IN", "EXT-X-CUE-OUT-CONT", "EXT-X-CUE", "EXT-X-SCTE35", "EXT-X-ALLOW-CACHE",
    "EXT-X-TILES", "EXT-X-ASSET", "EXT-X-SPLICEPOINT-SCTE35", "EXT-X-PLACEMENT-OPPORTUNITY",
]

/// Parses `n[@o]`.
func parseByteRange<S: StringProtocol>(_ s: S) -> (Int, Int?)? {
    let parts = s.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
    guard let n = parseDecimalInteger(parts[0]) else { return nil }
    if parts.count == 2 {
        guard let o = parseDecimalInteger(parts[1]) else { return nil }
        return (n, o)
    }
    return (n, nil)
}
