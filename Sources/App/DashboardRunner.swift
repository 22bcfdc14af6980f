import Foundation
import Recording
import HLS
import NIOConcurrencyHelpers
import Session
import Terminal
import TUI
import Loader

/// What `hlstui URL` needs besides the panes.
public struct DashboardRequest: Sendable {
    public var panes: [PaneConfig]
    public var theme: String?
    /// A file that gets hlstui's log (requests, keys, messages) as it happens.
    public var logFile: String?
    /// With two panes: align them on PDT (off with `--no-sync`, or `s`).
    public var sync = true
    /// `--latency`: every pane follows the wall clock less this (docs/SYNC.md), one pane or more.
    public var latency: LatencySync.Target?
    /// Draw with ASCII only (`--ascii`); also chosen by itself for a locale or terminal without the glyphs.
    public var ascii = false
    /// How the picture (`v`) is drawn (`--picture`).
    public var picture = PictureChoice.auto
    /// `--record FILE`: the whole session into one SQLite file (docs/RECORDING.md).
    public var record: RecordingRequest?
    /// Commands given at their times, as if keys were pressed (a replay gives the recorded ones again).
    public var commands: [ScriptedAction] = []
    /// Said once at the start in the first pane's message log (a replay's limits).
    public var notes: [String] = []
    /// A replay's progress: its commands are cued by it, and what diverged is said in the first pane's message log.
    public var replay: ReplayProgress?
    public init(panes: [PaneConfig], theme: String?, logFile: String?) {
        self.panes = panes
        self.theme = theme
        self.logFile = logFile
    }
}

/// Screen-level state of the dashboard: focus and per-pane UI.
public struct DashboardScreenState: Sendable {
    public var focus = 0
    public var ui: [UIState]
    public var themeIndex = 0
    public var quit = false
    /// The URL being typed for another pane (`o`), nil when not asking.
    public var prompt: String?
    public init(panes: Int) { ui = Array(repeating: UIState(), count: max(1, panes)) }

    /// A key while the URL prompt is open: text goes into the URL, Enter returns it, Esc cancels.
    public mutating func edit(_ key: TUI.Key) -> String? {
        switch key {
        case .enter:
            let url = (prompt ?? "").trimmingCharacters(in: .whitespaces)
            prompt = nil
            return url.isEmpty ? nil : url
        case .escape, .control("c"): prompt = nil
        case .backspace: if prompt?.isEmpty == false { prompt?.removeLast() }
        case .char(let c): prompt?.append(c)
        default: break
        }
        return nil
    }

    /// Applies a key's command that concerns only the screen; returns the session action to carry out, if any.
    public mutating func handle(_ command: Command, ladderSize: Int, logSize: Int, themes: Int) -> Action? {
        // While the help is open the arrow and page keys scroll it (Dashboard.help clamps the line).
        if ui[focus].showHelp {
            let step: Int? =
                switch command {
                case .selectUp: -1
                case .selectDown: 1
                case .scrollUp: -10
                case .scrollDown: 10
                default: nil
                }
            if let step {
                ui[focus].helpScroll = min(max(0, ui[focus].helpScroll + step), Dashboard.helpLineCount)
                return nil
            }
        }
        switch command {
        case .session(.quit):
            quit = true
            return nil
        case .session(let a): return a
        case .selectUp: ui[focus].cursor = max(0, ui[focus].cursor - 1)
        case .selectDown: ui[focus].cursor = min(max(0, ladderSize - 1), ui[focus].cursor + 1)
        case .pinSelected: return .pin(ui[focus].cursor)
        case .nextTheme: themeIndex = (themeIndex + 1) % max(1, themes)
        case .toggleLog:
            ui[focus].showMessages.toggle()
            ui[focus].scroll = 0
        case .toggleHelp:
            ui[focus].showHelp.toggle()
            ui[focus].helpScroll = 0
        case .togglePicture: ui[focus].toggleLower(.picture)
        case .toggleGraphs: ui[focus].toggleLower(.graphs)
        case .toggleWaterfall: ui[focus].toggleLower(.waterfall)
        case .toggleLowLatency: ui[focus].toggleLower(.lowLatency)
        case .toggleEvents: ui[focus].toggleLower(.events)
        case .toggleValidation: ui[focus].toggleLower(.validation)
        case .focusNext: focus = (focus + 1) % ui.count
        case .openPane: if ui.count < PaneLayout.maxPanes { prompt = "" }
        case .scrollUp: ui[focus].scroll = max(0, ui[focus].scroll - 10)
        case .scrollDown: ui[focus].scroll = min(max(0, logSize - 1), ui[focus].scroll + 10)
        case .repaint, .suspend: break
        }
        return nil
    }
}

