import CMCD
import HLS
import MediaFormats
import LoaderEvents
import Session

/// What the screen shows besides the session: cursor, log view, help, scroll.
public struct UIState: Sendable, Equatable {
    public var cursor = 0
    public var showMessages = false
    public var showHelp = false
    /// The first line of the help shown, when the help is longer than the screen (↑↓, PgUp/PgDn scroll it while it is open).
    public var helpScroll = 0
    public var scroll = 0
    public var themeName = "default"
    /// False for a pane that does not have the keyboard.
    public var focused = true
    /// The picture in place of the log (`v`), and how the terminal can draw it.
    public var showPicture = false
    public var pictureMode = PictureCells.Mode.halfBlocks
    /// The terminal draws the picture itself (sixel or kitty): the panel leaves its cells blank and places the image.
    public var pictureGraphics = false
    /// `--picture none`: the panel says so instead of drawing.
    public var pictureOff = false
    /// The history plots (`g`) or the request waterfall (`w`) in place of the log.
    public var showGraphs = false
    public var showWaterfall = false
    /// The LL-HLS panel (`L`) in place of the log.
    public var showLowLatency = false
    /// The stream's events (`E`): date ranges and breaks, in place of the log.
    public var showEvents = false
    public init() {}

    /// What takes the place of the log: one at a time, the key that is pressed again brings the log back.
    public mutating func toggleLower(_ panel: LowerPanel) {
        let was = lower
        (showPicture, showGraphs, showWaterfall, showLowLatency, showEvents) = (false, false, false, false, false)
        guard was != panel else { return }
        switch panel {
        case .log: break
        case .picture: showPicture = true
        case .graphs: showGraphs = true
        case .waterfall: showWaterfall = true
        case .lowLatency: showLowLatency = true
        case .events: showEvents = true
        }
    }

    public var lower: LowerPanel {
        showPicture
            ? .picture
            : showGraphs ? .graphs : showWaterfall ? .waterfall : showLowLatency ? .lowLatency : showEvents ? .events : .log
    }
}

/// The panel at the bottom of a pane.
public enum LowerPanel: Sendable, Equatable { case log, picture, graphs, waterfall, lowLatency, events }

/// One history plot: its name, the value now and the series (a value a second).
public struct GraphRow: Sendable, Equatable {
    public var name: String
    public var now: String
    public var values: [Double?]
    /// How the scale's top reads ("3.4M", "12.0s").
    public var format: @Sendable (Double) -> String

    public static func == (a: GraphRow, b: GraphRow) -> Bool { a.name == b.name && a.now == b.now && a.values == b.values }
}

/// The status lines.
public struct StatusModel: Sendable, Equatable {
    public var state: PlaybackState
    public var clock: String
    public var pdt: String?
    public var rung: String
    public var video: String?
    public var throughput: String
    public var dropped: Int
    public var stalls: Int
    public var stalled: Double
    /// Forward jumps past content never shown.
    public var skips: Int = 0
    public var caps: String
    public var mode: String
    public var error: String?
    public var problem: String?
    public var insecure: Bool
    public var url: String
    /// The latest switch: "#0→#2 abr splice 3s ago".
    public var lastSwitch: String? = nil
    /// LL-HLS reloads: "LL hold 0.62s delta -18%".
    public var lowLatency: String? = nil
    /// Pathways (content steering): "path cdn-b pinned  cdn-a out 12s".
    public var pathway: String? = nil
    /// The audio rendition the player was given (`audio Deutsch [de] 6ch`); nil when the variant names no AUDIO group.
    public var audio: String? = nil
}

/// The subtitle line: which rendition, and the cue at the playhead.
public struct SubtitleLine: Sendable, Equatable {
    public var label: String
    public var text: String
}

/// One ladder row.
public struct LadderRow: Sendable, Equatable {
    public var index: Int
    public var resolution: String
    public var bandwidth: String
    public var average: String
    public var frameRate: String
    public var codecs: String
    public var extra: String
    public var playing = false
    public var target = false
    public var pinned = false
    public var excluded = false
    public var cursor = false
}

/// One segment on the timeline.
public struct SegmentMark: Sendable, Equatable {
    public var start: Double
    public var duration: Double
    public var gap: Bool
    public var discontinuity: Bool
    /// A GAP another rung has media for: the Loader serves that rung's segment instead.
    public var filled = false
}

