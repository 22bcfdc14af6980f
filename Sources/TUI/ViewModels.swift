import HLS
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
    /// The rules the stream broke while it played (`V`), in place of the log.
    public var showValidation = false
    public init() {}

    /// What takes the place of the log: one at a time, the key that is pressed again brings the log back.
    public mutating func toggleLower(_ panel: LowerPanel) {
        let was = lower
        (showPicture, showGraphs, showWaterfall, showLowLatency, showEvents, showValidation) = (false, false, false, false, false, false)
        guard was != panel else { return }
        switch panel {
        case .log: break
        case .picture: showPicture = true
        case .graphs: showGraphs = true
        case .waterfall: showWaterfall = true
        case .lowLatency: showLowLatency = true
        case .events: showEvents = true
        case .validation: showValidation = true
        }
    }

    public var lower: LowerPanel {
        showPicture
            ? .picture
            : showGraphs
                ? .graphs
                : showWaterfall ? .waterfall : showLowLatency ? .lowLatency : showEvents ? .events : showValidation ? .validation : .log
    }
}

/// The panel at the bottom of a pane.
public enum LowerPanel: Sendable, Equatable { case log, picture, graphs, waterfall, lowLatency, events, validation }

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
    /// The validation panel's lines (with `ui.showValidation`).
    public var validation: [String] = []

    /// Builds the model from a session snapshot.
    public init(_ s: SessionState, ui: UIState) {
        self.ui = ui
        status = DashboardModel.status(s)
        ladder = DashboardModel.ladderRows(s, cursor: ui.cursor)
        pathways = DashboardModel.pathwayLine(s)
        subtitle = s.subtitles.map { t in
            let r = t.rendition
            // Captions in another channel than the player decodes are said on the line itself (docs/SUBTITLES.md).
            let undecoded = r.type == "CLOSED-CAPTIONS" && !ClosedCaptions.decoded(r) && ClosedCaptions.ownChannel(r) == nil
            return SubtitleLine(
                label: "subs " + AudioRenditions.label(r),
                text: undecoded
                    ? "(\(r.instreamID ?? "no INSTREAM-ID"): not a caption channel, nothing to show)"
                    : t.shown.flatMap(\.lines).joined(separator: " / "))
        }
        renditions =
            s.ladder.renditions.map { r in
                "\(r.type.lowercased()) \(r.groupID)/\(r.name)\(r.language.map { " [\($0)]" } ?? "")\(r.isDefault ? " default" : "")\(r.forced ? " forced" : "")\(r.type == "CLOSED-CAPTIONS" ? " (\(r.instreamID ?? "?") in the video)" : r.uri == nil ? " (in variant)" : "")"
                    + (r.type == "AUDIO" && s.playingAudio.map { $0.groupID == r.groupID && $0.name == r.name } == true ? " playing" : "")
                    + ((r.type == "SUBTITLES" || r.type == "CLOSED-CAPTIONS")
                        && s.subtitles.map { $0.rendition.groupID == r.groupID && $0.rendition.name == r.name } == true
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
        if ui.showValidation { validation = DashboardModel.validationLines(s) }
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

    static func rate(_ bps: Double) -> String { Rung.rate(Int(bps.rounded())) + "bps" }
    static func seconds(_ v: Double) -> String { fixed(v, 1) + "s" }

}
