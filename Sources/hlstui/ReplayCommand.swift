import App
import ArgumentParser
import Foundation
import Loader
import Session
import Terminal
import Recording
import Origin

/// `hlstui replay FILE`: a recorded session again, from an origin that answers as the recorded one did.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract:
            "Play a recording (--record) again: hlstui's origin answers as the recorded one did — the same statuses, waits, cuts and live windows at the same moments — and the recorded commands are given again.",
        discussion:
            "The dashboard by default; --json writes JSON Lines as `monitor` does, until the recorded session's length (or --duration). Key bytes are never recorded: an encrypted stream's keys are not there to replay."
    )

    @Argument(help: "A recording made with --record.")
    var file: String

    @Flag(help: "Write the session as JSON Lines (as `monitor` does) instead of showing the dashboard.")
    var json = false

    @Option(help: "With --json: stop after this many seconds (default: the recorded session's length).")
    var duration: Double?

    @Option(help: "Scale the origin's time: waits, paces and live windows run this many times as fast (the player plays in real time).")
    var speed: Double = 1

    @OptionGroup(title: "Player and dashboard")
    var player: PlayerFlagGroup

    func validate() throws {
        if !(speed > 0 && speed <= 100) { throw ValidationError("--speed must be above 0 and at most 100") }
        if let m = ArgumentMistake.file(file, option: "replay") { throw ValidationError("\(m): give the file --record wrote") }
    }

    func run() async throws {
        let session: ReplaySession
        do { session = try Replay.open(file, speed: speed) } catch { throw CLIError("hlstui replay: \(error.description)") }
        defer { session.server.stop() }
        // Played as it was recorded: the recorded pin, caps, switch modes, buffers and sync.
        let player = try self.player.replaying(session.options)
        let panes = try session.urls.map { url in
            var p = try player.paneConfig(url: url, loader: LoaderOptions(), defaultAudio: json ? "null" : nil)
            // The recording's playlists answer when the replay asks: their versions' timing is not the origin's.
            p.session.judgesVersions = false
            return p
        }
        let status: Int32
        if json {
            var request = MonitorRequest(panes: panes, duration: duration ?? session.length)
            request.commands = session.commands
            request.notes = session.notes
            request.replay = session.progress
            // Given --duration, it ends then; otherwise where the recording's requests end (ReplayProgress.mayEnd).
            if duration != nil { request.replay?.recordedMediaRequests = nil }
            request.sync = !player.noSync
            TerminalOutput.lineBuffered()
            status = await MonitorRunner.run(request) { line in print(line) }
        } else {
            var request = DashboardRequest(panes: panes, theme: player.theme, logFile: player.log)
            request.sync = !player.noSync
            request.ascii = player.ascii
            request.commands = session.commands
            request.notes = session.notes
            request.replay = session.progress
            status = await DashboardRunner.run(request)
        }
        if status != 0 { throw ExitCode(status) }
    }
}