/// The buffer and GAP bar.
public struct TimelineModel: Sendable, Equatable {
    public var length: Double
    public var segments: [SegmentMark]
    public var buffered: [TimeRange]
    public var playhead: Double?
    public var live: Bool
    public var firstMSN: Int
    /// Seconds delivered past the playhead; nil when not known (drawn as a dash).
    public var ahead: Double?
    /// Where the breaks the stream announces start, in the window's seconds (docs/EVENTS.md).
    public var breaks: [Double] = []
    /// Where the playlist's other date ranges (any CLASS) start, and where its timed metadata items (ID3, `emsg`) stand, in
    /// the window's seconds (docs/EVENTS.md).
    public var dateRanges: [Double] = []
    public var metadata: [Double] = []
}

/// One key on the key timeline.
public struct KeyRow: Sendable, Equatable {
    public var start: Double?
    public var end: Double?
    public var role: Role
    public var text: String
}

/// One line of the request log or the message log, and how it is drawn.
public struct LogLine: Sendable, Equatable {
    public var text: String
    public var role: Role
}

/// Everything the dashboard draws, derived from the session and the UI state (pure). Its equality is synthesised: a frame is
/// drawn again when anything in it changed, a field added later included.
public struct DashboardModel: Sendable, Equatable {
    public var status: StatusModel
    public var ladder: [LadderRow]
    public var renditions: [String]
    public var timeline: TimelineModel?
    public var keys: [KeyRow]
    /// The log lines from the scroll position on (request log or messages, newest first), at most `logWindow` of them.
    public var logLines: [LogLine]
    /// How many lines the whole log has, and the index of the first line in `logLines`.
    public var logTotal: Int
    public var logFirst: Int
    /// Lines formatted per frame: more than any screen shows, far fewer than the 2,000 requests kept.
    static let logWindow = 200
    public var ui: UIState
    /// The frame last sampled from the player, scaled down (shown with `ui.showPicture`), and what the picture watch says.
    public var picture: PictureImage?
    public var pictureState: String?
    /// The history plots (with `ui.showGraphs`): this pane's, and its sync offset when panes are synchronized (set by the
    /// runner, which owns the sync).
    public var graphs: [GraphRow] = []
    /// The newest requests as waterfall bars, newest first (with `ui.showWaterfall`).
    public var waterfall: [WaterfallRow] = []
    /// Content steering: each pathway in priority order with its health and traffic (`pathwayLine`); nil with one pathway.
    public var pathways: String?
    /// The subtitles shown (docs/SUBTITLES.md): the rendition, and the cue at the playhead (empty between cues); nil when off.
    public var subtitle: SubtitleLine?
    /// The LL-HLS panel's lines (with `ui.showLowLatency`).
    public var lowLatency: [String] = []
    /// The events panel's lines (with `ui.showEvents`).
    public var events: [String] = []

    /// Builds the model from a session snapshot.
    public init(_ s: SessionState, ui: UIState) {
        self.ui = ui
        status = DashboardModel.status(s)
        ladder = DashboardModel.ladderRows(s, cursor: ui.cursor)
        pathways = DashboardModel.pathwayLine(s)
        subtitle = s.subtitles.map { t in
            SubtitleLine(label: "subs " + AudioRenditions.label(t.rendition), text: t.shown.flatMap(\.lines).joined(separator: " / "))
        }
        renditions =
            s.ladder.renditions.map { r in
                "\(r.type.lowercased()) \(r.groupID)/\(r.name)\(r.language.map { " [\($0)]" } ?? "")\(r.isDefault ? " default" : "")\(r.forced ? " forced" : "")\(r.uri == nil ? " (in variant)" : "")"
                    + (r.type == "AUDIO" && s.playingAudio.map { $0.groupID == r.groupID && $0.name == r.name } == true ? " playing" : "")
                    + (r.type == "SUBTITLES" && s.subtitles.map { $0.rendition.groupID == r.groupID && $0.rendition.name == r.name } == true
                        ? " shown" : "")
            }
            + (s.ladder.iFrames.isEmpty
                ? []
                : [
                    "i-frames: "
                        + s.ladder.iFrames.map { v in v.resolution.map { "\($0.height)p" } ?? Rung.rate(v.bandwidth ?? 0) }.joined(
                            separator: " ")
                ])
        timeline = DashboardModel.timeline(s)
        keys = DashboardModel.keyRows(s)
        pictureState = s.picture.label
        if ui.showGraphs { graphs = DashboardModel.graphs(s.history) }
        if ui.showWaterfall { waterfall = s.requests.suffix(Self.logWindow).reversed().map(DashboardModel.waterfallRow) }
        if ui.showLowLatency { lowLatency = DashboardModel.lowLatencyLines(s) }
        if ui.showEvents { events = DashboardModel.eventLines(s) }
        logTotal = ui.showMessages ? s.log.count : s.requests.count
        logFirst = max(0, min(ui.scroll, logTotal - 1))
        if ui.showMessages {
            logLines = s.log.reversed().dropFirst(logFirst).prefix(Self.logWindow).map { l in
                let role: Role = l.level.isProblem ? .bad : (l.level == .warn ? .warn : .normal)
                return LogLine(text: pad(fixed(l.t, 3), 8, right: true) + " " + pad(l.level.rawValue, 5) + " " + l.text, role: role)
            }
        } else {
            // With several pathways, each line says its rung's (a rendition's requests follow the variant's).
            let pathway = { (r: RequestEvent) in s.pathways == nil ? nil : r.rung.map(s.pathway(of:)) }
            logLines = s.requests.reversed().dropFirst(logFirst).prefix(Self.logWindow).map {
                DashboardModel.requestLine($0, pathway: pathway($0))
            }
        }
    }

