import HLS
import MediaFormats
import JSONValue

/// What `inspect --media` measured of one variant's segments (docs/VALIDATION.md), and what its multivariant entry declares.
public struct VariantMeasure: Sendable, Equatable {
    public var index: Int
    public var name: String
    /// BANDWIDTH, AVERAGE-BANDWIDTH and CODECS as declared (nil when the source is a media playlist alone).
    public var bandwidth: Int?
    public var averageBandwidth: Int?
    public var codecs: String?
    /// SUPPLEMENTAL-CODECS as declared (RFC 8216bis §4.4.6.2).
    public var supplementalCodecs: String?
    /// Segments measured (all, or a sample) and how many the playlist lists.
    public var measured: Int
    public var listed: Int
    /// Bits per second: the highest segment's, and all the measured bytes over all the measured seconds.
    public var peak: Double
    public var average: Double
    /// The msn of the highest segment.
    public var peakMSN: Int?
    /// The video codec read from the bytes (the SPS, or the init section's avcC, hvcC or Dolby Vision configuration), RFC
    /// 6381 form; the init section's sample entry type (fMP4: `avc1`, `hvc1`, `hev1`, `dvh1`, …); a Dolby Vision
    /// configuration in a plain HEVC sample entry, which SUPPLEMENTAL-CODECS lists.
    public var videoCodec: String?
    public var sampleEntry: String?
    public var supplementalVideoCodec: String?
    /// The audio codec read from the bytes (`AudioCodecs`), and the AUDIO group: the variant's, or the rendition's own.
    public var audioCodec: String?
    public var audioGroup: String?
    /// The first SPS read (the picture's size, aspect, frame rate and transfer), and what the variant declares of them.
    public var sps: SPS?
    public var resolution: Resolution?
    public var frameRate: Double?
    public var videoRange: String?
    /// CLOSED-CAPTIONS as declared: a group id, `NONE`, or nil when the attribute is absent (RFC 8216bis §4.4.6.2).
    public var closedCaptions: String?
    /// Whether the variant's media carries alternate renditions of its own (an AUDIO group with URIs): their bytes are
    /// not in `peak` and `average`.
    public var separateAudio = false

    /// The segments whose bytes were read, in order, with what their media says (`SegmentMeasure`).
    public var segments: [SegmentMeasure] = []
    /// The playlist declares EXT-X-INDEPENDENT-SEGMENTS (RFC 8216bis §4.4.2.1).
    public var independentSegments = false

    public init(index: Int, name: String, measured: Int, listed: Int, peak: Double, average: Double) {
        (self.index, self.name, self.measured, self.listed, self.peak, self.average) = (index, name, measured, listed, peak, average)
    }
}

/// What `inspect --media` read of one segment (RFC 8216bis's rules on it: `SegmentMediaRules`).
public typealias SegmentMeasure = SegmentMedia

/// One finding of `inspect --media`: a rule id, how serious (`must` fix: an RFC MUST; `should`: an authoring rule), where,
/// measured against declared.
public struct MediaFinding: Sendable, Equatable {
    public var rule: String
    public var must: Bool
    public var section: String
    public var variant: Int
    public var message: String

    public init(rule: String, must: Bool, section: String, variant: Int, message: String) {
        (self.rule, self.must, self.section, self.variant, self.message) = (rule, must, section, variant, message)
    }
}

/// What `inspect --media --duration` read of a live stream after its first window (docs/VALIDATION.md): how long, how many
/// reloads of how many playlists, how many segments new since, and the reload rules' findings (`LiveWatch`).
public struct LiveWatchSummary: Sendable, Equatable {
    public var seconds: Double
    public var playlists: Int
    public var reloads: Int
    public var newSegments: Int
    public var findings: [MediaFinding]

    public init(seconds: Double, playlists: Int, reloads: Int, newSegments: Int, findings: [MediaFinding]) {
        (self.seconds, self.playlists, self.reloads, self.newSegments, self.findings) = (seconds, playlists, reloads, newSegments, findings)
    }
}