/// Lays out panes: two side by side when the terminal is wide, three or four in a 2×2 grid when every cell gets 80×23 (a
/// 160×48 terminal under the sync strip), otherwise stacked — with three or four, the focused pane gets half the height.
public enum PaneLayout {
    public static let maxPanes = 4

    public static func rects(count: Int, width: Int, height: Int, focus: Int = 0) -> [Rect] {
        guard count > 1 else { return [Rect(x: 0, y: 0, width: width, height: height)] }
        if count == 2 && width >= 160 {
            let w = width / 2
            return [Rect(x: 0, y: 0, width: w - 1, height: height), Rect(x: w, y: 0, width: width - w, height: height)]
        }
        if count > 2 && width >= 160 && height >= 46 {
            let (w, h) = (width / 2, height / 2)
            return (0..<count).map { i in
                let (col, row) = (i % 2, i / 2)
                return Rect(
                    x: col * w, y: row * h, width: col == 1 ? width - w : w - 1,
                    height: row == 1 || count <= 2 ? height - h : h)
            }
        }
        if count == 2 {
            let h = height / 2
            return [Rect(x: 0, y: 0, width: width, height: h), Rect(x: 0, y: h, width: width, height: height - h)]
        }
        // Stacked, the focused pane larger: half the height, the others share the rest.
        let big = height / 2
        let small = (height - big) / (count - 1)
        var y = 0
        return (0..<count).map { i in
            let last = i == count - 1
            let h = i == focus ? big : small
            defer { y += h }
            return Rect(x: 0, y: y, width: width, height: last ? height - y : h)
        }
    }

    /// The whole screen: each pane's dashboard in its rectangle, under the sync strip when two panes are synchronized.
    public static func compose(
        _ models: [DashboardModel], width: Int, height: Int, sync: SyncModel? = nil, prompt: String? = nil, focus: Int = 0
    ) -> Canvas {
        var screen = Canvas(width: width, height: height)
        let top = sync == nil ? 0 : 1
        if let sync { screen.blit(SyncStrip.render(sync, width: width), at: Rect(x: 0, y: 0, width: width, height: 1)) }
        for (m, r) in zip(models, rects(count: models.count, width: width, height: height - top, focus: focus)) {
            screen.blit(
                Dashboard.render(m, width: r.width, height: r.height), at: Rect(x: r.x, y: r.y + top, width: r.width, height: r.height))
        }
        if let prompt {
            // The URL prompt replaces the bottom line while it is open.
            let line = "Open another pane, URL: " + prompt + "█  (Enter opens, Esc cancels)"
            screen.fill(Rect(x: 0, y: height - 1, width: width, height: 1), .status)
            screen.put(0, height - 1, fit(line, width), .status)
        }
        return screen
    }
}

