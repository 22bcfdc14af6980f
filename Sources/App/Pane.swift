import LoaderCore
import LoaderEvents
import Foundation
import HLS
import Loader
import NIOConcurrencyHelpers
import Player
import Session
import TUI

/// How the player shows and sounds.
public struct PlayerOptions: Sendable {
    public enum Video: String, Sendable { case auto, window, none }
    public var video: Video = .auto
    /// mpv's `ao` as the user asked; nil lets hlstui choose from what the machine has (`AudioOutputChoice`).
    public var audioOutput: String?
    /// Muted: no audio device is opened at all.
    public var mute = false
    /// false: no video track is decoded (mpv `vid=no`); the stream is still read whole, audio played (a fleet watching
    /// delivery only).
    public var decodeVideo = true
    /// Seconds mpv reads ahead (a player-like buffer, so the bar tells the truth; docs/PLATFORM.md).
    public var readahead = 10.0
    /// Seconds kept behind the playhead for the buffer bar and seeking back (`--back-buffer`).
    public var backBuffer = 60.0
    /// Frames a second sampled for the picture while it is shown (`--picture-fps`).
    public var pictureFPS = 5.0
    public init() {}

    /// The libmpv options that make FFmpeg 5.1 behave (docs/PLATFORM.md), in order.
    /// The cache caps are the budget at an assumed bitrate until the ladder is read (`PaneOwner.budget`).
    public func mpvOptions(audio: AudioOutputChoice) -> [(String, String)] {
        let budget = CacheBudget(readahead: readahead, backBuffer: backBuffer, peakBitsPerSecond: nil)
        var o: [(String, String)] = [
            ("demuxer", "lavf"), ("rebase-start-time", "no"), ("cache", "yes"),
            ("demuxer-readahead-secs", String(readahead)), ("cache-secs", String(readahead)),
            ("demuxer-max-bytes", String(budget.forwardBytes)), ("demuxer-max-back-bytes", String(budget.backBytes)),
            ("demuxer-donate-buffer", "no"),
            ("keep-open", "yes"), ("idle", "yes"), ("sub-auto", "no"),
            // The CEA-608 captions in the video: a track from the start, chosen at every load (a track chosen later makes mpv
            // seek, and over HTTP HLS that ends playback: docs/PLATFORM.md), drawn only when asked for (docs/SUBTITLES.md).
            ("sub-create-cc-track", "yes"), ("sub-visibility", "no"),
            ("hr-seek", "yes"), ("input-terminal", "no"),
        ]
        let display = ProcessInfo.processInfo.environment["DISPLAY"] != nil || ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] != nil
        if video == .none || (video == .auto && !display) { o.append(("vo", "null")) }
        if !decodeVideo { o.append(("vid", "no")) }
        o.append(("ao", audio.ao))
        if mute { o.append(("mute", "yes")) }
        return o
    }

    /// The audio output for this machine.
    public func chooseAudio() -> AudioOutputChoice { AudioOutputChoice.choose(requested: audioOutput, mute: mute, facts: .read()) }
}

/// What the screen and the pane's owner share about the picture.
struct PictureShared: Sendable {
    var wanted = false
    /// The terminal draws pixels (sixel, kitty): a larger image than cells need.
    var detailed = false
    var image: PictureImage?
}

/// One pane's configuration.
public struct PaneConfig: Sendable {
    public var url: String
    public var loader = LoaderOptions()
    public var player = PlayerOptions()
    /// What the Session starts with: caps, pin, switch modes, ABR, `--audio`, `--subs`, `--cmsd-cap` (the TLS and video flags
    /// are filled in from `loader` and `player` when the pane opens).
    public var session = SessionSettings()
    public init(url: String) { self.url = url }
}

/// What a pane reports, as it happens.
public enum PaneOutput: Sendable {
    case loader(LoaderEvent)
    case fact(SessionFact)
    case switched(VariantSwitch)
    case ladder
    case log(level: LogLevel, text: String)
    /// The player was sampled because a state flag changed (pause, waiting for data, end of file), between ticks.
    case sampled
}