public enum MediaChecks {
    /// The rules for one variant's measure (RFC 8216bis §4.4.6.2; Apple's HLS authoring specification's 10 % and 2×).
    public static func findings(_ v: VariantMeasure) -> [MediaFinding] {
        var out: [MediaFinding] = []
        func kbps(_ b: Double) -> String { "\(Int((b / 1000).rounded()))k" }
        // Audio in renditions of their own is not measured here: the variant's own bytes only can be checked against what
        // must cover them and more (BANDWIDTH), not against an average that includes the audio.
        if let bw = v.bandwidth, v.peak > Double(bw) * 1.01 {
            out.append(
                MediaFinding(
                    rule: "bandwidth-under-peak", must: true, section: rfc("4.4.6.2"), variant: v.index,
                    message:
                        "\(v.name): BANDWIDTH \(kbps(Double(bw))) is under the measured peak segment bit rate \(kbps(v.peak))"
                        + (v.peakMSN.map { " (msn \($0))" } ?? "") + "; it MUST be at least the peak"))
        } else if let bw = v.bandwidth, !v.separateAudio, v.peak > 0, v.peak < Double(bw) * 0.9, v.measured == v.listed {
            out.append(
                MediaFinding(
                    rule: "bandwidth-over-peak", must: false, section: "Apple HLS authoring spec", variant: v.index,
                    message: "\(v.name): BANDWIDTH \(kbps(Double(bw))) is more than 10 % over the measured peak \(kbps(v.peak))"))
        }
        // The average of every segment (a sample's is an estimate): under it is wrong whatever audio renditions add; more
        // than 10 % over it only when the variant's own bytes are all there is.
        if let avg = v.averageBandwidth, v.average > 0, v.measured == v.listed {
            let declared = Double(avg)
            if v.average > declared * 1.1 {
                out.append(
                    MediaFinding(
                        rule: "average-bandwidth", must: true, section: rfc("4.4.6.2"), variant: v.index,
                        message:
                            "\(v.name): AVERAGE-BANDWIDTH \(kbps(declared)) is more than 10 % under the measured average \(kbps(v.average))"
                    ))
            } else if !v.separateAudio, v.average < declared * 0.9 {
                out.append(
                    MediaFinding(
                        rule: "average-bandwidth", must: false, section: "Apple HLS authoring spec", variant: v.index,
                        message:
                            "\(v.name): AVERAGE-BANDWIDTH \(kbps(declared)) is more than 10 % over the measured average \(kbps(v.average))")
                )
            }
        }
        if v.average > 0, v.peak > v.average * 2 {
            out.append(
                MediaFinding(
                    rule: "peak-over-twice-average", must: false, section: "Apple HLS authoring spec", variant: v.index,
                    message: "\(v.name): the peak segment bit rate \(kbps(v.peak)) is over twice the average \(kbps(v.average))"))
        }
        if let c = v.codecs, let media = v.videoCodec {
            out += codecFindings(v, declared: c, media: media)
        }
        return out + pictureFindings(v) + segmentFindings(v) + captionFindings(v)
    }

    /// CLOSED-CAPTIONS against the captions the video carries (RFC 8216bis §4.4.6.2): NONE over captions breaks it; a group
    /// declared over video in which no segment read carries any promises captions a player will not find.
    static func captionFindings(_ v: VariantMeasure) -> [MediaFinding] {
        let read = v.segments.filter { $0.captions != nil }
        let carrying = read.filter { $0.captions == true }.count
        guard !read.isEmpty, v.videoCodec != nil || v.sps != nil, let declared = v.closedCaptions else { return [] }
        if declared == "NONE", carrying > 0 {
            return [
                MediaFinding(
                    rule: "captions-none", must: true, section: rfc("4.4.6.2"), variant: v.index,
                    message:
                        "\(v.name): CLOSED-CAPTIONS=NONE, but \(carrying) of the \(read.count) segments read carry captions (A/53 cc_data) in the video"
                )
            ]
        }
        if declared != "NONE", carrying == 0 {
            return [
                MediaFinding(
                    rule: "captions-missing", must: false, section: rfc("4.4.6.2"), variant: v.index,
                    message:
                        "\(v.name): CLOSED-CAPTIONS=\"\(declared)\", but none of the \(read.count) segments read carries captions (A/53 cc_data) in the video"
                )
            ]
        }
        return []
    }

