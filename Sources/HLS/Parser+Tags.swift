/// The tags, by the family RFC 8216bis puts them in (§4.4): `tag` checks a tag belongs in this kind of playlist and hands it
/// to its family.
extension ParserState {
    mutating func tag(_ l: Line) {
        let wrongKind = isMultivariant ? l.tag.isMediaOnly : l.tag.isMultivariantOnly
        if wrongKind {
            let name = l.tag.name
            report(
                .error, l.number, "4.4",
                "#\(name) is a \(isMultivariant ? "media" : "multivariant") playlist tag in a \(isMultivariant ? "multivariant" : "media") playlist; a playlist MUST NOT hold both kinds (ignored)"
            )
            return
        }
        switch l.tag.family {
        case .basic: basicTag(l)
        case .mediaPlaylist: mediaPlaylistTag(l)
        case .segment: segmentTag(l)
        case .metadata: metadataTag(l)
        case .multivariant: multivariantTag(l)
        case .other: otherTag(l)
        }
    }

    /// Basic tags (§4.4.1) and tags of either kind of playlist (§4.4.2).
    mutating func basicTag(_ l: Line) {
        switch l.tag {
        case .extm3u:
            if l.number != 1 && saw(.extm3u) { report(.warning, l.number, "4.4.1.1", "#EXTM3U appears again") }
            mark(.extm3u)
        case .version:
            guard once(l) else { return }
            let v = scalarValue(l)
            if let n = parseDecimalInteger(v) {
                playlist.version = n
            } else {
                report(.error, l.number, "4.4.1.2", "EXT-X-VERSION:\(v) \(decimalIntegerProblem(v))", column: l.valueColumn)
            }
        case .independentSegments:
            playlist.independentSegments = true
        case .start:
            guard once(l) else { return }
            let list = attributes(l, "4.4.2.2")
            let r = AttributeReader(list, line: l.number, tag: "EXT-X-START", section: "4.4.2.2")
            if r.require("TIME-OFFSET", &d), let t = r.float("TIME-OFFSET", signed: true, &d) {
                playlist.start = StartPoint(
                    timeOffset: t, precise: r.bool("PRECISE", &d) ?? false,
                    extra: r.extras())
            }
        case .define:
            define(l)
        default: preconditionFailure("#\(l.tag.name) is not of this family")
        }
    }

    /// Media playlist tags (§4.4.3).
    mutating func mediaPlaylistTag(_ l: Line) {
        switch l.tag {
        case .targetDuration:
            guard once(l) else { return }
            let v = scalarValue(l)
            if let n = parseDecimalInteger(v) {
                media.targetDuration = n
            } else if let f = parseFloat(v), f < 1e15 {
                media.targetDuration = Int(f.rounded(.up))
                report(
                    .error, l.number, "4.4.3.1", "EXT-X-TARGETDURATION:\(v) is not a decimal-integer; read as \(Int(f.rounded(.up)))",
                    column: l.valueColumn)
            } else {
                report(.error, l.number, "4.4.3.1", "EXT-X-TARGETDURATION:\(v) \(decimalIntegerProblem(v))", column: l.valueColumn)
            }
        case .mediaSequence, .discontinuitySequence:
            let isMS = l.tag == .mediaSequence
            let name = l.tag.name
            let section = isMS ? "4.4.3.2" : "4.4.3.3"
            guard once(l) else { return }
            if sawSegment { report(.error, l.number, section, "#\(name) MUST appear before the first Media Segment") }
            let v = scalarValue(l)
            if !isMS && saw(.discontinuity) {
                report(.error, l.number, section, "#EXT-X-DISCONTINUITY-SEQUENCE MUST appear before any EXT-X-DISCONTINUITY")
            }
            guard let n = parseDecimalInteger(v) else {
                report(.error, l.number, section, "#\(name):\(v) \(decimalIntegerProblem(v))", column: l.valueColumn)
                return
            }
            // A late tag still applies to the whole playlist, as it does when written in its place.
            if isMS {
                let delta = n - media.mediaSequence
                media.mediaSequence = n
                media.mediaSequenceTagged = true
                for i in media.segments.indices { media.segments[i].mediaSequence += delta }
            } else {
                let delta = n - media.discontinuitySequence
                media.discontinuitySequence = n
                media.discontinuitySequenceTagged = true
                discontinuitySequence += delta
                for i in media.segments.indices { media.segments[i].discontinuitySequence += delta }
            }
        case .endList:
            if media.endList { report(.warning, l.number, "4.4.3.4", "#EXT-X-ENDLIST appears more than once") }
            media.endList = true
        case .playlistType:
            guard once(l) else { return }
            let v = scalarValue(l)
            if v == "EVENT" || v == "VOD" {
                media.playlistType = v
            } else {
                report(.error, l.number, "4.4.3.5", "EXT-X-PLAYLIST-TYPE:\(v) must be EVENT or VOD (ignored)", column: l.valueColumn)
            }
        case .iFramesOnly:
            media.iFramesOnly = true
        case .partInf:
            guard once(l) else { return }
            let r = AttributeReader(attributes(l, "4.4.3.7"), line: l.number, tag: "EXT-X-PART-INF", section: "4.4.3.7")
            if r.require("PART-TARGET", &d) { media.partTarget = r.float("PART-TARGET", &d) }
        case .serverControl:
            guard once(l) else { return }
            let r = AttributeReader(attributes(l, "4.4.3.8"), line: l.number, tag: "EXT-X-SERVER-CONTROL", section: "4.4.3.8")
            media.serverControl = ServerControl(
                canSkipUntil: r.float("CAN-SKIP-UNTIL", &d), canSkipDateRanges: r.bool("CAN-SKIP-DATERANGES", &d) ?? false,
                holdBack: r.float("HOLD-BACK", &d), partHoldBack: r.float("PART-HOLD-BACK", &d),
                canBlockReload: r.bool("CAN-BLOCK-RELOAD", &d) ?? false,
                extra: r.extras())
        default: preconditionFailure("#\(l.tag.name) is not of this family")
        }
    }