    /// ISO 8601 with milliseconds, UTC.
    static func milliseconds(_ d: DateTime) -> String { DateTime(microseconds: d.milliseconds * 1000).iso8601 }

    static func clockText(_ seconds: Double) -> String {
        let tenths = Int((max(0, min(seconds, 3.6e8)) * 10).rounded(.down))
        let m = tenths / 600
        let sec = zeros((tenths % 600) / 10, 2) + "." + String(tenths % 10)
        return m >= 60 ? "\(m / 60):\(zeros(m % 60, 2)):\(sec)" : "\(zeros(m, 2)):\(sec)"
    }

    static func status(_ s: SessionState) -> StatusModel {
        var clock = "--:--"
        if let pos = s.position {
            if let lat = s.liveLatency {
                // Behind the live edge, and glass to glass when the stream has PDT (a dash when it has none).
                clock = "live -\(fixed(max(0, lat), 1))s g2g " + (s.pdtLatency.map { fixed($0, 1) + "s" } ?? "-")
            } else {
                clock = clockText(pos) + "/" + clockText(s.windowDuration ?? 0)
            }
        } else if let d = s.windowDuration, s.playingMedia?.isLive == false {
            clock = "--:--/" + clockText(d)
        }
        let rung = s.playingRung.flatMap { s.ladder.rungs.indices.contains($0) ? s.ladder.rungs[$0] : nil }
        let rungText = rung.map { s.ladder.file ? "MP4 file" : s.ladder.single ? "single" : "#\($0.index) \($0.name)" } ?? "-"
        let mode: String
        switch s.mode {
        case .automatic: mode = "auto"
        case .pinned(let i): mode = s.targetRung == i ? "pinned #\(i)" : "pinned #\(i) (held by cap)"
        }
        let last = s.switches.last.flatMap { w in
            w.from.map { "#\($0)→#\(w.to) \(w.reason.rawValue) \(w.mechanism.rawValue) \(Int(max(0, s.now - w.t)))s ago" }
        }
        var status = StatusModel(
            state: s.state, clock: clock, pdt: s.playheadPDT.map { DashboardModel.milliseconds($0) }, rung: rungText,
            video: s.sample.width.flatMap { w in s.sample.height.map { "\(w)x\($0)" } },
            throughput: s.throughput.estimate.map { Rung.rate(Int($0)) + "bps" } ?? "-", dropped: s.sample.droppedFrames,
            stalls: s.stallCount,
            stalled: s.stalledSeconds, caps: s.caps.description, mode: mode + " ⇄" + s.manualSwitch.rawValue, error: s.error,
            // A stall in progress says how long and why, in place of the last problem; then a picture frozen or black.
            problem: s.currentStall.map { st in "stalled \(fixed(max(0, s.now - st.start), 1)) s" + (st.cause.map { ": " + $0 } ?? "") }
                ?? s.picture.blackSince.map { "picture black \(fixed(max(0, s.now - $0), 1)) s" }
                ?? s.picture.frozenSince.map { "picture frozen \(fixed(max(0, s.now - $0), 1)) s" } ?? s.problem,
            insecure: s.insecureTLS, url: s.url)
        status.lastSwitch = last
        status.audio = s.playingAudio.map { "audio " + AudioRenditions.label($0) }
        status.skips = s.skipCount
        if let p = s.pathways {
            let out = p.known.filter { p.isPenalised($0, at: s.now) }.map {
                "\($0) out \(Int((p.penalties[$0]!.until - s.now).rounded(.up)))s"
            }
            status.pathway =
                (["path \(p.current)" + (p.pinned == nil ? "" : " pinned") + (s.steering.stopped ? " (steering stopped)" : "")] + out)
                .joined(separator: "  ")
        }
        if let l = s.lowLatency.last {
            status.lowLatency =
                "LL " + (l.blocked ? "held " : "reload ") + fixed(l.hold, 2) + "s"
                + (s.lowLatency.whole > s.lowLatency.received ? " delta -\(Int((s.lowLatency.savedShare * 100).rounded()))%" : "")
        }
        return status
    }