/// One report of a pane: what happened, when, and the session state right after it.
public struct PaneReport: Sendable {
    public let pane: Int
    /// Seconds since the session started.
    public let t: Double
    public let output: PaneOutput
    public let state: SessionState
}

/// The playhead's wall-clock moment as the sync controller reads it.
public struct PaneClock: Sendable {
    /// The PDT at the playhead (fresh `audio-pts`, else `time-pos`, through the media clock).
    public var pdt: DateTime?
    /// The playhead advances.
    public var playing: Bool
    /// Whether the stream carries PDT at all (nil until its playlist is known).
    public var hasPDT: Bool?
    /// The moment of the reading.
    public var at: ContinuousClock.Instant
    /// The PDT range the pane's playlist lists.
    public var window: SyncWindow?
    /// The player waits for data (see `SyncReading.stalled`).
    public var stalled = false
    /// The reading advances between frames (`SyncReading.continuous`).
    public var continuous = false
}

/// One pane: the Loader, a libmpv handle and the Session state between them, the only place the three meet. Everything that
/// changes the pane is an input to one serial owner (`PaneOwner`, one loop over a stream), which holds the state, asks the
/// Session what to do and carries it out; others read the state it publishes (docs/ARCHITECTURE.md, the pane).
public final class Pane: Sendable {
    public let index: Int
    public let config: PaneConfig
    let started: ContinuousClock.Instant
    let inputs: AsyncStream<PaneInput>.Continuation
    /// The state as the owner last published it (read by the screen; written by the owner only).
    let published: NIOLockedValueBox<SessionState>
    let loop: Task<Void, Never>
    /// Every task the pane starts; cancelled before the player closes.
    let tasks: OwnedTasks
    let mpv: MPV
    let loader: LoaderServer
    /// The picture the screen wants, and the last one sampled (written by the owner, read by the screen).
    let pictureBox: NIOLockedValueBox<PictureShared>

    /// Seconds since the session started (monotonic).
    public var t: Double { Pane.seconds(ContinuousClock.now - started) }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

    /// Starts the Loader and the player; `open()` then loads the stream.
    public init(index: Int, config: PaneConfig, started: ContinuousClock.Instant, output: @escaping @Sendable (PaneReport) -> Void)
        throws
    {
        self.index = index
        self.config = config
        self.started = started
        var loaderOptions = config.loader
        loaderOptions.readsUndecodedVideo = !config.player.decodeVideo
        let loader = try LoaderServer.start(options: loaderOptions)
        let audio = config.player.chooseAudio()
        let mpv: MPV
        do {
            mpv = try MPV(options: config.player.mpvOptions(audio: audio), logLevel: "warn")
        } catch {
            loader.stop()
            throw error
        }
        for (i, p) in [MPVProperty<Bool>.pause, .pausedForCache, .eofReached, .coreIdle].enumerated() {
            try? mpv.observe(p, id: UInt64(i + 1))
        }
        var settings = config.session
        settings.insecureTLS = config.loader.upstream.tls.insecure
        settings.forgetsBeforeReload = !config.player.decodeVideo
        settings.readahead = config.player.readahead
        let s = SessionState(url: config.url, settings: settings)
        self.loader = loader
        self.mpv = mpv
        let tasks = OwnedTasks()
        self.tasks = tasks
        let published = NIOLockedValueBox(s)
        self.published = published
        let (stream, inputs) = AsyncStream.makeStream(of: PaneInput.self)
        self.inputs = inputs
        let pictureBox = NIOLockedValueBox(PictureShared())
        self.pictureBox = pictureBox
        let parts = PaneOwner.Parts(
            index: index, config: config, started: started, loader: loader, mpv: mpv, audio: audio,
            back: OwnerInputs(tasks: tasks, continuation: inputs),
            published: published, output: output, picture: pictureBox)
        loop = Task {
            let owner = PaneOwner(parts, state: s)
            await owner.run(stream)
        }
        // The libraries' events become inputs, in the order each library gives them.
        let loaderEvents = loader.events
        tasks.spawn { for await e in loaderEvents { inputs.yield(.loader(e)) } }
        let mpvEvents = mpv.events
        tasks.spawn { for await e in mpvEvents { inputs.yield(.mpv(e)) } }
        if let note = audio.note { say(.info, note) }
    }