/// Runs the dashboard: one thread owns curses (draws, reads keys); the panes run on their own tasks.
public enum DashboardRunner {
    /// Runs until the user quits or a signal arrives; returns the exit status. The terminal is restored on every path.
    public static func run(_ request: DashboardRequest) async -> Int32 {
        // Without a terminal the dashboard cannot work: say so at once instead of waiting on a screen nobody sees.
        if let why = Screen.unusableTerminal(term: ProcessInfo.processInfo.environment["TERM"]) {
            FileHandle.standardError.write(Data("hlstui: \(why)\n".utf8))
            return 2
        }
        guard let themes = themeOrder(request.theme) else { return 2 }
        var configs = request.panes
        let recording = NIOLockedValueBox<[Pane]>([])
        let recorder: Recorder?
        do {
            recorder = try SessionRecording.start(request.record, command: "play", panes: &configs) { why in
                for p in recording.withLockedValue({ $0 }) { p.say(.error, why) }
            }
        } catch {
            FileHandle.standardError.write(Data("hlstui: \(error.description)\n".utf8))
            return 2
        }
        defer { recorder?.close() }
        // The session's events go into the recording as `monitor` would write them.
        let report: @Sendable (PaneReport) -> Void = { r in
            guard let recorder, let (event, fields) = MonitorJSON.event(for: r, verbose: false) else { return }
            recorder.event(t: r.t, name: event, pane: r.pane, json: MonitorJSON.line(event, t: r.t, wall: Date(), fields))
        }
        // The screen is taken before the players exist: from here on whatever their libraries write is captured, not drawn.
        Screen.installHandlers()
        let screen = Screen()
        do { try screen.start() } catch {
            FileHandle.standardError.write(Data("hlstui: \(error.description)\n".utf8))
            return 2
        }
        if request.ascii { screen.asciiOnly = true }
        screen.graphics = request.picture.graphics(screen: screen)
        let started = ContinuousClock.now
        let log = request.logFile.flatMap { LogFile(path: $0) }
        let onReport: @Sendable (PaneReport) -> Void = { r in
            log?.write(pane: r.pane, t: r.t, r.output)
            report(r)
        }
        var panes: [Pane] = []
        for (i, c) in configs.enumerated() {
            do {
                panes.append(try Pane(index: i, config: c, started: started, output: onReport))
            } catch {
                for p in panes { await p.close() }
                screen.stop()
                FileHandle.standardError.write(Data("hlstui: cannot start the player: \(error)\n".utf8))
                return 2
            }
        }
        for n in request.notes { panes.first?.say(.warn, n) }
        for p in panes { p.startOpening() }
        // A pane opened with `o` gets the first pane's options and shares its log.
        recording.withLockedValue { $0 = panes }
        let first = request.panes[0]
        let makePane: @Sendable (Int, String) throws -> Pane = { i, url in
            var c = first
            c.url = url
            c.loader.upstream.tap = recorder?.tap(pane: i)
            let p = try Pane(index: i, config: c, started: started, output: onReport)
            recording.withLockedValue { $0.append(p) }
            return p
        }
        let ui = UILoop(
            screen: screen, panes: panes, themes: themes, sync: request.sync, latency: request.latency, started: started,
            makePane: makePane, recorder: recorder, commands: request.commands, replay: request.replay,
            pictureOff: request.picture == .none)
        let status = await withCheckedContinuation { (k: CheckedContinuation<Int32, Never>) in
            let thread = Thread { k.resume(returning: ui.run()) }
            thread.name = "curses"
            thread.stackSize = 4 << 20
            thread.start()
        }
        await ui.stopSync()
        // The shell gets its screen back at once; the players' libraries stay captured until the players are gone.
        screen.endDrawing()
        panes = ui.panes
        for p in panes { await p.close() }
        screen.stop()
        for p in panes {
            if let e = p.snapshot.error { FileHandle.standardError.write(Data("hlstui: pane \(p.index): \(e)\n".utf8)) }
        }
        return status
    }

    /// The themes `t` cycles through, `t` first (nil: the library's order); nil when no theme is called `t`, said on stderr.
    static func themeOrder(_ t: String?) -> [String]? {
        let names = ThemeLibrary.names()
        guard let t else { return names }
        guard ThemeLibrary.load(t) != nil else {
            FileHandle.standardError.write(Data("hlstui: no theme \(t); available: \(names.joined(separator: ", "))\n".utf8))
            return nil
        }
        return [t] + names.filter { $0 != t }
    }
}

