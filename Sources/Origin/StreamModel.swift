import HLS
import MediaFormats

/// What the origin knows about one segment it serves: the truth tests compare hlstui against.
public struct SegmentTruth: Sendable, Equatable {
    /// Media sequence number as the playlist states it.
    public var msn: Int
    /// Absolute segment number since the stream's epoch (live) or position (VOD).
    public var index: Int
    /// Position in the encoded loop.
    public var position: Int
    public var uri: String
    public var pdt: DateTime
    public var duration: Double
    /// First media timestamp of the segment's bytes, seconds.
    public var mediaTime: Double
    public var discontinuity: Bool
    public var discontinuitySequence: Int
    public var gap: Bool
    public var keyID: Int?
    /// Whether the playlist tags this segment with its PDT (every live segment, unless the stream tags only the first segment
    /// after a discontinuity or has lost PDT).
    public var tagged = true
    /// The segment has no PDT at all: published while a `nopdt` fault was on.
    public var withoutPDT = false
}

/// Live-state changes faults make: a frozen playlist and a media-sequence reset.
public struct LiveOverrides: Sendable, Equatable {
    /// Serve the window as it was at this time.
    public var freezeAt: Double?
    /// Segments before this absolute index no longer exist, and numbering restarts at 0 from it.
    public var resetIndex: Int?
    /// Seconds of publishing delay on top of the scenario's (a camera's encoder further away): its playlist lists later.
    public var extraDelay = 0.0
    /// Segments in the live window, instead of `OriginTiming.liveWindow`.
    public var windowSegments: Int?
    /// Seconds added to every PDT (an encoder whose clock is off).
    public var pdtOffset = 0.0
    /// Parts per million the media runs fast against its PDT (an encoder clock that drifts): from `driftEpoch` on, each
    /// segment's PDT advances by its duration × (1 − drift), while EXTINF keeps the nominal duration.
    public var driftPPM = 0.0
    /// Seconds since 1970 from which the drift accumulates (the origin's start).
    public var driftEpoch = 0.0
    /// PDT only on the first segment after each discontinuity (RFC 8216bis §4.4.4.6 lets it be extrapolated from there). A
    /// continuous scenario then marks each loop's start with a discontinuity too, its timestamps going on (an encoder that
    /// tags the start of each programme), so that PDT comes once a loop.
    public var pdtAtDiscontinuitiesOnly = false
    /// Wall-clock ranges (seconds since 1970, end nil: still on) in which segments were published without PDT: the encoder
    /// lost its clock. A discontinuity marks where PDT stops and where it comes back.
    public var withoutPDT: [(from: Double, to: Double?)] = []

    public static func == (a: LiveOverrides, b: LiveOverrides) -> Bool {
        a.freezeAt == b.freezeAt && a.resetIndex == b.resetIndex && a.extraDelay == b.extraDelay && a.windowSegments == b.windowSegments
            && a.pdtOffset == b.pdtOffset && a.driftPPM == b.driftPPM && a.driftEpoch == b.driftEpoch
            && a.pdtAtDiscontinuitiesOnly == b.pdtAtDiscontinuitiesOnly
            && a.withoutPDT.map(\.from) == b.withoutPDT.map(\.from) && a.withoutPDT.map(\.to) == b.withoutPDT.map(\.to)
    }
    public init(freezeAt: Double? = nil, resetIndex: Int? = nil) {
        self.freezeAt = freezeAt
        self.resetIndex = resetIndex
    }
}

/// The timeline of one rendition in one scenario: which segments exist at a time, with PDT, keys and GAPs (pure).
public struct StreamModel: Sendable {
    public let scenario: Scenario
    public let rendition: MediaRendition
    /// Segment cadence source for subtitles, which have no media of their own.
    let durations: [Double]
    let offsets: [Double]
    /// The timing grid: segment n starts at n × cadence (+ camera offset) on the wall clock.
    public let cadence: Double