    /// Media segment tags (§4.4.4): most wait, pending, for the segment's URI line.
    mutating func segmentTag(_ l: Line) {
        switch l.tag {
        case .extinf: extinf(l)
        case .byteRange:
            mark(l.tag)
            let v = l.tagValue.map { String($0) } ?? ""
            if let br = parseByteRange(v) {
                pendingByteRange = (br.0, br.1, l.number)
            } else {
                report(.error, l.number, "4.4.4.2", "EXT-X-BYTERANGE:\(v) is not <n>[@<o>]", column: l.valueColumn)
            }
        case .discontinuity:
            mark(l.tag)
            pendingDiscontinuity = true
        case .key: key(l)
        case .map: mapTag(l)
        case .programDateTime:
            mark(l.tag)
            if let micros = l.withValueBytes({ DateTime.parse($0) }) {
                pendingPDT = DateTime(microseconds: micros)
                pendingPDTLine = l.number
            } else {
                report(
                    .error, l.number, "4.4.4.6", "EXT-X-PROGRAM-DATE-TIME:\(l.tagValue ?? "") is not an ISO 8601 date-time",
                    column: l.valueColumn)
            }
        case .gap:
            mark(l.tag)
            pendingGap = true
        case .bitrate:
            let v = scalarValue(l)
            if let n = parseDecimalInteger(v) {
                bitrate = n; pendingBitrateTagged = true
            } else {
                report(.error, l.number, "4.4.4.8", "EXT-X-BITRATE:\(v) \(decimalIntegerProblem(v)) (kbps)", column: l.valueColumn)
            }
        case .part: part(l)
        default: preconditionFailure("#\(l.tag.name) is not of this family")
        }
    }

