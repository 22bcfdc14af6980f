import HLS
import MediaFormats

/// One partial segment of a low-latency segment: a slice of its bytes (RFC 8216bis §3.2: a parent segment and its parts hold
/// the same samples).
public struct PartSlice: Sendable, Equatable {
    public var range: Range<Int>
    public var duration: Double
    /// It starts with the IDR frame its media segment opens with.
    public var independent: Bool
}

/// A ladder rendition cut again for LL-HLS: `group` of its media segments per segment, each media segment split into `split`
/// parts at the video frame that starts each share of its time, in decode order (a part is a run of frames as decoded; its
/// duration is the decode time it spans). MPEG-TS: a part is a run of whole packets, cut at a video PES. fMP4: a part is a
/// fragment of its own (`moof` + `mdat`, `FragmentSplit`), after the rendition's one `EXT-X-MAP`. Either way the parts of a
/// segment concatenate to the segment.
public struct LowLatencyRendition: Sendable {
    /// The rendition with its segments merged `group` by `group`.
    public var rendition: MediaRendition
    /// The parts of each merged segment, by loop position.
    public var parts: [[PartSlice]]

    public static func make(_ r: MediaRendition, group: Int, split: Int) -> LowLatencyRendition? {
        guard group > 0, split > 0, r.segments.count % group == 0 else { return nil }
        let tracks = r.initSection.map { FragmentedMP4.tracks(initSection: $0) } ?? []
        var merged: [MediaSegment] = []
        var parts: [[PartSlice]] = []
        for g in stride(from: 0, to: r.segments.count, by: group) {
            let members = Array(r.segments[g..<(g + group)])
            var bytes: [UInt8] = []
            var slices: [PartSlice] = []
            for m in members {
                let cuts = (1..<split).map { m.duration * Double($0) / Double(split) }
                guard
                    let pieces = r.container == .ts ? tsParts(m, at: cuts) : FragmentSplit.split(segment: m.bytes, tracks: tracks, at: cuts)
                else { return nil }
                for p in pieces {
                    // To the microsecond, as a packager writes it (0.333333, not 0.33333333333333304).
                    let duration = (p.duration * 1_000_000).rounded() / 1_000_000
                    slices.append(
                        PartSlice(range: bytes.count..<(bytes.count + p.bytes.count), duration: duration, independent: p.independent))
                    bytes += p.bytes
                }
            }
            merged.append(
                MediaSegment(
                    index: g / group, duration: members.reduce(0) { $0 + $1.duration }, bytes: bytes, firstTime: members[0].firstTime,
                    iFrameRange: nil))
            parts.append(slices)
        }
        var out = r
        out.segments = merged
        out.nominalDuration = r.nominalDuration * Double(group)
        return LowLatencyRendition(rendition: out, parts: parts)
    }

    /// An MPEG-TS media segment cut at the video PES that starts at or after each of `cuts` (seconds into it); the first part
    /// opens with the segment's IDR frame.
    static func tsParts(_ m: MediaSegment, at cuts: [Double]) -> [FragmentSplit.Piece]? {
        let starts = TransportStream.videoPESStarts(m.bytes)
        guard let first = starts.first else { return nil }
        var offsets = [0]
        var times = [0.0]
        for want in cuts {
            guard let c = starts.first(where: { Double($0.dts &- first.dts) / 90000 >= want - 0.0005 }) else { return nil }
            offsets.append(c.offset)
            times.append(Double(c.dts &- first.dts) / 90000)
        }
        offsets.append(m.bytes.count)
        times.append(m.duration)
        return offsets.indices.dropLast().map { k in
            FragmentSplit.Piece(
                bytes: Array(m.bytes[offsets[k]..<offsets[k + 1]]), duration: times[k + 1] - times[k], independent: k == 0)
        }
    }
}

/// The LL-HLS timeline of one rendition (pure): which parts exist at a time, the playlist with parts, preload hint, rendition
/// reports and delta updates, and when a blocked request can be answered (RFC 8216bis §4.4.3.7–§4.4.5.4, §6.2.5, §6.2.6).
public struct LowLatencyModel: Sendable {
    public let model: StreamModel
    public let parts: [[PartSlice]]
    /// PART-TARGET: the longest part, to the millisecond above.
    public let partTarget: Double
    /// Segments listed: enough that a delta update (skip boundary six target durations) has segments to skip.
    public static let window = 12

    public init(scenario: Scenario, rendition: LowLatencyRendition) {
        model = StreamModel(scenario: scenario, rendition: rendition.rendition)
        parts = rendition.parts
        partTarget = ((parts.flatMap { $0.map(\.duration) }.max() ?? 1) * 1000).rounded(.up) / 1000
    }

    func position(_ n: Int) -> Int { ((n % parts.count) + parts.count) % parts.count }

    /// The end of part `i` of absolute segment `n`, seconds into the segment.
    func partEnd(_ n: Int, _ i: Int) -> Double { parts[position(n)].prefix(i + 1).reduce(0) { $0 + $1.duration } }

    /// Parts of absolute segment `n` published at `now` (publishing delay already taken off).
    public func partsPublished(_ n: Int, at now: Double) -> Int {
        let elapsed = now - model.start(n)
        var count = 0
        var end = 0.0
        for p in parts[position(n)] {
            end += p.duration
            guard end <= elapsed + 1e-6 else { break }
            count += 1
        }
        return count
    }

    /// The wall-clock time part `part` of the segment with media sequence `msn` is published (a part index past the segment's
    /// last is part 0 of the next, §6.2.5.2); `part` nil: when the segment is complete.
    public func published(msn: Int, part: Int?, overrides o: LiveOverrides) -> Double {
        var n = msn + (o.resetIndex ?? 0)
        guard var i = part else { return model.start(n + 1) + o.extraDelay }
        if i >= parts[position(n)].count {
            n += 1
            i = 0
        }
        return model.start(n) + partEnd(n, i) + o.extraDelay
    }