    static func ladderRows(_ s: SessionState, cursor: Int) -> [LadderRow] {
        let allowed = Set(s.caps.allowed(s.ladder))
        let playing = s.playingRung
        let target = s.targetRung
        return s.ladder.rungs.map { r in
            let v = r.variant
            var extra: [String] = []
            if let a = v.audio { extra.append("a:\(a)") }
            if let sub = v.subtitles { extra.append("s:\(sub)") }
            if let h = v.hdcpLevel, h != "NONE" { extra.append(h) }
            if let vr = v.videoRange, vr != "SDR" { extra.append(vr) }
            extra += r.marks.map { "⚠\($0)" }
            var row = LadderRow(
                index: r.index,
                resolution: v.resolution?.description ?? (s.ladder.file ? "MP4 file" : s.ladder.single ? "media playlist" : "audio/—"),
                bandwidth: v.bandwidth.map(Rung.rate) ?? "-", average: v.averageBandwidth.map(Rung.rate) ?? "-",
                frameRate: v.frameRate.map { $0 == $0.rounded() ? fixed($0, 0) : fixed($0, 2) } ?? "-", codecs: v.codecs ?? "-",
                extra: extra.joined(separator: " "))
            row.playing = playing == r.index
            row.target = target == r.index
            if case .pinned(let p) = s.mode { row.pinned = p == r.index }
            row.excluded = !allowed.contains(r.index)
            row.cursor = cursor == r.index
            return row
        }
    }

    static func timeline(_ s: SessionState) -> TimelineModel? {
        guard let m = s.playingMedia, !m.segments.isEmpty else { return nil }
        let starts = Timeline.startTimes(m)
        let segs = m.segments.enumerated().map { i, seg in
            SegmentMark(
                start: starts[i], duration: seg.duration, gap: seg.gap, discontinuity: seg.discontinuity,
                filled: seg.gap && !s.isUnfillableGap(seg.mediaSequence))
        }
        var t = TimelineModel(
            length: m.totalDuration, segments: segs, buffered: s.bufferedRanges, playhead: s.position, live: m.isLive,
            firstMSN: m.mediaSequence, ahead: s.bufferedAhead)
        // A break starts at its first segment (a date range at its START-DATE); one whose start has left the window is not
        // marked. The same break announced both ways is one mark.
        var marks: Set<Int> = []
        for b in s.breaks.breaks.map(\.cue) {
            let at: Double?
            if case .dateRange = b.source, let d = b.startDate {
                at = Timeline.playlistTime(at: d, in: m)
            } else {
                at = starts[safe: b.startMSN - m.mediaSequence]
            }
            if let at, at >= 0, at <= m.totalDuration, marks.insert(Int((at * 1000).rounded())).inserted { t.breaks.append(at) }
        }
        t.breaks.sort()
        // The other date ranges at their START-DATE, resolved against the segments' PDT (RFC 8216bis §4.4.5.1).
        let breakIDs = Set(
            s.breaks.breaks.compactMap { b -> String? in
                if case .dateRange(let id) = b.cue.source { return id }
                return nil
            })
        for r in m.dateRanges where !breakIDs.contains(r.id) {
            guard let d = r.startDate, let at = Timeline.playlistTime(at: d, in: m), at >= 0, at <= m.totalDuration,
                marks.insert(Int((at * 1000).rounded())).inserted
            else { continue }
            t.dateRanges.append(at)
        }
        t.dateRanges.sort()
        // Timed metadata in the segment it came in, as far into it as its time is past the segment's first PTS (a stream whose
        // timestamps start again each loop repeats its times: the segment, not the time, says where an item stands).
        t.metadata = s.metadata.items.compactMap { e in
            guard let start = starts[safe: e.msn - m.mediaSequence] else { return nil }
            let into = s.clock.firstPTS[e.msn].map { e.time - $0 } ?? 0
            return start + min(max(0, into), m.segments[e.msn - m.mediaSequence].duration)
        }
        return t
    }