    public init(scenario: Scenario, rendition: MediaRendition) {
        self.scenario = scenario
        self.rendition = rendition
        durations = rendition.segments.map(\.duration)
        var o: [Double] = []
        var acc = 0.0
        for d in durations { o.append(acc); acc += d }
        offsets = o
        cadence = rendition.nominalDuration
    }

    var count: Int { durations.count }

    /// Camera offset and latency (0 for the ladder).
    var gridOffset: Double {
        if case .camera(_, let offset, _) = scenario.kind { return offset }
        return 0
    }

    var latency: Double {
        if case .camera(_, _, let latency) = scenario.kind { return latency }
        return 0
    }

    /// Start of absolute segment `n` on the wall clock (live), in seconds since 1970.
    public func start(_ n: Int) -> Double { Double(n) * cadence + gridOffset }

    /// The last absolute segment fully available at `now` (live): its end plus the scenario's latency has passed.
    public func lastAvailable(at now: Double) -> Int {
        Int(((now - latency - gridOffset) / cadence).rounded(.down)) - 1
    }

    func isGap(position: Int) -> Bool {
        guard case .ladder(_, _, _, let gap, _) = scenario.kind, OriginTiming.gapPositions.contains(position) else { return false }
        switch gap {
        case .none: return false
        case .allRungs: return true
        case .oneRung(let r): return r == rendition.id
        }
    }

    var encryption: Encryption {
        if case .ladder(_, _, let e, _, _) = scenario.kind { return e }
        return .none
    }

    var aes: Bool { encryption != .none }

    var define: Bool {
        if case .ladder(_, _, _, _, let define) = scenario.kind { return define }
        return false
    }

    /// The segments listed at `now`: the sliding window for live, all for VOD.
    public func window(at now: Double, overrides: LiveOverrides = LiveOverrides()) -> [SegmentTruth] {
        let indexes: [Int]
        let base = overrides.resetIndex ?? 0
        if scenario.isLive {
            let last = lastAvailable(at: (overrides.freezeAt ?? now) - overrides.extraDelay)
            let first = max(overrides.resetIndex ?? Int.min, last - (overrides.windowSegments ?? OriginTiming.liveWindow) + 1)
            indexes = first <= last ? Array(first...last) : []
        } else {
            indexes = Array(0..<count)
        }
        let marked = overrides.pdtAtDiscontinuitiesOnly
        let baseLoops = overrides.resetIndex.map { timelineBreaks($0, everyLoop: marked) } ?? 0
        return indexes.map { n in
            let pos = ((n % count) + count) % count
            let loops = scenario.isLive && pos == 0 && n != (overrides.resetIndex ?? 0) && (marked || restartsTimeline(n))
            let outage = scenario.isLive && pdtChanges(at: n, overrides)
            var t = SegmentTruth(
                msn: n - base, index: n, position: pos, uri: segmentURI(n), pdt: pdt(n, pos, overrides), duration: durations[pos],
                mediaTime: rendition.segments[pos].firstTime + loopShift(n), discontinuity: loops || outage,
                discontinuitySequence: timelineBreaks(n, everyLoop: marked) - baseLoops
                    + outageEdges(through: n, overrides, everyLoop: marked),
                gap: isGap(position: pos), keyID: aes ? n / OriginTiming.keyRotation : nil)
            t.withoutPDT = scenario.isLive && lacksPDT(n, overrides)
            t.tagged = !t.withoutPDT && (!overrides.pdtAtDiscontinuitiesOnly || t.discontinuity)
            return t
        }
    }

    /// The PDT of absolute segment `n` (loop position `pos`): live from the wall-clock grid, offset and drifting as the
    /// overrides say; VOD from `OriginTiming.vodStart`.
    func pdt(_ n: Int, _ pos: Int, _ o: LiveOverrides) -> DateTime {
        guard scenario.isLive else { return OriginTiming.vodStart.adding(seconds: offsets[pos]) }
        let s = start(n)
        return DateTime(seconds: s + o.pdtOffset - o.driftPPM / 1_000_000 * (s - o.driftEpoch))
    }

