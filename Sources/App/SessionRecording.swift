import Foundation
import JSONValue
import Loader
import Recording

/// `--record FILE` (`--redact`): where, and what to take out.
public struct RecordingRequest: Sendable {
    public var path: String
    public var redactor: Redactor?
    /// The options that shape playback (pin, caps, switch modes, buffers, sync) as command-line words, kept so a replay plays
    /// the same way.
    public var options: [String]
    /// `--record-keys`: key bytes kept sealed under the user's vault key, so the replay can decrypt.
    public var keys: Bool
    public init(path: String, redactor: Redactor?, options: [String] = [], keys: Bool = false) {
        self.path = path
        self.redactor = redactor
        self.options = options
        self.keys = keys
    }
}

/// Starts a session's recording (`--record FILE`): one recorder for every pane, its tap on each pane's Loader.
enum SessionRecording {
    /// nil without a request. `onFailure` gets the one line that says the recording stopped (a full disk); the session goes on.
    static func start(
        _ request: RecordingRequest?, command: String, panes: inout [PaneConfig], onFailure: @escaping @Sendable (String) -> Void
    ) throws(RecordingError) -> Recorder? {
        guard let request else { return nil }
        let urls = JSONValue.array(panes.map { .string($0.url) }).text
        let options = JSONValue.array(request.options.map { .string($0) }).text
        var seal: (@Sendable ([UInt8]) -> [UInt8]?)?
        if request.keys {
            do { seal = try KeyVault.sealing().seal } catch { throw RecordingError("--record-keys: \(error)") }
        }
        let recorder = try Recorder(
            path: request.path, meta: [("command", command), ("urls", urls), ("options", options), ("hlstui", AppInfo.version)],
            redactor: request.redactor, sealKey: seal, onFailure: onFailure)
        for i in panes.indices { panes[i].loader.upstream.tap = recorder.tap(pane: i) }
        return recorder
    }
}