    static func keyRows(_ s: SessionState) -> [KeyRow] {
        // The latest event per key URI, in the order keys were first seen.
        var order: [String] = []
        var latest: [String: KeyEvent] = [:]
        for k in s.keys {
            if latest[k.uri] == nil { order.append(k.uri) }
            latest[k.uri] = k
        }
        let m = s.playingMedia
        let starts = m.map(Timeline.startTimes) ?? []
        return order.compactMap { latest[$0] }.map { k in
            var start: Double?
            var end: Double?
            if let m, let a = k.firstMSN, let b = k.lastMSN {
                let i = max(a, m.mediaSequence) - m.mediaSequence
                let j = min(b - m.mediaSequence, m.segments.count - 1)
                if i <= j, starts.indices.contains(i), starts.indices.contains(j) {
                    start = starts[i]
                    end = starts[j] + m.segments[j].duration
                }
            }
            let range = k.firstMSN.map { a in "msn \(a)–\(k.lastMSN ?? a)" } ?? "msn ?"
            let what = k.error.map { "FAILED \($0)" } ?? "fp \(k.fingerprint ?? "?")"
            // A downloaded key's countdown right after what it covers: it must fit an 80-column key row.
            let text =
                "\(what) \(range)\(persisted(k, wall: s.sample.wall)) \(fixed(k.latencyMs, 0))ms \(k.prefetch ? "prefetch" : "on-demand")\(k.spreadMs.map { " spread \(fixed($0 / 1000, 1))s" } ?? "")\(k.repair.map { " repaired(\($0))" } ?? "") \(k.method)"
            return KeyRow(
                start: start, end: end, role: k.error != nil ? .keyFailed : (k.prefetch ? .keyPrefetch : .keyOnDemand), text: text)
        }
    }

    /// A key kept with a download: its countdown to the clock that ends it first, from the wall time of the latest sample.
    static func persisted(_ k: KeyEvent, wall: DateTime?) -> String {
        guard k.source == "download" else { return "" }
        guard let at = k.expires, let clock = k.expiresClock else { return " stored · no expiry" }
        guard let now = wall?.seconds else { return " stored · \(clock) expiry" }
        let left = at - now
        guard left > 0 else { return " stored · EXPIRED (\(clock))" }
        let s = Int(left)
        let text =
            s >= 86400 ? "\(s / 86400)d \(s % 86400 / 3600)h" : s >= 3600 ? "\(s / 3600)h \(s % 3600 / 60)m" : "\(s / 60)m \(s % 60)s"
        return " stored · \(clock) \(text) left"
    }

    static func size(_ n: Int) -> String {
        n >= 1_048_576 ? fixed(Double(n) / 1_048_576, 1) + "M" : (n >= 1024 ? fixed(Double(n) / 1024, 1) + "k" : "\(n)")
    }

    /// With `--cache`: how the cache took part, and what it saved asking for ("hit 58.0k saved", "resumed 4.0k saved", "miss").
    public static func cacheNote(_ r: RequestEvent) -> String? {
        guard let c = r.cache else { return nil }
        return r.savedBytes > 0 ? "\(c.rawValue) \(size(r.savedBytes)) saved" : c.rawValue
    }

    /// The CMCD a request carried, without the keys that are the same for the whole session (sid, cid, sf, st, v).
    public static func cmcdNote(_ r: RequestEvent) -> String? {
        guard let text = r.cmcd else { return nil }
        let session: Set<String> = ["sid", "cid", "sf", "st", "v"]
        let kept = CMCD.read(headers: [], url: "?CMCD=" + CMCD.percentEncode(text)).data
        var shown = CMCDData()
        for k in kept.keys where !session.contains(k) { shown[k] = kept[k] }
        return CMCD.serialize(shown)
    }