/// The curses thread's loop. Unchecked: its mutable state is the curses thread's alone while `run` runs; the caller reads
/// `panes` after it returns.
final class UILoop: @unchecked Sendable {
    /// Read by the caller after `run` returns (a pane opened with `o` is closed there too).
    private(set) var panes: [Pane]
    let themes: [String]
    let sync: Bool
    /// `--latency`: the panes follow the wall clock, not each other.
    let latency: LatencySync.Target?
    let started: ContinuousClock.Instant
    let makePane: @Sendable (Int, String) throws -> Pane
    /// Gets every command given, when the session is recorded.
    let recorder: Recorder?
    /// Commands still to give, in time order.
    private var pending: ArraySlice<ScriptedAction>
    /// A replay's progress, which cues its commands.
    let replay: ReplayProgress?
    private(set) var syncRunner: SyncRunner?
    /// Runners replaced when a pane joined, asked to stop: `stopSync` waits for them too.
    private var retiredSync: [SyncRunner] = []
    let screen: Screen
    /// `--picture none`.
    let pictureOff: Bool
    /// Folds what the players' libraries write on stdout and stderr into the first pane's message log.
    private var captured = CapturedOutputFilter()

    init(
        screen: Screen, panes: [Pane], themes: [String], sync: Bool, latency: LatencySync.Target? = nil, started: ContinuousClock.Instant,
        makePane: @escaping @Sendable (Int, String) throws -> Pane, recorder: Recorder? = nil, commands: [ScriptedAction] = [],
        replay: ReplayProgress? = nil, pictureOff: Bool = false
    ) {
        self.pictureOff = pictureOff
        self.replay = replay
        self.recorder = recorder
        pending = commands[...]
        self.screen = screen
        self.panes = panes
        self.themes = themes
        self.sync = sync
        self.latency = latency
        self.started = started
        self.makePane = makePane
        startSync()
    }

    /// Two to four panes start on a common PDT and stay there; `s` switches the lock off and on, `r` chooses the reference.
    /// With `--latency` every pane, one or more, follows the wall clock instead. A pane opened later joins: the lock starts
    /// over with every pane, as the user left it (on or off, reference).
    func startSync() {
        guard panes.count >= (latency == nil ? 2 : 1), sync || latency != nil, syncRunner?.panes.count != panes.count else { return }
        let settings = syncRunner?.settings ?? (enabled: true, reference: nil)
        if let old = syncRunner {
            old.stop()
            retiredSync.append(old)
        }
        syncRunner = SyncRunner(
            panes: panes, started: started, enabled: settings.enabled, reference: settings.reference, latency: latency)
        syncRunner?.start()
    }

    /// Ends the sync loop and every one it replaced (once the curses thread is done with them).
    func stopSync() async {
        for r in retiredSync + (syncRunner.map { [$0] } ?? []) { await r.stopped() }
    }

    /// Opens `url` in another pane; a failure is one line in the first pane's log.
    func open(_ url: String) {
        do {
            let p = try makePane(panes.count, url)
            panes.append(p)
            p.startOpening()
            startSync()
        } catch {
            panes[0].say(.error, "cannot open another pane: \(error)")
        }
    }

    /// Moves what the libraries wrote since the last call into the message log.
    func drainCaptured() -> Bool {
        let (text, lost) = screen.takeCaptured()
        guard !text.isEmpty || lost > 0 else { return false }
        for (level, line) in captured.take(text) { panes[0].say(level, line) }
        if lost > 0 { panes[0].say(.warn, "output of a library: \(lost) bytes lost (written faster than the dashboard reads)") }
        return true
    }

    /// Carries out a session action on the focused pane (or on the lock); `focus` nil: on every pane.
    /// `scripted`: a command of a script or a replay, decided at the playhead it is recorded with (`PaneOwner.perform`).
    func perform(_ action: Action, focus: Int?, scripted: ScriptedAction? = nil) {
        switch action {
        case .toggleSync: syncRunner?.toggle()
        case .syncReference(let p): syncRunner?.pinReference(p ?? focus ?? 0)
        default:
            for (i, p) in panes.enumerated() where focus == nil || focus == i {
                p.perform(action, at: scripted.map { $0.moment(for: i) ?? p.snapshot.playhead } ?? nil)
            }
        }
    }