    /// Segment `n` was published while the encoder had no clock.
    func lacksPDT(_ n: Int, _ o: LiveOverrides) -> Bool {
        let s = start(n)
        return o.withoutPDT.contains { s >= $0.from && s < ($0.to ?? .infinity) }
    }

    /// The first segment published at or after wall-clock moment `edge`.
    func firstSegment(from edge: Double) -> Int { Int(((edge - gridOffset) / cadence).rounded(.up)) }

    /// Segment `n` is where PDT stops or comes back.
    func pdtChanges(at n: Int, _ o: LiveOverrides) -> Bool {
        o.withoutPDT.contains { r in firstSegment(from: r.from) == n || r.to.map { firstSegment(from: $0) == n } == true }
    }

    /// Discontinuities the PDT outages added up to segment `n` (one where each starts, one where it ends), but those on a
    /// loop's own discontinuity (every loop's start, or `everyLoop`, where the timeline starts again).
    func outageEdges(through n: Int, _ o: LiveOverrides, everyLoop: Bool = false) -> Int {
        o.withoutPDT.flatMap { [firstSegment(from: $0.from)] + ($0.to.map { [firstSegment(from: $0)] } ?? []) }
            .filter { $0 <= n && !($0 % count == 0 && (everyLoop || restartsTimeline($0))) }.count
    }

    func loopNumber(_ n: Int) -> Int { n >= 0 ? n / count : (n - count + 1) / count }

    /// Seconds one loop spans on a continuous timeline: the video's media; an audio-only rendition takes the loop's nominal
    /// length (its segments × the cadence), as an encoder keeps its audio on the video's clock. Its own AAC frames add up to
    /// a little less (19.991 s of a 20 s loop): by its own length its timestamps would fall behind the video's by 8.7 ms a
    /// loop, seconds after a few hundred loops, and a player given the two could never line them up.
    var loopSpan: Double { rendition.hasVideo ? durations.reduce(0, +) : Double(count) * cadence }

    /// A continuous scenario's loops on one timeline: its timestamps stay below the last eighth of the 33-bit 90 kHz clock,
    /// where FFmpeg takes a stream's first timestamp for one about to wrap and makes every later one negative
    /// (docs/PLATFORM.md); the timeline starts again (a listed discontinuity) about once in 23 hours.
    var loopsPerWrap: Int {
        let usable = Double(TransportStream.clockWrap - TransportStream.clockWrap / 8) / 90_000
        return max(1, Int(usable / loopSpan) - 1)
    }

    /// How much later than the media's own timestamps segment `n` plays: the loops before it in a continuous scenario.
    public func loopShift(_ n: Int) -> Double { Double(loopsOnTimeline(n)) * loopSpan }

    /// The loops before segment `n`'s on its timeline (0 but in a continuous live scenario).
    func loopsOnTimeline(_ n: Int) -> Int {
        guard scenario.continuous, scenario.isLive else { return 0 }
        let k = loopNumber(n) % loopsPerWrap
        return k < 0 ? k + loopsPerWrap : k
    }

    /// How much later each PID's MPEG-TS continuity counter runs in segment `n`: a continuous scenario's loops go on from
    /// where the loop before ended, as its timestamps do (`TransportStream.continuityStep`).
    public func continuityShift(_ n: Int) -> [Int: UInt8] {
        let k = loopsOnTimeline(n)
        guard k > 0, rendition.container == .ts, let first = rendition.segments.first, let last = rendition.segments.last else {
            return [:]
        }
        return TransportStream.continuityStep(firstSegment: first.bytes, lastSegment: last.bytes)
            .mapValues { UInt8((Int($0) * k) & 0x0F) }
    }

    /// Where segment `n`'s timeline starts again: every loop, or only where a continuous scenario's clock wraps.
    func restartsTimeline(_ n: Int) -> Bool { !scenario.continuous || loopShift(n) == 0 }

    /// The discontinuities of the timeline up to loop `loopNumber(n)`: one a loop, or one a wrap (continuous, unless
    /// `everyLoop`: each loop's start marked).
    func timelineBreaks(_ n: Int, everyLoop: Bool = false) -> Int {
        let l = loopNumber(n)
        guard scenario.continuous, !everyLoop else { return l }
        return l >= 0 ? l / loopsPerWrap : (l - loopsPerWrap + 1) / loopsPerWrap
    }