    /// The media sequence number of the newest complete segment at `now`.
    public func lastCompleteMSN(at now: Double, overrides o: LiveOverrides) -> Int {
        model.lastAvailable(at: (o.freezeAt ?? now) - o.extraDelay) - (o.resetIndex ?? 0)
    }

    /// The file extension of its parts, as of its segments: `ts`, or `m4s` for fMP4.
    var partExtension: String { model.rendition.container.segmentExtension }

    public func partURI(_ n: Int, _ i: Int) -> String { "s\(n).\(i).\(partExtension)" }

    /// The absolute segment and part a part file name names (`s<n>.<i>.ts`, `.m4s`), or nil.
    public func partIndex(file: String) -> (segment: Int, part: Int)? {
        guard file.hasPrefix("s"), file.hasSuffix(".\(partExtension)") else { return nil }
        let fields = file.dropFirst().dropLast(partExtension.count + 1).split(separator: ".")
        guard fields.count == 2, let n = Int(fields[0]), let i = Int(fields[1]), i >= 0, i < parts[position(n)].count else { return nil }
        return (n, i)
    }

    /// The bytes of part `i` of absolute segment `n`: MPEG-TS parts are runs of whole packets, so a continuous scenario's
    /// part is moved on with its loop as its segment is (`StreamModel.loopShift`, `continuityShift`).
    public func partBytes(_ n: Int, _ i: Int) -> [UInt8] {
        let bytes = Array(model.rendition.segments[position(n)].bytes[parts[position(n)][i].range])
        guard model.scenario.continuous, model.rendition.container == .ts else { return bytes }
        let moved = TransportStream.shiftingTimestamps(bytes, by: Int64((model.loopShift(n) * 90_000).rounded()))
        return TransportStream.shiftingContinuity(moved, by: model.continuityShift(n))
    }

    /// The media playlist at `now`: complete segments, the parts of the last three target durations and of the segment in
    /// progress, the next part as a preload hint, one rendition report per other rendition in `reports`; with `skip`, the
    /// delta update (§6.2.5.1) that replaces the segments beyond the skip boundary with EXT-X-SKIP.
    /// `wrongSkip`: the fault of a delta update whose EXT-X-SKIP counts one segment more than it replaced, so every segment
    /// it lists reads one place off.
    /// `falseHint`: the fault of a preload hint naming a part that is never published (its URI answers 404).
    public func playlist(
        at now: Double, overrides o0: LiveOverrides, skip: Bool, reports: [String], wrongSkip: Bool = false, falseHint: Bool = false
    ) -> Playlist {
        var o = o0
        o.windowSegments = o.windowSegments ?? Self.window
        var p = model.mediaPlaylist(at: now, overrides: o)
        guard case .media(var m) = p.body, let target = m.targetDuration else { return p }
        let truths = model.window(at: now, overrides: o)
        let t = (o.freezeAt ?? now) - o.extraDelay
        let base = o.resetIndex ?? 0
        m.partTarget = partTarget
        m.serverControl = ServerControl(
            canSkipUntil: Double(target * 6), canSkipDateRanges: false, holdBack: Double(target * 3), partHoldBack: partTarget * 3,
            canBlockReload: true)
        func part(_ n: Int, _ i: Int) -> Part {
            let s = parts[position(n)][i]
            return Part(uri: partURI(n, i), duration: s.duration, independent: s.independent, gap: false)
        }
        // Parts stay on the segments that end within three target durations of the playlist's end (§6.2.2).
        let inProgress = (truths.last?.index ?? (model.lastAvailable(at: t))) + 1
        let published = partsPublished(inProgress, at: t)
        var fromEnd = partEnd(inProgress, published - 1)
        for k in truths.indices.reversed() {
            guard fromEnd <= Double(target * 3) + 1e-6 else { break }
            let n = truths[k].index
            m.segments[k].parts = parts[position(n)].indices.map { part(n, $0) }
            fromEnd += truths[k].duration
        }
        m.trailingParts = (0..<published).map { part(inProgress, $0) }
        m.trailingDiscontinuity = published > 0 && position(inProgress) == 0 && model.restartsTimeline(inProgress)
        // Its date before its parts (§4.4.4.6), as on every segment of the live window.
        let progress = model.truth(inProgress, overrides: o)
        if published > 0 && progress.tagged { m.trailingProgramDateTime = progress.pdt }
        m.preloadHints = [PreloadHint(type: "PART", uri: partURI(inProgress, published) + (falseHint ? ".never" : ""))]
        // The renditions share this clock: the same last part (§4.4.5.4).
        let lastMSN = published > 0 ? inProgress - base : inProgress - 1 - base
        let lastPart = published > 0 ? published - 1 : parts[position(inProgress - 1)].count - 1
        m.renditionReports = reports.map { RenditionReport(uri: "../\($0)/index.m3u8", lastMSN: lastMSN, lastPart: lastPart) }
        if skip {
            // Segments whose end lies further from the end of the last segment than the skip boundary (§6.2.5.1).
            var after = 0.0
            var skipped = 0
            for k in truths.indices.reversed() {
                if after > Double(target * 6) + 1e-6 {
                    skipped = k + 1
                    break
                }
                after += truths[k].duration
            }
            if skipped > 0 {
                m.segments.removeFirst(skipped)
                m.skip = Skip(skippedSegments: skipped + (wrongSkip ? 1 : 0), recentlyRemovedDateRanges: [])
            }
        }
        p.body = .media(m)
        p.version = 9
        return p
    }
}
