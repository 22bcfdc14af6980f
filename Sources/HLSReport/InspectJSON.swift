import HLS
import JSONValue

/// The `hlstui inspect --json` document: one object other tools can consume, absent values as null.
public enum InspectJSON {
    /// The whole report for a parse result.
    public static func document(
        _ r: ParseResult, source: String? = nil, assetLists: [String: Result<AssetList, AssetListError>] = [:]
    ) -> JSONValue {
        let p = r.playlist
        var fields: [(String, JSONValue)] = []
        if let source { fields.append(("source", .string(source))) }
        fields += [
            ("kind", .string(p.isMultivariant ? "multivariant" : "media")),
            ("version", .int(p.version)),
            ("independentSegments", .bool(p.independentSegments)),
            ("start", p.start.map { .object([("timeOffset", .double($0.timeOffset)), ("precise", .bool($0.precise))]) } ?? .null),
            ("defines", .array(p.defines.map(define))),
            ("diagnostics", .array(r.diagnostics.map(diagnostic))),
            ("multivariant", p.multivariant.map(multivariant) ?? .null),
            ("media", p.media.map(media) ?? .null),
            ("interstitials", p.media.map { InterstitialsReport.json($0, lists: assetLists) } ?? .array([])),
        ]
        return .object(fields)
    }

    public static func diagnostic(_ d: Diagnostic) -> JSONValue {
        .object([
            ("severity", .string(d.severity.rawValue)), ("line", .int(d.line)), ("column", .int(d.column)),
            ("rule", .string(d.rule)), ("message", .string(d.message)),
        ])
    }

    static func define(_ d: Define) -> JSONValue {
        let source: String
        switch d.source {
        case .value: source = "value"
        case .imported: source = "import"
        case .queryParameter: source = "queryparam"
        }
        return .object([("name", .string(d.name)), ("source", .string(source)), ("value", .string(d.resolved))])
    }

    /// One variant as in the ladder, with `index` when given.
    public static func variant(_ v: Variant, index: Int? = nil) -> JSONValue {
        var f: [(String, JSONValue)] = []
        if let index { f.append(("index", .int(index))) }
        f += [
            ("uri", .string(v.uri)), ("bandwidth", .int(v.bandwidth)), ("averageBandwidth", .int(v.averageBandwidth)),
            ("resolution", .string(v.resolution?.description)), ("frameRate", .double(v.frameRate)), ("codecs", .string(v.codecs)),
            ("audio", .string(v.audio)), ("video", .string(v.video)), ("subtitles", .string(v.subtitles)),
            ("closedCaptions", .string(v.closedCaptions)), ("hdcpLevel", .string(v.hdcpLevel)), ("videoRange", .string(v.videoRange)),
            ("score", .double(v.score)), ("stableVariantId", .string(v.stableVariantID)), ("pathwayId", .string(v.pathwayID)),
        ]
        return .object(f)
    }

    static func iFrameVariant(_ v: Variant) -> JSONValue {
        .object([
            ("uri", .string(v.uri)), ("bandwidth", .int(v.bandwidth)), ("averageBandwidth", .int(v.averageBandwidth)),
            ("resolution", .string(v.resolution?.description)), ("codecs", .string(v.codecs)),
            ("hdcpLevel", .string(v.hdcpLevel)), ("videoRange", .string(v.videoRange)),
        ])
    }

    static func rendition(_ r: Rendition) -> JSONValue {
        .object([
            ("type", .string(r.type)), ("groupId", .string(r.groupID)), ("name", .string(r.name)), ("language", .string(r.language)),
            ("assocLanguage", .string(r.assocLanguage)), ("default", .bool(r.isDefault)), ("autoselect", .bool(r.autoselect)),
            ("forced", .bool(r.forced)), ("instreamId", .string(r.instreamID)), ("characteristics", .string(r.characteristics)),
            ("channels", .string(r.channels)), ("uri", .string(r.uri)),
        ])
    }