    /// Media metadata tags (§4.4.5).
    mutating func metadataTag(_ l: Line) {
        switch l.tag {
        case .dateRange: dateRange(l)
        case .skip:
            guard once(l) else { return }
            if sawSegment { report(.error, l.number, "4.4.5.2", "#EXT-X-SKIP MUST appear before the first Media Segment") }
            let r = AttributeReader(attributes(l, "4.4.5.2"), line: l.number, tag: "EXT-X-SKIP", section: "4.4.5.2")
            if r.require("SKIPPED-SEGMENTS", &d), let n = r.integer("SKIPPED-SEGMENTS", &d) {
                let removed = r.string("RECENTLY-REMOVED-DATERANGES", &d)?.split(separator: "\t").map(String.init) ?? []
                media.skip = Skip(
                    skippedSegments: n, recentlyRemovedDateRanges: removed,
                    extra: r.extras())
            }
        case .preloadHint:
            let r = AttributeReader(attributes(l, "4.4.5.3"), line: l.number, tag: "EXT-X-PRELOAD-HINT", section: "4.4.5.3")
            let okType = r.require("TYPE", &d), okURI = r.require("URI", &d)
            guard okType, okURI else { return }
            if let t = r.list["TYPE"]?.value, media.preloadHints.contains(where: { $0.type == t }) {
                report(
                    .error, l.number, "4.4.5.3",
                    "a second EXT-X-PRELOAD-HINT of TYPE=\(t); a playlist MUST NOT have more than one of the same TYPE")
            }
            media.preloadHints.append(
                PreloadHint(
                    type: r.enumerated("TYPE", allowed: ["PART", "MAP"], &d) ?? "", uri: r.string("URI", &d) ?? "",
                    byteRangeStart: r.integer("BYTERANGE-START", &d), byteRangeLength: r.integer("BYTERANGE-LENGTH", &d),
                    extra: r.extras()))
        case .renditionReport:
            let r = AttributeReader(attributes(l, "4.4.5.4"), line: l.number, tag: "EXT-X-RENDITION-REPORT", section: "4.4.5.4")
            _ = r.require("URI", &d)
            media.renditionReports.append(
                RenditionReport(
                    uri: r.string("URI", &d), lastMSN: r.integer("LAST-MSN", &d), lastPart: r.integer("LAST-PART", &d),
                    extra: r.extras()))
        default: preconditionFailure("#\(l.tag.name) is not of this family")
        }
    }

    /// Multivariant playlist tags (§4.4.6).
    mutating func multivariantTag(_ l: Line) {
        switch l.tag {
        case .media: rendition(l)
        case .streamInf:
            if pendingVariant != nil {
                report(.error, pendingVariantLine, "4.4.6.2", "EXT-X-STREAM-INF is not followed by its URI line (dropped)")
            }
            pendingVariant = variant(l, iFrame: false)
            pendingVariantLine = l.number
        case .iFrameStreamInf:
            if let v = variant(l, iFrame: true) { multi.iFrameVariants.append(v) }
        case .sessionData: sessionData(l)
        case .sessionKey:
            if let k = keyAttributes(l, session: true) {
                if k.method == .none { report(.error, l.number, "4.4.6.5", "EXT-X-SESSION-KEY METHOD MUST NOT be NONE") }
                multi.sessionKeys.append(k)
            }
        case .contentSteering:
            guard once(l) else { return }
            let r = AttributeReader(attributes(l, "4.4.6.6"), line: l.number, tag: "EXT-X-CONTENT-STEERING", section: "4.4.6.6")
            if r.require("SERVER-URI", &d) {
                multi.contentSteering = ContentSteering(
                    serverURI: r.string("SERVER-URI", &d) ?? "", pathwayID: r.string("PATHWAY-ID", &d),
                    extra: r.extras())
            }
        default: preconditionFailure("#\(l.tag.name) is not of this family")
        }
    }

    /// Apple's image playlists and tags RFC 8216bis does not define: kept as written, checked where a rule applies.
    mutating func otherTag(_ l: Line) {
        switch l.tag {
        case .imageStreamInf:
            let list = attributes(l, "4.4.6.3")
            if list["URI"] == nil {
                d.append(
                    Diagnostic(
                        .error, line: l.number, rule: "Apple HLS image playlists",
                        "EXT-X-IMAGE-STREAM-INF is missing its required URI attribute"))
            }
            if let res = list["RESOLUTION"], Resolution(res.value) == nil {
                d.append(
                    Diagnostic(
                        .error, line: l.number, column: res.column, rule: bis("4.2"),
                        "EXT-X-IMAGE-STREAM-INF RESOLUTION=\(res.value) is not a decimal-resolution (WIDTHxHEIGHT)"))
            }
            pendingLines.append(l.text)
            pendingLineNumbers.append(SourceLine(l.number))
        case .other:
            let name = l.tagName
            if name.contains("#EXT") {
                report(
                    .error, l.number, "4.1", "two tags are glued on one line (\"\(l.text.prefix(60))\"); each tag MUST be on its own line")
            } else if name.hasPrefix("EXT-X-") && !knownExtensionTags.contains(String(name)) {
                report(.info, l.number, "4.4", "unknown tag #\(name) (ignored, as clients MUST ignore unrecognized tags)")
            }
            pendingLines.append(l.text)
            pendingLineNumbers.append(SourceLine(l.number))
        default: preconditionFailure("#\(l.tag.name) is not of this family")
        }
    }
}