    /// The URI a segment is listed under (relative to its media playlist).
    public func segmentURI(_ n: Int) -> String {
        let ext = rendition.container.segmentExtension
        if define { return "{$seg}\(n).\(ext)?token={$token}" }
        return scenario.isLive ? "s\(n).\(ext)" : "seg\(n).\(ext)"
    }

    /// The absolute segment number a requested file name names, or nil.
    public func segmentIndex(file: String) -> Int? {
        let ext = "." + rendition.container.segmentExtension
        guard file.hasSuffix(ext) else { return nil }
        let stem = file.dropLast(ext.count)
        let digits: Substring
        if scenario.isLive, stem.hasPrefix("s") {
            digits = stem.dropFirst()
        } else if !scenario.isLive, stem.hasPrefix("seg") {
            digits = stem.dropFirst(3)
        } else {
            return nil
        }
        guard let n = Int(digits) else { return nil }
        if !scenario.isLive && (n < 0 || n >= count) { return nil }
        return n
    }

    /// The truth for absolute segment `n`, whatever the window.
    public func truth(_ n: Int, overrides: LiveOverrides = LiveOverrides()) -> SegmentTruth {
        let pos = ((n % count) + count) % count
        return SegmentTruth(
            msn: n - (overrides.resetIndex ?? 0), index: n, position: pos, uri: segmentURI(n), pdt: pdt(n, pos, overrides),
            duration: durations[pos], mediaTime: rendition.segments[pos].firstTime + loopShift(n),
            discontinuity: scenario.isLive && pos == 0 && restartsTimeline(n), discontinuitySequence: timelineBreaks(n),
            gap: isGap(position: pos), keyID: aes ? n / OriginTiming.keyRotation : nil)
    }

    /// The key URI for key `id` (path-absolute, so it resolves on HTTP and HTTPS alike).
    public func keyURI(_ id: Int) -> String { "/keys/\(scenario.name)/k\(id).key" }