    static func key(_ k: Key) -> JSONValue {
        .object([
            ("method", .string(k.method.rawValue)), ("uri", .string(k.uri)), ("iv", .string(k.iv)), ("keyFormat", .string(k.keyFormat)),
            ("keyFormatVersions", .string(k.keyFormatVersions)), ("system", .string(k.system.rawValue)),
        ])
    }

    static func byteRange(_ r: ByteRange?) -> JSONValue {
        r.map { .object([("length", .int($0.length)), ("offset", .int($0.offset))]) } ?? .null
    }

    static func multivariant(_ m: MultivariantPlaylist) -> JSONValue {
        .object([
            ("variants", .array(m.variants.enumerated().map { variant($1, index: $0) })),
            ("iFrameVariants", .array(m.iFrameVariants.map(iFrameVariant))),
            ("renditions", .array(m.renditions.map(rendition))),
            (
                "sessionData",
                .array(
                    m.sessionData.map {
                        .object([
                            ("dataId", .string($0.dataID)), ("value", .string($0.value)),
                            ("uri", .string($0.uri)), ("language", .string($0.language)),
                        ])
                    })
            ),
            ("sessionKeys", .array(m.sessionKeys.map(key))),
            (
                "contentSteering",
                m.contentSteering.map { .object([("serverUri", .string($0.serverURI)), ("pathwayId", .string($0.pathwayID))]) } ?? .null
            ),
        ])
    }

    static func segment(_ s: Segment) -> JSONValue {
        // The identity/first key is `key`; every key that applies is in `keys`.
        let primary = s.keys.first { $0.effectiveKeyFormat == "identity" } ?? s.keys.first
        return .object([
            ("uri", .string(s.uri)), ("duration", .double(s.duration)), ("title", .string(s.title)),
            ("mediaSequence", .int(s.mediaSequence)), ("discontinuitySequence", .int(s.discontinuitySequence)),
            ("byteRange", byteRange(s.byteRange)), ("discontinuity", .bool(s.discontinuity)),
            ("programDateTime", .string(s.effectiveProgramDateTime?.iso8601Milliseconds)),
            ("programDateTimeTagged", .bool(s.programDateTime != nil)),
            ("key", primary.map(key) ?? .null), ("keys", .array(s.keys.map(key))),
            ("map", s.map.map { .object([("uri", .string($0.uri)), ("byteRange", byteRange($0.byteRange))]) } ?? .null),
            ("gap", .bool(s.gap)), ("bitrate", .int(s.bitrate)), ("parts", .int(s.parts.count)),
        ])
    }

    static func media(_ m: MediaPlaylist) -> JSONValue {
        .object([
            ("targetDuration", .int(m.targetDuration)), ("mediaSequence", .int(m.mediaSequence)),
            ("discontinuitySequence", .int(m.discontinuitySequence)), ("playlistType", .string(m.playlistType)),
            ("endList", .bool(m.endList)), ("iFramesOnly", .bool(m.iFramesOnly)), ("partTarget", .double(m.partTarget)),
            ("totalDuration", .double(m.totalDuration)),
            ("segments", .array(m.segments.map(segment))),
            ("trailingParts", .int(m.trailingParts.count)),
            (
                "gaps",
                .array(
                    Timeline.gapRanges(m).map {
                        .object([
                            ("firstMsn", .int($0.firstMSN)), ("lastMsn", .int($0.lastMSN)),
                            ("start", .double($0.range.start)), ("end", .double($0.range.end)),
                        ])
                    })
            ),
            (
                "dateRanges",
                .array(
                    m.dateRanges.map {
                        .object([
                            ("id", .string($0.id)), ("class", .string($0.classID)),
                            ("startDate", .string($0.startDate?.iso8601Milliseconds)),
                            ("duration", .double($0.duration)),
                        ])
                    })
            ),
            ("breaks", BreaksReport.json(m)),
        ])
    }
}

extension DateTime {
    /// ISO 8601 in UTC with exactly three fractional digits.
    public var iso8601Milliseconds: String { DateTime(microseconds: milliseconds * 1000).iso8601 }
}