    /// Gives the commands that are due; true when one asks to quit.
    func giveDueCommands() -> Bool {
        let t = Pane.seconds(ContinuousClock.now - started)
        for d in replay?.takeDivergences() ?? [] { panes.first?.say(.warn, "replay: \(d)") }
        while let c = pending.first {
            let here = panes[safe: c.pane ?? 0]?.snapshot.playhead
            let cue = c.cue(t: t, playhead: here)
            if cue == .notYet { break }
            pending = pending.dropFirst()
            if cue == .late { panes.first?.say(.warn, "replay: " + ReplayProgress.late(c, playhead: here)) }
            if c.action == .quit { return true }
            perform(c.action, focus: c.pane.map { min($0, panes.count - 1) }, scripted: cue == .due ? c : nil)
        }
        return false
    }

    /// What each pane shows in this frame (its snapshot, the UI state, the picture as the terminal can draw it), and the sync
    /// strip's.
    func frameModels(_ st: DashboardScreenState) -> ([DashboardModel], SyncModel?) {
        let models = panes.enumerated().map { i, p -> DashboardModel in
            var ui = st.ui[i]
            ui.focused = panes.count == 1 || i == st.focus
            // The picture as the terminal can draw it: half blocks in colour, spaces in colour without UTF-8, a luma
            // ramp without colour.
            ui.pictureMode = screen.colorCount < 256 ? .luma : (screen.asciiOnly ? .ascii : .halfBlocks)
            ui.pictureGraphics = screen.graphics != nil
            ui.pictureOff = pictureOff
            p.wantPicture(ui.showPicture && !ui.pictureOff, detailed: ui.pictureGraphics)
            var m = DashboardModel(p.snapshot, ui: ui)
            if ui.showPicture { m.picture = p.picture }
            if ui.showGraphs, let h = syncRunner?.snapshot.history, h.indices.contains(i) {
                m.graphs.append(DashboardModel.syncGraph(h[i]))
            }
            return m
        }
        let strip = syncRunner.map { y in
            let v = y.snapshot
            var m = SyncModel(
                state: v.state, offset: v.offset, speeds: v.speeds, pdts: v.pdts,
                action: v.reasons.first ?? v.actions.last?.description, offsets: v.offsets, reference: v.reference)
            (m.followsClock, m.latency) = (v.followsClock, v.latency)
            return m
        }
        return (models, strip)
    }

