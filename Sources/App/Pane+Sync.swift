import Foundation
import HLS
import Loader
import Session

/// What the sync controller reads from and does to a pane.
extension Pane {
    /// The wall-clock moment at the playhead now (fresh `audio-pts`, else `time-pos`, through the media clock), whether the
    /// playhead advances, and whether the stream carries PDT at all (nil until its playlist is known).
    public func clockNow() -> (pdt: DateTime?, playing: Bool, hasPDT: Bool?, at: ContinuousClock.Instant) {
        let s = snapshot
        let media = s.loadedRung.flatMap { s.media[$0] } ?? s.playingMedia
        let hasPDT = media.map { $0.segments.contains { $0.effectiveProgramDateTime != nil } }
        guard !loading.withLockedValue({ $0 }), s.started, s.error == nil else { return (nil, false, hasPDT, .now) }
        let paused = (mpv.get(.pause) ?? false) || (mpv.get(.pausedForCache) ?? false)
        let raw = mpv.get(.audioPts) ?? mpv.get(.timePos)
        // The moment of the reading: the other pane's is read later, and the difference is taken out (a loaded machine can
        // put tens of milliseconds between two property reads).
        let at = ContinuousClock.now
        guard let raw, let p = s.locate(raw), let m = media else { return (nil, !paused, hasPDT, at) }
        return (MediaClock.programDateTime(p, in: m), !paused, hasPDT, at)
    }

    /// Plays at `speed` (the sync controller's correction); audio keeps its pitch (mpv's scaletempo).
    public func setSpeed(_ speed: Double) { try? mpv.set(.speed(speed)) }

    /// Holds the picture for `seconds` (paused), so the other pane reaches the same moment.
    public func hold(seconds: Double) {
        apply(.seekAsked)
        try? mpv.set(.pause(true))
        let mpv = self.mpv
        tasks.spawn {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            try? mpv.set(.pause(false))
        }
        apply(.log(level: .info, text: "sync: holding for \(fixed(seconds, 3)) s"))
    }

    /// Reloads at the segment holding wall-clock moment `date` (the other pane is that far behind); false when no segment does.
    @discardableResult
    public func realign(to date: DateTime) -> Bool {
        let s = snapshot
        guard let m = s.loadedRung.flatMap({ s.media[$0] }) ?? s.playingMedia, let t = Timeline.playlistTime(at: date, in: m),
            let i = Timeline.segmentIndex(at: t, in: m)
        else { return false }
        let msn = m.segments[i].mediaSequence
        apply(.seekAsked)
        load(rung: s.loadedRung ?? 0, startMSN: msn)
        apply(.log(level: .info, text: "sync: reloaded at msn \(msn) to meet the other pane at \(date)"))
        return true
    }
}
