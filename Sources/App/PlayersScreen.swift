import CMCD
import Foundation
import Terminal
import TUI

/// `hlstui proxy --players`: the players that send CMCD through the proxy, each a pane of its own, redrawn four times a
/// second on the terminal (docs/CMCD.md). The drawing is `PlayersView`'s; this loop owns the terminal, on a thread of its own
/// as the dashboard's does, and gives it back on every way out.
public enum PlayersScreen {
    /// Runs until q, a signal or `duration` seconds; `players` and `now` are read for each frame. Returns the exit status.
    public static func run(
        entry: String, players: @escaping @Sendable () -> [CMCDPlayers.Player], now: @escaping @Sendable () -> Double,
        duration: Double?, ascii: Bool, title: String = "hlstui proxy"
    ) async -> Int32 {
        if let why = Screen.unusableTerminal(term: ProcessInfo.processInfo.environment["TERM"]) {
            FileHandle.standardError.write(Data("\(title) --players: \(why)\n".utf8))
            return 2
        }
        Screen.installHandlers()
        let screen = Screen()
        do { try screen.start() } catch {
            FileHandle.standardError.write(Data("hlstui: \(error.description)\n".utf8))
            return 2
        }
        if ascii { screen.asciiOnly = true }
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"] != nil || screen.colorCount == 0
        screen.use((noColor ? ThemeLibrary.load("monochrome") : nil) ?? ThemeLibrary.defaultTheme)
        let loop = PlayersLoop(
            screen: screen, entry: entry, title: title, players: players, now: now,
            end: duration.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) })
        let status = await withCheckedContinuation { (k: CheckedContinuation<Int32, Never>) in
            let thread = Thread { k.resume(returning: loop.run()) }
            thread.name = "curses"
            thread.stackSize = 4 << 20
            thread.start()
        }
        screen.endDrawing()
        screen.stop()
        return status
    }
}

/// The loop on the curses thread: it alone touches the screen while it runs (as the dashboard's `UILoop`). Unchecked: its
/// mutable state is that thread's alone.
final class PlayersLoop: @unchecked Sendable {
    let screen: Screen
    let entry: String
    let title: String
    let players: @Sendable () -> [CMCDPlayers.Player]
    let now: @Sendable () -> Double
    let end: ContinuousClock.Instant?

    init(
        screen: Screen, entry: String, title: String, players: @escaping @Sendable () -> [CMCDPlayers.Player],
        now: @escaping @Sendable () -> Double, end: ContinuousClock.Instant?
    ) {
        (self.screen, self.entry, self.title, self.players, self.now, self.end) = (screen, entry, title, players, now, end)
    }

    func run() -> Int32 {
        var last: Canvas?
        var next = ContinuousClock.now
        var clear = true
        while !Screen.quitRequested, end.map({ ContinuousClock.now < $0 }) ?? true {
            // What C libraries write meanwhile is captured and dropped: only this loop draws.
            _ = screen.takeCaptured()
            if Screen.takeContinued() { clear = true }
            if let key = screen.readKey(timeoutMs: 50) {
                if key == .char("q") || key == .control("c") { break }
                if key == .resize || key == .control("l") { clear = true }
            }
            guard ContinuousClock.now >= next || clear else { continue }
            next = ContinuousClock.now + .milliseconds(250)
            let (w, h) = screen.size
            let frame = PlayersView.render(
                players(), entry: entry, now: now(), width: w, height: h, ascii: screen.asciiOnly, title: title)
            if clear || frame != last {
                screen.draw(frame, clear: clear)
                last = frame
                clear = false
            }
        }
        return 0
    }
}
