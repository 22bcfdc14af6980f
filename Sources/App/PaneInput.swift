import Foundation
import HLS
import Loader
import LoaderEvents
import Player
import Session

/// Everything that changes a pane, in the order it happened: the libraries' events, the user's actions, the watcher's looks,
/// the answers of work the owner started, and the questions of the screen, the monitor and sync.
enum PaneInput: Sendable {
    case loader(LoaderEvent)
    case mpv(MPVEvent)
    /// Open the stream; the continuation (nil: nobody waits) is resumed when it has opened or failed.
    case open(CheckedContinuation<Void, Never>?)
    case fetched(OpenedStream)
    case openFailed(String)
    /// The run may wait no longer for the stream to open (`Pane.stopOpening`).
    case stopOpening(String)
    case prewarmed(MediaPlaylist?)
    /// Sample the player (nil: nobody waits for the state).
    case sample(CheckedContinuation<SessionState, Never>?)
    /// A key or a command; `at`: a replayed command's recorded playhead, decided on in place of the player's position now.
    case perform(Action, at: StreamPoint?)
    case say(LogLevel, String)
    /// The watcher's look (every 20 ms); answered when done, so looks never pile up.
    case watch(CheckedContinuation<Void, Never>)
    case refreshed(rung: Int, MediaPlaylist, RefreshPurpose)
    /// A subtitle read came back (docs/SUBTITLES.md).
    case subtitleRead(SubtitleRead, url: String, Result<SubtitleAnswer, SubtitleReadFailure>)
    case steered(SteeringAnswer)
    case timer(PaneTimer)
    case clock(CheckedContinuation<PaneClock, Never>)
    case speed(Double)
    case hold(Double)
    /// Sync: wait (paused) while another pane rebuffers, or play on.
    case syncWait(Bool)
    /// Sync: move to a moment read at an instant (`Pane.realign`).
    case realign(DateTime, ContinuousClock.Instant, CheckedContinuation<Bool, Never>)
    /// An interstitial's asset playlist was read (`PaneEffect.openAsset`): the stream the player is given next.
    case assetFetched(OpenedStream)
    /// An interstitial's list or asset came back to the Session.
    case interstitial(InterstitialInput)
}

/// The steps of an effect that takes time; each comes back as an input when it is due.
enum PaneTimer: Sendable {
    /// The demuxer has carried out an aimed seek: the aim is reset.
    case resetDemuxerOffset
    /// A look the Session asked for (`PaneEffect.after`).
    case session(SessionTimer)
}
