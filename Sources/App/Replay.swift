import Foundation
import Loader
import Origin
import Recording
import Session

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
                ScriptedAction(at: input.t / max(0.01, speed), action: $0, line: i + 1, pane: input.pane)
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
            notes: notes, options: meta["options"].flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String] } ?? [])
    }
}