    static func rate(_ bps: Double) -> String { Rung.rate(Int(bps.rounded())) + "bps" }
    static func seconds(_ v: Double) -> String { fixed(v, 1) + "s" }

    /// The history plots of one pane.
    static func graphs(_ h: History) -> [GraphRow] {
        [
            GraphRow(name: "throughput", now: h.throughput.last.map(rate) ?? "-", values: h.throughput.values, format: rate),
            GraphRow(name: "ahead", now: h.ahead.last.map(seconds) ?? "-", values: h.ahead.values, format: seconds),
            GraphRow(name: "bitrate", now: h.bitrate.last.map(rate) ?? "-", values: h.bitrate.values, format: rate),
            GraphRow(name: "live latency", now: h.latency.last.map(seconds) ?? "-", values: h.latency.values, format: seconds),
        ]
    }

    /// A pane's sync offset from the reference, as a history plot (absolute milliseconds).
    public static func syncGraph(_ offsets: Series) -> GraphRow {
        let ms: @Sendable (Double) -> String = { fixed($0, 1) + "ms" }
        return GraphRow(
            name: "sync |Δ|", now: offsets.last.map { ms(abs($0) * 1000) } ?? "-", values: offsets.values.map { $0.map { abs($0) * 1000 } },
            format: ms)
    }

    static func waterfallRow(_ r: RequestEvent) -> WaterfallRow {
        let label =
            pad(r.kind.rawValue, 7) + " " + pad(r.msn.map(String.init) ?? "-", 9, right: true) + " " + pad(String(r.status), 3, right: true)
            + " " + pad(r.durationMs < 10 ? fixed(r.durationMs, 1) : String(Int(r.durationMs.rounded())), 5, right: true) + "ms"
        let role: Role = r.outcome == .gap ? .gap : (r.failure != nil || r.status >= 400 ? .bad : (r.local ? .dim : .accent))
        return WaterfallRow(
            label: label, start: r.start, firstByte: r.ttfbMs.map { r.start + $0 / 1000 }, end: r.start + r.durationMs / 1000, role: role,
            note: r.cmsd.map { "CMSD " + $0.summary })
    }

    /// "pathways  ▶cdn-b ok 2.1Mbps 42 req  cdn-a out 12s (HTTP 503) 31 req": priority order, the one in use marked, a penalised
    /// one with the seconds left and why, each with the throughput and number of its rungs' requests among those kept.
    static func pathwayLine(_ s: SessionState) -> String? {
        guard let p = s.pathways else { return nil }
        let order = p.priority.filter { p.known.contains($0) } + p.known.filter { !p.priority.contains($0) }
        var parts: [String] = []
        for name in order {
            let mine = s.requests.filter { r in r.rung.map { s.pathway(of: $0) == name } ?? false }
            let timed = mine.filter { $0.kind == .segment && !$0.local && $0.failure == nil && $0.durationMs > 0 }
            let seconds = timed.reduce(0) { $0 + $1.durationMs / 1000 }
            let rate = seconds > 0 ? " " + Rung.rate(Int(Double(timed.reduce(0) { $0 + $1.bytes }) * 8 / seconds)) + "bps" : ""
            let health =
                p.penalties[name].map { pen in
                    p.isPenalised(name, at: s.now)
                        ? "out \(Int((pen.until - s.now).rounded(.up)))s (\(pen.cause))" : "retest (\(pen.cause))"
                } ?? "ok"
            let mark = name == p.current ? "▶" : (name == p.pinned ? "●" : "")
            parts.append("\(mark)\(name) \(health)\(rate) \(mine.count) req")
        }
        return "pathways  " + parts.joined(separator: "  ") + (p.pinned.map { "  (pinned \($0))" } ?? "")
    }

    static func requestLine(_ r: RequestEvent, pathway: String? = nil) -> LogLine {
        let bytes = size(r.bytes)
        let ttfb = pad(r.ttfbMs.map { fixed($0, 1) } ?? "-", 6, right: true)
        let name = r.url.split(separator: "/").last.map(String.init) ?? r.url
        var text =
            pad(fixed(r.start, 3), 8, right: true) + " " + pad(r.kind.rawValue, 7) + " " + pad(r.rung.map { "r\($0)" } ?? "-", 3) + " "
        text +=
            pad(r.msn.map(String.init) ?? "-", 9, right: true) + " " + pad(String(r.status), 3, right: true) + " "
            + pad(bytes, 7, right: true) + " "
        text +=
            ttfb + " " + pad(fixed(r.durationMs, 1), 7, right: true) + " " + name + (pathway.map { " @\($0)" } ?? "")
            + (r.range.map { " \($0)" } ?? "")
            + (r.outcome == .gap ? "  GAP" : r.failure.map { "  \($0)" } ?? "") + (cacheNote(r).map { "  \($0)" } ?? "")
            + (r.cmsd.map { "  CMSD \($0.summary)" } ?? "") + (cmcdNote(r).map { "  CMCD \($0)" } ?? "")
        let role: Role = r.outcome == .gap ? .gap : (r.failure != nil || r.status >= 400 ? .bad : (r.local ? .dim : .normal))
        return LogLine(text: text, role: role)
    }
}

