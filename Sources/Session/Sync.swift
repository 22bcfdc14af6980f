import HLS

/// Where two panes stand against each other on the wall clock (EXT-X-PROGRAM-DATE-TIME, RFC 8216bis §4.4.4.6).
public enum SyncState: Sendable, Equatable {
    /// Waiting for both playheads to have a PDT.
    case waiting
    /// Holding the pane ahead (paused) until the other reaches its moment.
    case aligning
    /// Steering speed; locked once within a frame for a second.
    case steering
    case locked
    /// Not synchronized, and why (a stream without PDT, the user switched it off).
    case off(String)

    public var label: String {
        switch self {
        case .waiting: return "waiting for PDT"
        case .aligning: return "aligning"
        case .steering: return "locking"
        case .locked: return "locked"
        case .off(let why): return "off: \(why)"
        }
    }
}

/// What the controller wants done now.
public struct SyncCommand: Sendable, Equatable {
    /// Playback speed per pane.
    public var speeds: [Double]
    /// Panes to hold (paused) for the given seconds, so the other catches up.
    public var hold: (pane: Int, seconds: Double)?
    /// A pane too far ahead to wait for: reload it at the segment holding this moment.
    public var realign: (pane: Int, to: DateTime)?

    public init(speeds: [Double], hold: (pane: Int, seconds: Double)? = nil, realign: (pane: Int, to: DateTime)? = nil) {
        self.speeds = speeds
        self.hold = hold
        self.realign = realign
    }

    public static func == (a: SyncCommand, b: SyncCommand) -> Bool {
        a.speeds == b.speeds && a.hold?.pane == b.hold?.pane && a.hold?.seconds == b.hold?.seconds
            && a.realign?.pane == b.realign?.pane && a.realign?.to == b.realign?.to
    }
}

/// Keeps pane 1 on pane 0's wall clock: a proportional controller on speed within a few percent (as Media3 and Shaka steer
/// live latency), a hold of the pane ahead for large errors; pure.
public struct SyncController: Sendable {
    /// Speed change per second of offset (1: the error decays with a time constant of a second, at most ±`maxCorrection`).
    public var gain = 1.0
    public var maxCorrection = 0.05
    /// Beyond this offset (seconds) steering would take too long: the pane ahead is held instead.
    public var holdThreshold = 1.0
    /// Before the first lock, offsets beyond this are held away at once (steering 0.2 s at 5 % takes 4 s); after it, only
    /// `holdThreshold` is, so a transient never pauses a pane.
    public var startHoldThreshold = 0.05
    public private(set) var everLocked = false
    /// Beyond this offset (seconds) holding would take too long: the pane ahead reloads at the other's moment.
    public var realignThreshold = 3.0
    /// Within this offset (seconds) for `lockAfter` seconds counts as locked.
    public var lockTolerance = 0.034
    public var lockAfter = 0.5
    public private(set) var state: SyncState = .waiting
    public private(set) var offset: Double?
    public private(set) var speeds: [Double] = [1, 1]
    var withinSince: Double?
    var holdUntil: Double?
    /// Consecutive readings that jumped away from a steady offset (a playhead read across a timestamp reset, say).
    var jumps = 0
    var missingSince: Double?
    public var enabled = true {
        didSet { gaveUp = nil }
    }
    /// Why aligning cannot work (the streams share no moment), once tried.
    public private(set) var gaveUp: String?
    public init() {}

    /// Stops trying: the pane ahead could not reach the other's moment.
    public mutating func giveUp(_ why: String) {
        gaveUp = why
        state = .off(why)
        _ = release()
    }

    /// Seconds pane 0's playhead is ahead of pane 1's on the wall clock.
    public static func offset(_ a: DateTime?, _ b: DateTime?) -> Double? {
        guard let a, let b else { return nil }
        return a.seconds(since: b)
    }

    /// One control step at session time `t`: `pdts` of the two playheads, `playing` whether each advances (not paused, not
    /// waiting for data), `hasPDT` whether each stream carries PDT at all.
    public mutating func step(t: Double, pdts: [DateTime?], playing: [Bool], hasPDT: [Bool]) -> SyncCommand {
        guard enabled else {
            state = .off("switched off")
            return release()
        }
        if let why = gaveUp {
            state = .off(why)
            return release()
        }
        if let i = hasPDT.firstIndex(of: false) {
            state = .off("pane \(i + 1) has no EXT-X-PROGRAM-DATE-TIME")
            return release()
        }
        if let until = holdUntil, t < until { return SyncCommand(speeds: speeds, hold: nil) }
        holdUntil = nil
        guard let d = SyncController.offset(pdts[0], pdts[1]), playing.allSatisfy({ $0 }) else {
            // A moment without a reading (a reload, a segment not located yet) keeps the state; a lasting one is "waiting".
            missingSince = missingSince ?? t
            if t - missingSince! > 0.5 && state != .aligning { state = .waiting }
            return SyncCommand(speeds: speeds, hold: nil)
        }
        missingSince = nil
        // While steady, a reading far from the last is a transient until it lasts 0.6 s (at a timestamp reset mpv holds the
        // video and plays audio that started earlier for ~0.3 s, measured on the origin's cameras; a real jump lasts).
        if let last = offset, state == .steering || state == .locked, abs(d - last) > 0.1, jumps < 12 {
            jumps += 1
            return SyncCommand(speeds: speeds, hold: nil)
        }
        jumps = 0
        offset = d
        if abs(d) > realignThreshold, let behind = pdts[d > 0 ? 1 : 0] {
            state = .aligning
            withinSince = nil
            speeds = [1, 1]
            holdUntil = t + 0.5
            return SyncCommand(speeds: speeds, realign: (pane: d > 0 ? 0 : 1, to: behind))
        }
        if abs(d) > (everLocked ? holdThreshold : startHoldThreshold) {
            // The pane ahead on the wall clock waits for the other: pane 0 ahead (d > 0) holds pane 0.
            state = .aligning
            withinSince = nil
            speeds = [1, 1]
            holdUntil = t + abs(d) + 0.3
            return SyncCommand(speeds: speeds, hold: (pane: d > 0 ? 0 : 1, seconds: abs(d)))
        }
        // Pane 1 behind (d > 0) plays faster.
        let correction = min(maxCorrection, max(-maxCorrection, gain * d))
        speeds = [1, 1 + correction]
        if abs(d) <= lockTolerance {
            withinSince = withinSince ?? t
            if t - withinSince! >= lockAfter {
                state = .locked
                everLocked = true
            } else if state != .locked {
                state = .steering
            }
        } else {
            withinSince = nil
            state = .steering
        }
        return SyncCommand(speeds: speeds, hold: nil)
    }

    mutating func release() -> SyncCommand {
        speeds = [1, 1]
        withinSince = nil
        holdUntil = nil
        return SyncCommand(speeds: speeds, hold: nil)
    }
}
