import Foundation
import JSONValue
import Recording

/// Starts a session's recording (`--record FILE`): one recorder for every pane, its tap on each pane's Loader.
enum SessionRecording {
    /// nil without a path. `onFailure` gets the one line that says the recording stopped (a full disk); the session goes on.
    static func start(
        _ path: String?, command: String, panes: inout [PaneConfig], onFailure: @escaping @Sendable (String) -> Void
    ) throws(RecordingError) -> Recorder? {
        guard let path else { return nil }
        let urls = JSONValue.array(panes.map { .string($0.url) }).text
        let recorder = try Recorder(
            path: path, meta: [("command", command), ("urls", urls), ("hlstui", AppInfo.version)], onFailure: onFailure)
        for i in panes.indices { panes[i].loader.upstream.tap = recorder.tap(pane: i) }
        return recorder
    }
}