extension DashboardModel {
    /// The LL-HLS panel (RFC 8216bis §4.4.3.7–§4.4.5.4, §6.2.5): the parts at the edge of the playlist playing with the
    /// playhead among them, the latency against PART-HOLD-BACK, the blocking reloads' holds against PART-TARGET, the preload
    /// hints that came true, what delta updates saved, and how far the rendition reports trail.
    static func lowLatencyLines(_ s: SessionState) -> [String] {
        guard let m = s.playingMedia, let pt = m.partTarget else {
            return ["not a low-latency stream: its playlist has no EXT-X-PART-INF (RFC 8216bis §4.4.3.7)"]
        }
        var out: [String] = []
        let phb = m.serverControl?.partHoldBack
        out.append(
            "PART-TARGET \(fixed(pt, 2)) s" + (phb.map { "  PART-HOLD-BACK \(fixed($0, 1)) s" } ?? "  no PART-HOLD-BACK")
                + (m.serverControl?.canBlockReload == true ? "  blocking reload" : "  no blocking reload")
                + (m.serverControl?.canSkipUntil.map { "  delta updates beyond \(fixed($0, 0)) s" } ?? ""))
        // The newest segments, part by part: the newest is the one in progress (its parts so far), then the hinted part.
        let here = s.playhead
        var edge = "edge "
        for seg in m.segments.suffix(3) {
            let count = seg.parts.isEmpty ? max(1, Int((seg.duration / pt).rounded())) : seg.parts.count
            var cells = ""
            var start = 0.0
            for i in 0..<count {
                let length = seg.parts.isEmpty ? seg.duration / Double(count) : seg.parts[i].duration
                let on = here.map { $0.msn == seg.mediaSequence && $0.offset >= start && $0.offset < start + length } ?? false
                cells += on ? "┃" : (seg.parts.isEmpty ? "─" : "▮")
                start += length
            }
            edge += "\(seg.mediaSequence % 10000) \(cells)  "
        }
        if m.partHint != nil { edge += "▯" }
        out.append(edge)
        if let live = s.edgeDistance {
            let catchUp = s.catchUp.map { $0.speeding ? "  catching up at \(fixed(LatencyCatchUp.rate, 2))×" : "" } ?? ""
            out.append(
                "latency \(fixed(live, 2)) s behind the edge"
                    + (phb.map { " (PART-HOLD-BACK \(fixed($0, 1)) s, \(live >= $0 ? "+" : "")\(fixed(live - $0, 2)))" } ?? "")
                    + (s.pdtLatency.map { "  glass to glass \(fixed($0, 2)) s" } ?? "") + catchUp)
        }
        let ll = s.lowLatency
        if ll.holds.isEmpty {
            out.append("holds  no blocking reload yet")
        } else {
            let h = ll.holds.sorted()
            out.append(
                "holds  \(ll.holds.count) blocking reloads: p50 \(fixed(h[h.count / 2], 2)) s  p95 \(fixed(h[Int(0.95 * Double(h.count - 1))], 2)) s  max \(fixed(h[h.count - 1], 2)) s (PART-TARGET \(fixed(pt, 2)) s)"
                    + (ll.longHolds > 0 ? "; \(ll.longHolds) over three target durations (§6.2.5.2)" : ""))
        }
        let w = ll.hintWaits.sorted()
        out.append(
            "hints  \(ll.hintHits) came true, \(ll.hintMisses) did not"
                + (w.isEmpty ? "" : "; held until published p50 \(fixed(w[w.count / 2], 2)) s  max \(fixed(w[w.count - 1], 2)) s"))
        out.append(
            ll.whole > ll.received
                ? "deltas \(Int((ll.savedShare * 100).rounded())) % of playlist bytes saved (\(DashboardModel.size(ll.whole - ll.received)) of \(DashboardModel.size(ll.whole)))"
                : "deltas none saved yet")
        out.append(
            ll.reportLag.map { "reports the furthest-behind rendition report trails this playlist by \($0) part\($0 == 1 ? "" : "s")" }
                ?? "reports none")
        return out
    }
}

