import Foundation

/// The time the Loader and its upstream client keep: monotonic seconds, and waiting for some of them. Injected through
/// `UpstreamOptions.clock` so the Loader's policy (retries, resumption, holds, health) runs in a test's virtual time as it
/// runs in real time (DECISIONS.md, "The Loader's clock and transport are injected"); the wall clock is used only for
/// stamps (the request log, a recording) and for times the stream itself names (PDT, a key's expiry).
public protocol LoaderClock: Sendable {
    /// Monotonic seconds from an arbitrary origin.
    var now: Double { get }
    /// Returns once `seconds` of this clock have passed, or at once when the task is cancelled.
    func sleep(_ seconds: Double) async
}

/// Real time: `ContinuousClock`.
public struct SystemClock: LoaderClock {
    let origin = ContinuousClock.now
    public init() {}
    public var now: Double {
        let d = ContinuousClock.now - origin
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
    public func sleep(_ seconds: Double) async {
        guard seconds > 0 else { return }
        try? await Task.sleep(for: .seconds(seconds))
    }
}