    /// The frame last sampled for the screen (while it is wanted), scaled down.
    public var picture: PictureImage? { pictureBox.withLockedValue { $0.image } }

    /// Whether the screen shows this pane's picture: frames are then sampled at `PlayerOptions.pictureFPS` and kept.
    public func wantPicture(_ on: Bool, detailed: Bool = false) {
        pictureBox.withLockedValue {
            $0.wanted = on
            $0.detailed = detailed
        }
    }

    /// The session state as last published (at most a few tens of milliseconds old; current after `sample()` returns).
    public var snapshot: SessionState { published.withLockedValue { $0 } }

    /// Sends `make`'s input and waits for the owner's answer; `closed` when the pane was closed.
    func ask<R: Sendable>(_ closed: R, _ make: (CheckedContinuation<R, Never>) -> PaneInput) async -> R {
        await withCheckedContinuation { k in
            if case .terminated = inputs.yield(make(k)) { k.resume(returning: closed) }
        }
    }

    /// Reads the stream's top playlist, chooses the rung and gives the player its virtual playlist; returns when that is done
    /// or has failed.
    public func open() async { await ask(()) { .open($0) } }

    /// Starts opening without waiting for it (the screen's thread): the pane's own loop carries it out.
    public func startOpening() { inputs.yield(.open(nil)) }

    /// Gives up waiting for `open`: the pane fails with `why` and what it still waited for, and `open` returns (a run's
    /// `--duration` that ends before the stream opened).
    public func stopOpening(_ why: String) { inputs.yield(.stopOpening(why)) }

    /// Reads the player's properties now and applies them; returns the state right after.
    @discardableResult
    public func sample() async -> SessionState { await ask(snapshot) { .sample($0) } }

    /// Asks for a sample without waiting for it (the screen's thread).
    public func requestSample() { inputs.yield(.sample(nil)) }

    /// Carries out an action on this pane, after every input sent before it.
    /// `moment`: a replayed command's recorded playhead (`ScriptedAction.playhead`), which the decision reads in place of the
    /// player's position now (docs/REPLAY.md).
    public func perform(_ action: Action, at moment: StreamPoint? = nil) { inputs.yield(.perform(action, at: moment)) }

    /// A line in the message log (and the monitor's `log` events at their level).
    public func say(_ level: LogLevel, _ text: String) { inputs.yield(.say(level, text)) }

    /// The wall-clock moment at the playhead now, whether it advances and whether the stream carries PDT.
    public func clock() async -> PaneClock {
        await ask(PaneClock(pdt: nil, playing: false, hasPDT: nil, at: .now, window: nil)) { .clock($0) }
    }

    /// Plays at `speed` (the sync controller's correction); audio keeps its pitch (mpv's scaletempo).
    public func setSpeed(_ speed: Double) { inputs.yield(.speed(speed)) }

    /// Holds the picture for `seconds` (paused), so the other pane reaches the same moment.
    public func hold(seconds: Double) { inputs.yield(.hold(seconds)) }

    /// Waits (paused) while another pane rebuffers (`on`), or plays on (unless the user paused).
    public func wait(_ on: Bool) { inputs.yield(.syncWait(on)) }

    /// Reloads at the segment holding wall-clock moment `date`, a moment computed from readings taken at `readAt`; the seek
    /// inside the fresh cache goes to that moment carried on by the time since (the other panes play on meanwhile). False
    /// when no segment holds it.
    public func realign(to date: DateTime, readAt: ContinuousClock.Instant) async -> Bool {
        await ask(false) { .realign(date, readAt, $0) }
    }

    /// Stops every task the pane started and lets the owner finish what was sent before; then closes the player and the
    /// Loader. Nothing can reach the player after it closed: only the owner calls it, and the owner has ended.
    public func close() async {
        await settle()
        mpv.close()
        await loader.shutdown()
    }

    /// Stops every task the pane started and waits for the owner to finish what was sent before: from then on the pane
    /// reports nothing more, and `snapshot` is the state its last report was made from (`close` still has to follow).
    public func settle() async {
        tasks.cancelAll()
        inputs.finish()
        await loop.value
    }
}