extension DashboardModel {
    /// The events panel (docs/EVENTS.md): the breaks the session follows — where each starts, planned against what the
    /// playlist holds, whether the playhead is inside — each SCTE-35 message decoded beneath; then the playing playlist's
    /// other date ranges (any CLASS) with their client attributes.
    static func eventLines(_ s: SessionState) -> [String] {
        var lines: [String] = []
        let tracked = s.breaks.breaks
        for t in tracked.reversed() {
            let b = t.cue
            let source: String
            switch b.source {
            case .cueOut: source = "CUE-OUT"
            case .dateRange: source = "DATERANGE"
            }
            var line = (t.enteredAt != nil ? "▶ " : t.done ? "  " : "◆ ") + "\(b.key)  \(source)"
            if let d = b.startDate { line += "  " + String(d.iso8601.dropFirst(11).prefix(12)) } else { line += "  msn \(b.startMSN)" }
            line += "  planned " + (b.planned.map { "\(fixed($0, 1))s" } ?? "-")
            line += (b.closed ? ", lasts " : ", so far ") + (b.actual.map { "\(fixed($0, 1))s" } ?? "-")
            line += t.enteredAt != nil ? "  inside" : t.missed ? "  not played" : t.done ? "  played" : ""
            lines.append(line)
            for c in b.cues {
                switch SCTE35.decode(text: c.text) {
                case .success(let i): lines.append("    \(c.tag): \(SCTE35.summary(i))")
                case .failure(let e): lines.append("    \(c.tag): cannot decode SCTE-35: \(e)")
                }
            }
        }
        let known = Set(
            tracked.compactMap { t -> String? in
                if case .dateRange(let id) = t.cue.source { return id }
                return nil
            })
        var seen: Set<String> = []
        let inside = Set(s.breaks.tracked.filter { !$0.cue.isBreak && $0.enteredAt != nil }.map(\.cue.key))
        for r in (s.playingMedia?.dateRanges ?? []).reversed() where !known.contains(r.id) && seen.insert(r.id).inserted {
            var line =
                (inside.contains(r.id) ? "▶ " : "  ") + "\(r.id)  \(r.classID ?? "-")  "
                + (r.startDate.map { String($0.iso8601.dropFirst(11).prefix(12)) } ?? "?")
            if let d = r.duration { line += "  \(fixed(d, 1))s" } else if let p = r.plannedDuration { line += "  planned \(fixed(p, 1))s" }
            if r.endOnNext { line += "  to the next" }
            let client = r.extra.filter { $0.name.hasPrefix("X-") }.map { "\($0.name)=\($0.value)" }
            if !client.isEmpty { line += "  " + client.joined(separator: " ") }
            lines.append(line)
        }
        // Timed metadata, newest first in stream order: the ones the playhead passed with a dot, what each carries in one line.
        let at = s.playhead
        for e in s.metadata.items.suffix(20).reversed() {
            let passed = at.map { e.msn < $0.msn || (e.msn == $0.msn && e.time <= (s.sample.timePos ?? -.infinity)) } ?? false
            lines.append((passed ? "• " : "  ") + metadataLine(e))
        }
        return lines.isEmpty ? ["no date ranges, breaks or timed metadata in the playing stream"] : lines
    }

    /// One timed metadata item: ID3 by its frames (an `emsg` by its scheme and value too), where it stands, its duration.
    static func metadataLine(_ e: TimedMetadataEvent) -> String {
        var line =
            e.scheme == "ID3"
            ? "ID3" : e.scheme == EventMessage.id3Scheme ? "emsg ID3" : "emsg \(e.scheme)" + (e.value.isEmpty ? "" : " \(e.value)")
        line += "  msn \(e.msn)  t \(fixed(e.time, 3))"
        if let d = e.duration { line += "  \(fixed(d, 1))s" }
        let frames = e.frames.map { "\($0.id): \($0.text)" }
        line += frames.isEmpty ? "  \(e.bytes) B" : "  " + frames.joined(separator: "; ")
        return line
    }
}