    /// The video codec families CODECS may name (RFC 6381 sample entry types).
    static let videoFamilies: [String: String] = [
        "avc1": "avc", "avc3": "avc", "hvc1": "hevc", "hev1": "hevc", "dvh1": "dolby vision", "dvhe": "dolby vision", "av01": "av1",
        "vp09": "vp9",
    ]

    /// CODECS against the media (RFC 8216bis §4.4.6.2): a video codec of the media's family, with its profile, tier and
    /// level as the bytes give them; in fMP4 an HEVC or Dolby Vision sample entry's type too (`hvc1` keeps the parameter sets
    /// in the sample entry, `hev1` in band as well: not every player plays both). A Dolby Vision configuration in a plain HEVC
    /// sample entry is listed in SUPPLEMENTAL-CODECS.
    static func codecFindings(_ v: VariantMeasure, declared c: String, media: String) -> [MediaFinding] {
        var out: [MediaFinding] = []
        // Compared without case (RFC 6381 §3.3: the codec names are case-insensitive); said as written.
        let family = videoFamilies[String(media.prefix(4)).lowercased()]
        let declared = c.split(separator: ",").map { $0.trimmingCharacters(in: " ") }.filter {
            videoFamilies[String($0.prefix(4)).lowercased()] != nil
        }
        let measured = media.lowercased()
        let typeMatters = v.sampleEntry != nil && family != "avc"
        let source = v.sampleEntry == nil ? "SPS" : "init section"
        if declared.isEmpty {
            out.append(
                MediaFinding(
                    rule: "codecs-missing-video", must: true, section: rfc("4.4.6.2"), variant: v.index,
                    message: "\(v.name): the media is \(media) but CODECS \"\(c)\" lists no video codec"))
        } else if !declared.map({ $0.lowercased() }).contains(where: {
            videoFamilies[String($0.prefix(4))] == family && $0.dropFirst(4) == measured.dropFirst(4)
                && (!typeMatters || $0.prefix(4) == measured.prefix(4))
        }) {
            out.append(
                MediaFinding(
                    rule: "codecs-video", must: true, section: rfc("4.4.6.2"), variant: v.index,
                    message:
                        "\(v.name): CODECS says \(declared.joined(separator: ", ")), the media's \(source) says \(media) (profile and level as the bytes give them)"
                ))
        }
        if let dv = v.supplementalVideoCodec?.lowercased() {
            let listed = (v.supplementalCodecs ?? "").split(separator: ",").map {
                $0.split(separator: "/").first.map { $0.trimmingCharacters(in: " ").lowercased() } ?? ""
            }
            if !listed.contains(dv) {
                out.append(
                    MediaFinding(
                        rule: "supplemental-codecs", must: false, section: rfc("4.4.6.2"), variant: v.index,
                        message:
                            "\(v.name): the media carries Dolby Vision \(dv) in its HEVC sample entry; SUPPLEMENTAL-CODECS \(v.supplementalCodecs.map { "says \"\($0)\"" } ?? "is absent")"
                    ))
            }
        }
        return out
    }

    /// RESOLUTION, FRAME-RATE and VIDEO-RANGE against the SPS (RFC 8216bis §4.4.6.2): the picture's size shown (its sample
    /// aspect applied; the coded size also passes), the VUI's frame rate not over the declared maximum (a rate the VUI does
    /// not give is not checked), and the range the transfer characteristics require.
    static func pictureFindings(_ v: VariantMeasure) -> [MediaFinding] {
        guard let sps = v.sps else { return [] }
        var out: [MediaFinding] = []
        if let r = v.resolution, !((r.width == sps.width || r.width == sps.displayWidth) && r.height == sps.height) {
            let shown = sps.displayWidth == sps.width ? "" : " (shown \(sps.displayWidth)x\(sps.height))"
            out.append(
                MediaFinding(
                    rule: "resolution", must: false, section: rfc("4.4.6.2"), variant: v.index,
                    message: "\(v.name): RESOLUTION says \(r.width)x\(r.height), the media's SPS \(sps.width)x\(sps.height)\(shown)"))
        }
        if let declared = v.frameRate, let measured = sps.frameRate, measured > declared * 1.001 + 0.0005 {
            out.append(
                MediaFinding(
                    rule: "frame-rate", must: true, section: rfc("4.4.6.2"), variant: v.index,
                    message:
                        "\(v.name): FRAME-RATE says at most \(fixed(declared, 3)), the media's SPS times \(fixed(measured, 3)) frames a second"
                ))
        }
        // §4.4.6.2: SDR for transfer characteristics 1, 6, 13, 14, 15; HLG for 18; PQ for 16 (and the others ITU-T H.273 lists
        // with them: PQ 16, HLG 18 only, here).
        let required: String? =
            switch sps.transfer {
            case 1, 6, 13, 14, 15: "SDR"
            case 16: "PQ"
            case 18: "HLG"
            default: nil
            }
        let declaredRange = v.videoRange ?? "SDR"
        if let required, required != declaredRange {
            out.append(
                MediaFinding(
                    rule: "video-range", must: true, section: rfc("4.4.6.2"), variant: v.index,
                    message:
                        "\(v.name): VIDEO-RANGE \(v.videoRange.map { "says \($0)" } ?? "is absent (SDR)"), the media's transfer characteristics (\(sps.transfer ?? 0)) are \(required)"
                ))
        }
        return out
    }

    /// The rules on the segments' own media: each opens with an independent frame (RFC 8216bis §4.4.2.1 when the playlist
    /// says so; Apple's authoring specification otherwise), timestamps continue from one segment to the next unless an
    /// EXT-X-DISCONTINUITY says otherwise (§4.4.4.3), and audio keeps its offset to video.
    static func segmentFindings(_ v: VariantMeasure) -> [MediaFinding] {
        var out: [MediaFinding] = []
        let dependent = v.segments.filter { $0.independent == false }
        if !dependent.isEmpty {
            let list = dependent.prefix(5).map { String($0.msn) }.joined(separator: ", ") + (dependent.count > 5 ? ", …" : "")
            out.append(
                MediaFinding(
                    rule: "segment-not-independent", must: v.independentSegments,
                    section: v.independentSegments ? rfc("4.4.2.1") : "Apple HLS authoring spec", variant: v.index,
                    message:
                        "\(v.name): \(dependent.count) segment\(dependent.count == 1 ? "" : "s") (msn \(list)) \(dependent.count == 1 ? "opens" : "open") with a frame that needs an earlier one (no IDR or sync sample first)"
                        + (v.independentSegments ? "; the playlist declares EXT-X-INDEPENDENT-SEGMENTS" : "")))
        }
        var jumps: [(SegmentMeasure, Double, Double)] = []
        var moves: [(SegmentMeasure, Double, Double)] = []
        for (a, b) in zip(v.segments, v.segments.dropFirst()) {
            if let gap = SegmentMediaRules.jump(from: a, to: b) { jumps.append((b, gap, a.duration)) }
            if let (o0, o1) = SegmentMediaRules.offsetMove(from: a, to: b) { moves.append((b, o0, o1)) }
        }
        if let (b, gap, extinf) = jumps.first {
            out.append(
                MediaFinding(
                    rule: "timestamps-continuous", must: true, section: rfc("4.4.4.3"), variant: v.index,
                    message:
                        "\(v.name): " + SegmentMediaRules.jumpText(msn: b.msn, gap: gap, extinf: extinf)
                        + (jumps.count > 1 ? "; \(jumps.count - 1) more such" : "")))
        }
        if let (b, o0, o1) = moves.first {
            out.append(
                MediaFinding(
                    rule: "av-offset", must: false, section: "Apple HLS authoring spec", variant: v.index,
                    message:
                        "\(v.name): " + SegmentMediaRules.offsetText(msn: b.msn, discontinuity: b.discontinuity, from: o0, to: o1)
                        + (moves.count > 1 ? "; \(moves.count - 1) more such" : "")))
        }
        // EXTINF is the segment's duration (RFC 8216bis §4.4.4.1): its video measured from its frames, more than a tenth of a
        // second (and 5 %) away from it, accumulates into a playhead that drifts from the playlist's.
        let off = v.segments.compactMap { s -> (SegmentMeasure, Double)? in
            guard let d = s.videoDuration, abs(d - s.duration) > max(0.1, s.duration * 0.05) else { return nil }
            return (s, d)
        }
        if let (s, d) = off.first {
            out.append(
                MediaFinding(
                    rule: "extinf-duration", must: false, section: rfc("4.4.4.1"), variant: v.index,
                    message:
                        "\(v.name): msn \(s.msn)'s EXTINF is \(fixed(s.duration, 3)) s, its video lasts \(fixed(d, 3)) s"
                        + (off.count > 1 ? "; \(off.count - 1) more such" : "")))
        }
        return out
    }

    /// Every finding: the variants', then the subtitle renditions' (numbered after the variants), then the live reloads'.
    public static func findings(
        _ measures: [VariantMeasure], audio: [VariantMeasure] = [], subtitles: [SubtitleMeasure], iframes: [IFrameMeasure] = [],
        live: LiveWatchSummary? = nil
    ) -> [MediaFinding] {
        measures.flatMap(findings) + audioCodecFindings(measures, audio: audio) + alignmentFindings(measures)
            + audio.flatMap(segmentFindings)
            + renditionFindings(audio, against: measures)
            + subtitles.enumerated().flatMap { SubtitleChecks.findings($1, index: measures.count + audio.count + $0) }
            + iframes.enumerated().flatMap { IFrameChecks.findings($1, index: measures.count + audio.count + subtitles.count + $0) }
            + (live?.findings ?? [])
    }

    /// CODECS against the audio (RFC 8216bis §4.4.6.2: every media format in the variant's segments and in those of the
    /// renditions it names): each audio codec measured — in its own segments, in each rendition of its AUDIO group — named by
    /// a CODECS entry (`AudioCodecs.names`: AAC-LC in the bytes may be HE-AAC signalled implicitly).
    static func audioCodecFindings(_ measures: [VariantMeasure], audio: [VariantMeasure]) -> [MediaFinding] {
        var out: [MediaFinding] = []
        for v in measures {
            guard let c = v.codecs else { continue }
            var present: [(codec: String, from: String)] = v.audioCodec.map { [($0, "its segments")] } ?? []
            for r in audio where v.audioGroup != nil && r.audioGroup == v.audioGroup {
                if let a = r.audioCodec, !present.contains(where: { $0.codec == a }) { present.append((a, r.name)) }
            }
            let declared = c.split(separator: ",").map { $0.trimmingCharacters(in: " ") }.filter(AudioCodecs.isAudio)
            for p in present where !declared.contains(where: { AudioCodecs.names($0, p.codec) }) {
                let says = declared.isEmpty ? "lists no audio codec" : "says \(declared.joined(separator: ", "))"
                out.append(
                    MediaFinding(
                        rule: "codecs-audio", must: true, section: rfc("4.4.6.2"), variant: v.index,
                        message: "\(v.name): CODECS \(says), the audio in \(p.from) is \(p.codec)"))
            }
        }
        return out
    }

    /// RFC 8216bis §6.2.4: an audio rendition's timestamps against the variants' audio at the same msn (their video when they
    /// carry no audio of their own): more than a tenth of a second apart (two hundredths more against video, where AAC's
    /// priming puts audio a little ahead), its audio and the picture drift apart as it plays.
    static func renditionFindings(_ audio: [VariantMeasure], against measures: [VariantMeasure]) -> [MediaFinding] {
        guard let reference = measures.first(where: { v in v.segments.contains { $0.videoStart != nil } }) else { return [] }
        let starts = Dictionary(
            reference.segments.compactMap { s in (s.audioStart ?? s.videoStart).map { (s.msn, ($0, s.audioStart != nil)) } },
            uniquingKeysWith: { a, _ in a })
        var out: [MediaFinding] = []
        for r in audio {
            let apart = r.segments.compactMap { s -> (msn: Int, by: Double)? in
                guard let a = s.audioStart, let (b, sameKind) = starts[s.msn], abs(a - b) > (sameKind ? 0.1 : 0.12) else { return nil }
                return (s.msn, a - b)
            }
            guard let at = apart.first else { continue }
            let more = apart.count > 1 ? " (and \(apart.count - 1) more of \(r.segments.count) read)" : ""
            out.append(
                MediaFinding(
                    rule: "rendition-aligned", must: true, section: rfc("6.2.4"), variant: r.index,
                    message:
                        "\(r.name): its timestamps lie \(fixed(abs(at.by), 3)) s \(at.by > 0 ? "after" : "before") \(reference.name)'s at msn \(at.msn)\(more): a rendition's content must have the variants' timestamps"
                ))
        }
        return out
    }

    /// RFC 8216bis §6.2.4: matching content in variants MUST have matching timestamps. Each variant's segments are held
    /// against the first variant's of the same kind (video against video, audio-only against audio-only) at the same msn —
    /// first timestamps more than a tenth of a second apart (a rung switch would jump) are named, once per variant.
    static func alignmentFindings(_ measures: [VariantMeasure]) -> [MediaFinding] {
        var out: [MediaFinding] = []
        for video in [true, false] {
            let kind = measures.filter { v in
                v.segments.contains { video ? $0.videoStart != nil : $0.videoStart == nil && $0.audioStart != nil }
            }
            guard let first = kind.first else { continue }
            let reference = Dictionary(first.segments.compactMap { s in s.start.map { (s.msn, $0) } }, uniquingKeysWith: { a, _ in a })
            for v in kind.dropFirst() {
                let apart = v.segments.compactMap { s -> (msn: Int, by: Double)? in
                    guard let a = s.start, let b = reference[s.msn], abs(a - b) > 0.1 else { return nil }
                    return (s.msn, a - b)
                }
                guard let at = apart.first else { continue }
                let more = apart.count > 1 ? " (and \(apart.count - 1) more of \(v.segments.count) read)" : ""
                let how = at.by > 0 ? "after" : "before"
                out.append(
                    MediaFinding(
                        rule: "variants-aligned", must: true, section: rfc("6.2.4"), variant: v.index,
                        message:
                            "\(v.name): its timestamps lie \(fixed(abs(at.by), 3)) s \(how) \(first.name)'s at msn \(at.msn)\(more): matching content in variants must have matching timestamps"
                    ))
            }
        }
        return out
    }

    /// The report's lines for `measures` with their findings.
    public static func text(
        _ measures: [VariantMeasure], audio: [VariantMeasure] = [], subtitles: [SubtitleMeasure] = [], iframes: [IFrameMeasure] = [],
        live: LiveWatchSummary? = nil
    ) -> [String] {
        var out = ["media measured (\(measures.reduce(0) { $0 + $1.measured }) segments):"]
        func kbps(_ b: Double?) -> String { b.map { "\(Int(($0 / 1000).rounded()))k" } ?? "-" }
        for v in measures {
            var line = "  #\(v.index) \(v.name)  peak \(kbps(v.peak))"
            if let bw = v.bandwidth { line += " / BANDWIDTH \(kbps(Double(bw)))" }
            line += "  average \(kbps(v.average))"
            if let a = v.averageBandwidth { line += " / AVERAGE-BANDWIDTH \(kbps(Double(a)))" }
            if let c = v.videoCodec { line += "  video \(c)" }
            if let sps = v.sps {
                line += " \(sps.width)x\(sps.height)"
                if let f = sps.frameRate { line += " \(f == f.rounded() ? String(Int(f)) : fixed(f, 3)) fps" }
            }
            let offsets = v.segments.compactMap(\.avOffset).sorted()
            if let a = v.audioCodec {
                line += "  audio \(a)" + (offsets.isEmpty ? "" : " \(SegmentMediaRules.audio(offsets[offsets.count / 2]))")
            } else if !offsets.isEmpty {
                line += "  audio \(SegmentMediaRules.audio(offsets[offsets.count / 2]))"
            }
            line += "  (\(v.measured) of \(v.listed) segments\(v.separateAudio ? "; its audio renditions apart" : ""))"
            out.append(line)
        }
        for r in audio {
            let offsets = r.segments.compactMap(\.audioStart)
            out.append(
                "  \(r.name)  peak \(kbps(r.peak))  average \(kbps(r.average))\(r.audioCodec.map { "  \($0)" } ?? "")  (\(r.measured) of \(r.listed) segments"
                    + (offsets.isEmpty ? "" : ", audio from \(fixed(offsets[0], 3)) s") + ")")
        }
        out += SubtitleChecks.text(subtitles) + IFrameChecks.text(iframes)
        if let w = live, w.playlists == 0 {
            out.append("  live: nothing more read: every playlist has ended (EXT-X-ENDLIST or VOD)")
        } else if let w = live {
            out.append(
                "  live: \(formatSeconds(w.seconds)) s watched, \(w.reloads) reload\(w.reloads == 1 ? "" : "s") of \(w.playlists) playlist\(w.playlists == 1 ? "" : "s"), \(w.newSegments) new segment\(w.newSegments == 1 ? "" : "s") measured"
            )
        }
        let all = findings(measures, audio: audio, subtitles: subtitles, iframes: iframes, live: live)
        out.append(all.isEmpty ? "media: no problems found" : "media findings (\(all.count)):")
        for f in all { out.append("  \(f.must ? "must fix" : "should fix"): \(f.message) (\(f.rule), \(f.section))") }
        return out
    }

    /// One measured variant or rendition, with each segment read.
    static func variantJSON(_ v: VariantMeasure) -> JSONValue {
        .object([
            ("index", .int(v.index)), ("name", .string(v.name)), ("bandwidth", .int(v.bandwidth)),
            ("averageBandwidth", .int(v.averageBandwidth)), ("codecs", .string(v.codecs)), ("measured", .int(v.measured)),
            ("listed", .int(v.listed)), ("peak", .double(v.peak.rounded())), ("average", .double(v.average.rounded())),
            ("peakMsn", .int(v.peakMSN)), ("videoCodec", .string(v.videoCodec)), ("audioCodec", .string(v.audioCodec)),
            ("separateAudio", .bool(v.separateAudio)),
            (
                "picture",
                v.sps.map { sps in
                    .object([
                        ("width", .int(sps.width)), ("height", .int(sps.height)), ("displayWidth", .int(sps.displayWidth)),
                        ("frameRate", .double(sps.frameRate)), ("transfer", .int(sps.transfer)),
                    ])
                } ?? .null
            ),
            (
                "segments",
                .array(
                    v.segments.map { s in
                        .object([
                            ("msn", .int(s.msn)), ("extinf", .double(s.duration)),
                            ("discontinuity", .bool(s.discontinuity)),
                            ("videoStart", .double(s.videoStart)), ("audioStart", .double(s.audioStart)),
                            ("independent", s.independent.map { .bool($0) } ?? .null),
                            ("videoDuration", .double(s.videoDuration)),
                        ])
                    })
            ),
        ])
    }

    public static func json(
        _ measures: [VariantMeasure], audio: [VariantMeasure] = [], subtitles: [SubtitleMeasure] = [], iframes: [IFrameMeasure] = [],
        live: LiveWatchSummary? = nil
    ) -> JSONValue {
        .object([
            ("variants", .array(measures.map(variantJSON))),
            ("audio", .array(audio.map(variantJSON))),
            (
                "subtitles", SubtitleChecks.json(subtitles)
            ),
            ("iframes", IFrameChecks.json(iframes)),
            (
                "live",
                live.map { w in
                    .object([
                        ("seconds", .double(w.seconds)), ("playlists", .int(w.playlists)), ("reloads", .int(w.reloads)),
                        ("newSegments", .int(w.newSegments)),
                    ])
                } ?? .null
            ),
            (
                "findings",
                .array(
                    findings(measures, audio: audio, subtitles: subtitles, iframes: iframes, live: live).map { f in
                        .object([
                            ("rule", .string(f.rule)), ("severity", .string(f.must ? "must" : "should")), ("section", .string(f.section)),
                            ("variant", .int(f.variant)), ("message", .string(f.message)),
                        ])
                    })
            ),
        ])
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

private func rfc(_ section: String) -> String { "RFC 8216bis §" + section }