    /// The IV of key `id`: its number as a 128-bit big-endian hexadecimal-sequence.
    public static func iv(_ id: Int) -> String {
        let h = String(id, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 32 - h.count)) + h
    }

    /// The media playlist at `now` (RFC 8216bis §4.4.3–§4.4.4).
    public func mediaPlaylist(at now: Double, overrides: LiveOverrides = LiveOverrides(), iFramesOnly: Bool = false) -> Playlist {
        let segments = window(at: now, overrides: overrides)
        var m = MediaPlaylist()
        m.targetDuration = Int((durations.max() ?? 2).rounded())
        m.mediaSequence = segments.first?.msn ?? 0
        m.mediaSequenceTagged = true
        if let f = segments.first { m.discontinuitySequence = f.discontinuitySequence - (f.discontinuity ? 1 : 0) }
        m.discontinuitySequenceTagged = scenario.isLive
        m.playlistType = scenario.isLive ? nil : "VOD"
        m.endList = !scenario.isLive
        m.iFramesOnly = iFramesOnly
        for (i, t) in segments.enumerated() {
            var s = Segment(uri: t.uri, duration: t.duration, mediaSequence: t.msn)
            s.discontinuity = t.discontinuity
            if t.tagged && (scenario.isLive || i == 0) { s.programDateTime = t.pdt }
            s.gap = t.gap
            if let id = t.keyID {
                s.keys = [Key(method: encryption == .sampleAES ? .sampleAES : .aes128, uri: keyURI(id), iv: StreamModel.iv(id))]
            }
            if let initSection = rendition.initSection, !initSection.isEmpty {
                s.map = MapSection(uri: define ? "init.mp4?token={$token}" : "init.mp4")
                // AES-128 fMP4: the section is declared under the first key, so it is encrypted with it (§4.4.4.4).
                if encryption == .aes128 { s.map?.keys = [Key(method: .aes128, uri: keyURI(0), iv: StreamModel.iv(0))] }
            }
            if iFramesOnly, let r = rendition.segments[t.position].iFrameRange { s.byteRange = r }
            if scenario.singleFile && !iFramesOnly {
                s.uri = "all.\(rendition.container.segmentExtension)"
                s.byteRange = ByteRange(
                    length: rendition.segments[t.position].bytes.count,
                    offset: rendition.segments[..<t.position].reduce(0) { $0 + $1.bytes.count })
            }
            m.segments.append(s)
        }
        var p = Playlist(body: .media(m))
        p.version = define ? 8 : 7
        p.independentSegments = true
        if define {
            p.defines = [Define(name: "token", source: .imported), Define(name: "seg", source: .value(scenario.isLive ? "s" : "seg"))]
        }
        return p
    }

    /// A WebVTT subtitle playlist on this rendition's cadence, with one cue per segment.
    /// `imsc`: IMSC1 in fragmented MP4 (`.m4s` segments after an `init.mp4`, RFC 8216bis §3.1.5) in place of WebVTT.
    public func subtitlePlaylist(at now: Double, overrides: LiveOverrides = LiveOverrides(), imsc: Bool = false) -> Playlist {
        var p = mediaPlaylist(at: now, overrides: overrides)
        guard case .media(var m) = p.body else { return p }
        for i in m.segments.indices {
            m.segments[i].keys = []
            m.segments[i].map = imsc ? MapSection(uri: "init.mp4") : nil
            m.segments[i].byteRange = nil
            // The segment's number: the digits of its name before the extension ("seg12.m4s" is 12, not 124).
            let stem = m.segments[i].uri.split(separator: "/").last?.split(separator: ".").first ?? ""
            let n = Int(stem.filter(\.isNumber)) ?? i
            m.segments[i].uri = (scenario.isLive ? "c\(n)" : "cue\(n)") + (imsc ? ".m4s" : ".vtt")
            if define { m.segments[i].uri += "?token={$token}" }
        }
        p.body = .media(m)
        return p
    }

    /// The IMSC1 (TTML) document of subtitle segment `n`: the WebVTT cue's text, timed on the media timeline.
    public func subtitleTTML(_ n: Int) -> String {
        let t = truth(n)
        func s(_ v: Double) -> String { fixed(v, 3) + "s" }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <tt xmlns="http://www.w3.org/ns/ttml" xmlns:ttp="http://www.w3.org/ns/ttml#parameter" ttp:timeBase="media" xml:lang="en">\
            <body><div><p begin="\(s(t.mediaTime))" end="\(s(t.mediaTime + t.duration))">hlstui \(scenario.name) · segment \(t.msn) · \
            \(t.pdt.iso8601) (IMSC1)</p></div></body></tt>
            """
    }

    /// The WebVTT text of subtitle segment `n`: one cue spanning it, timed on the media timeline.
    public func subtitleText(_ n: Int) -> String {
        let t = truth(n)
        let firstPTS = rendition.segments.first?.firstTime ?? 0
        func ts(_ s: Double) -> String {
            let ms = Int((s * 1000).rounded())
            func p(_ v: Int, _ w: Int) -> String { let x = String(v); return String(repeating: "0", count: max(0, w - x.count)) + x }
            return "\(p(ms / 3_600_000, 2)):\(p(ms / 60000 % 60, 2)):\(p(ms / 1000 % 60, 2)).\(p(ms % 1000, 3))"
        }
        let local = offsets[t.position]
        // LOCAL 0 is the start of this loop on the media's clock: a continuous scenario's loops go on one timeline
        // (`loopShift`), so the map moves with them.
        let mpegts = Int(((firstPTS + loopShift(n)) * 90000).rounded()) % (1 << 33)
        return "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:\(mpegts),LOCAL:00:00:00.000\n\n"
            + "\(ts(local)) --> \(ts(local + t.duration))\nhlstui \(scenario.name) · segment \(t.msn) · \(t.pdt.iso8601)\n"
    }
}
