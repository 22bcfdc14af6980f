import Foundation
import Loader
import Origin
import Recording
import Session
import LoaderEvents

/// A recording served again (`hlstui replay`): the origin that answers as the recorded ones did, the panes' URLs on it and
/// the commands given, at their times.
public struct ReplaySession: Sendable {
    public let server: OriginServer
    public let urls: [String]
    public let commands: [ScriptedAction]
    /// How long the recorded session lasted, at the replay's speed (seconds).
    public let length: Double
    /// `play` or `monitor`: what was recorded.
    public let command: String
    /// What the replay cannot give again, said once at the start.
    public let notes: [String]
    /// The recorded session's playback options, as command-line words.
    public let options: [String]
    /// How far the replay has got, for the commands' cues, and what it could not answer as recorded.
    public let progress: ReplayProgress
}

/// A replay's progress as the session loop reads it: the media requests its origin has been asked for (a replay behind its
/// recording plays on until it has made them), and what diverged from the recording (each said once).
public struct ReplayProgress: Sendable {
    public let mediaRequests: @Sendable () -> Int
    public let takeDivergences: @Sendable () -> [String]
    /// How many media requests the whole recording has; a replay that is behind it at the recorded length (its player
    /// started later) plays on until it has made as many, for `ScriptedAction.replayGrace` at most. nil: stop at the
    /// length (`--duration` given).
    public var recordedMediaRequests: Int?

    public init(
        mediaRequests: @escaping @Sendable () -> Int, takeDivergences: @escaping @Sendable () -> [String], recordedMediaRequests: Int?
    ) {
        self.mediaRequests = mediaRequests
        self.takeDivergences = takeDivergences
        self.recordedMediaRequests = recordedMediaRequests
    }

    /// Whether a replay that reached its length at `t` (`length`) may end: it has made the recording's media requests and
    /// had a second for the last answer, or the grace is over. `caughtUp`: when it made them (kept by the caller).
    public func mayEnd(t: Double, length: Double, caughtUp: inout Double?) -> Bool {
        guard let total = recordedMediaRequests else { return true }
        if caughtUp == nil && mediaRequests() >= total { caughtUp = t }
        if let c = caughtUp { return t >= c + 1 || c <= length }
        return t >= length + ScriptedAction.replayGrace
    }

    /// The divergence said for a command given late (`ScriptedAction.Cue.late`).
    static func late(_ c: ScriptedAction, playhead: StreamPoint?) -> String {
        let want = c.playhead.map { "msn \($0.msn) +\(String(format: "%.2f", $0.offset)) s" } ?? "?"
        let here = playhead.map { "msn \($0.msn) +\(String(format: "%.2f", $0.offset)) s" } ?? "not playing"
        return
            "command \(c.line) (\(c.action.words())) given \(Int(ScriptedAction.replayGrace)) s after its time: the recorded one was given at \(want), this playhead is at \(here)"
    }
}

public enum Replay {
    /// Opens `path` and starts serving it on 127.0.0.1 (time scaled by `speed`).
    public static func open(_ path: String, speed: Double) throws(RecordingError) -> ReplaySession {
        let file = try RecordingFile(path: path)
        let meta = try file.meta()
        guard let listed = meta["urls"], let urls = (try? JSONSerialization.jsonObject(with: Data(listed.utf8))) as? [String], !urls.isEmpty
        else { throw RecordingError("\(path): the recording names no stream") }
        let exchanges = try file.exchanges()
        // Keys recorded sealed (--record-keys) open with this user's vault only.
        let sealed = exchanges.filter(\.sealed)
        let open = sealed.isEmpty ? nil : (try? KeyVault.sealing())?.open
        let unopened = Set(sealed.filter { e in e.body.flatMap { try? file.body($0) }.flatMap { open?($0) } == nil }.map(\.url)).count
        let responder = ReplayResponder(
            exchanges: exchanges, speed: speed, body: { try? file.body($0) }, unseal: open ?? { _ in nil },
            startedAt: Date().timeIntervalSince1970)
        let server: OriginServer
        do { server = try OriginServer.start(router: responder) } catch { throw RecordingError("cannot serve \(path): \(error)") }
        responder.listening(at: server.httpBase)
        var mapped: [String] = []
        for url in urls {
            guard let u = responder.replayURL(url) else {
                server.stop()
                throw RecordingError("\(path): nothing was recorded from \(url)")
            }
            mapped.append(u)
        }
        // A command as a script line says it is given again; what concerned only the screen ("ui …") and panes opened later
        // ("open URL") are not.
        let commands = try file.inputs().enumerated().compactMap { i, input -> ScriptedAction? in
            Action.parse(input.command.split(separator: " ")).map {
                ScriptedAction(
                    at: input.t / max(0.01, speed), action: $0, line: i + 1, pane: input.pane,
                    playhead: input.playhead.map { StreamPoint(msn: $0.msn, offset: $0.offset) })
            }
        }
        let last = max(try file.events().last?.t ?? 0, exchanges.last.map { $0.t + $0.seconds } ?? 0)
        let keys = Set(exchanges.filter { $0.secret && !$0.sealed }.map(\.url)).count
        var notes: [String] = []
        if keys > 0 {
            notes.append(
                "the recording holds \(keys) key\(keys == 1 ? "" : "s") without \(keys == 1 ? "its" : "their") bytes (recorded without --record-keys): the encrypted segments cannot play again"
            )
        }
        if unopened > 0 {
            notes.append(
                "\(unopened) key\(unopened == 1 ? " was" : "s were") sealed under another user's vault key (--record-keys): the encrypted segments cannot play here"
            )
        }
        return ReplaySession(
            server: server, urls: mapped, commands: commands, length: last / max(0.01, speed), command: meta["command"] ?? "monitor",
            notes: notes, options: meta["options"].flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String] } ?? [],
            progress: ReplayProgress(
                mediaRequests: { responder.mediaRequests }, takeDivergences: { responder.takeDivergences() },
                recordedMediaRequests: responder.recordedMediaRequests(before: .infinity)))
    }
}