    func run() -> Int32 {
        var st = DashboardScreenState(panes: panes.count)
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"] != nil || screen.colorCount == 0
        func applyTheme() {
            let name = noColor ? "monochrome" : themes[st.themeIndex % themes.count]
            let theme = ThemeLibrary.load(name) ?? ThemeLibrary.defaultTheme
            screen.use(theme)
            for i in st.ui.indices { st.ui[i].themeName = theme.name }
        }
        applyTheme()
        // A deliberate crash after the first frame, so tests can prove the crash handler gives the terminal back.
        let crashForTest = ProcessInfo.processInfo.environment["HLSTUI_TEST_CRASH"] == "1"
        var lastSample = ContinuousClock.now - .seconds(1)
        var lastFrame: Canvas?
        var clear = true
        while !st.quit && !Screen.quitRequested {
            var dirty = drainCaptured()
            if Screen.takeContinued() { clear = true; dirty = true }
            if let key = screen.readKey(timeoutMs: 30) {
                dirty = true
                if key == .resize {
                    clear = true
                } else if st.prompt != nil {
                    if let url = st.edit(key) {
                        recorder?.input(t: Pane.seconds(ContinuousClock.now - started), pane: nil, command: "open \(url)")
                        open(url)
                        while st.ui.count < panes.count { st.ui.append(UIState()) }
                        applyTheme()
                    }
                } else if let cmd = Keymap.command(for: key), cmd == .repaint || cmd == .suspend {
                    if cmd == .suspend { screen.suspend() }
                    clear = true
                } else if let cmd = Keymap.command(for: key) {
                    let s = panes[st.focus].snapshot
                    let (before, focus) = (st.themeIndex, st.focus)
                    let action = st.handle(
                        cmd, ladderSize: s.ladder.rungs.count, logSize: max(s.requests.count, s.log.count), themes: themes.count)
                    // Recorded as a `--commands` line says it (a replay gives it again); what concerns only the screen, by name.
                    recorder?.input(
                        t: Pane.seconds(ContinuousClock.now - started), pane: focus,
                        command: action?.words(focus: focus) ?? (st.quit ? "quit" : "ui \(cmd)"),
                        playhead: s.playhead.map { ($0.msn, $0.offset) })
                    if let action { perform(action, focus: focus) }
                    if st.themeIndex != before { applyTheme() }
                }
            }
            if giveDueCommands() { st.quit = true }
            // Four samples a second; as many as the picture's frames while one is shown.
            let fps = panes.first?.config.player.pictureFPS ?? 5
            let period = st.ui.contains(where: \.showPicture) ? min(250, Int(1000 / max(0.5, fps))) : 250
            if ContinuousClock.now - lastSample >= .milliseconds(period) {
                lastSample = ContinuousClock.now
                for p in panes { p.requestSample() }
                dirty = true
            }
            guard dirty else { continue }
            let (w, h) = screen.size
            let (models, strip) = frameModels(st)
            let frame = PaneLayout.compose(models, width: w, height: h, sync: strip, prompt: st.prompt, focus: st.focus)
            if frame != lastFrame || clear {
                screen.draw(frame, clear: clear)
                lastFrame = frame
                clear = false
                if crashForTest && panes.allSatisfy({ $0.snapshot.started }) { fatalError("HLSTUI_TEST_CRASH: a deliberate crash") }
            }
        }
        return panes.contains { $0.snapshot.error != nil } ? 1 : 0
    }
}

/// Appends hlstui's log to a file, one line per event.
final class LogFile: Sendable {
    let handle: NIOLockedValueBox<FileHandle>

    init?(path: String) {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let h = FileHandle(forWritingAtPath: path) else { return nil }
        h.seekToEndOfFile()
        handle = NIOLockedValueBox(h)
    }

    func write(pane: Int, t: Double, _ out: PaneOutput) {
        let text: String
        switch out {
        case .loader(let e): text = ProxyRunner.line(e, insecure: false)
        case .fact(let f): text = "\(f)"
        case .switched(let s): text = "variant \(s.from.map(String.init) ?? "-") → \(s.to) (\(s.reason.rawValue), \(s.mechanism.rawValue))"
        case .ladder: text = "ladder read"
        case .log(let level, let m): text = "\(level.rawValue): \(m)"
        case .sampled: return
        }
        handle.withLockedValue { $0.write(Data("pane \(pane) \(fixed(t, 3)) \(text)\n".utf8)) }
    }
}

/// `--picture`: how the picture is drawn.
public enum PictureChoice: String, Sendable, CaseIterable {
    /// Kitty graphics or sixel when the terminal answers that it has them, else cells.
    case auto
    case sixel, kitty
    /// Colour half blocks (or the fallbacks without colour or UTF-8).
    case cells
    /// No picture: nothing is sampled for it (its facts, frozen and black, still are).
    case none

    /// The graphics protocol to draw with on `screen` (asking the terminal for `auto`); nil: cells.
    func graphics(screen: Screen) -> GraphicsProtocol? {
        switch self {
        case .sixel: return .sixel
        case .kitty: return .kitty
        case .cells, .none: return nil
        case .auto:
            // Without colour there is nothing to gain; tmux and screen answer for themselves and pass neither on.
            guard screen.colorCount >= 256, !screen.asciiOnly else { return nil }
            return screen.detectGraphics().best
        }
    }
}
