import LoaderCore
import LoaderEvents
import Foundation
import HLS
import HLSReport
import JSONValue
import Loader
import NIOConcurrencyHelpers
import Recording
import Session

/// `hlstui monitor`: the same session as the dashboard, no screen, one JSON object per line.
public struct MonitorRequest: Sendable {
    public var panes: [PaneConfig]
    public var duration: Double?
    public var commands: [ScriptedAction] = []
    /// Samples per second of `player` events.
    public var rate = 4.0
    /// With two streams: start them on a common PDT and keep them there (`sync` events).
    public var sync = true
    /// `--latency`: every pane follows the wall clock less this (docs/SYNC.md), one pane or more.
    public var latency: LatencySync.Target?
    /// Also write info-level log lines (reloads, GAP crossings, switches in words).
    public var verbose = false
    /// `--record FILE`: the whole session into one SQLite file (docs/RECORDING.md).
    public var record: RecordingRequest?
    /// Said once at the start, as `diagnostic` events (a replay's limits).
    public var notes: [String] = []
    /// A replay's progress: its commands are cued by it, and what diverged is said as `divergence` events.
    public var replay: ReplayProgress?
    /// Gets every report and tick too (`--metrics`, `fleet`).
    public var observer: (any SessionObserver)?
    public init(panes: [PaneConfig], duration: Double?) {
        self.panes = panes
        self.duration = duration
    }
}

/// Formats session facts as JSON Lines objects (pure apart from the wall clock passed in).
public enum MonitorJSON {
    /// The common head of every line: event, t (monotonic seconds), wall (ISO 8601, ms).
    static func line(_ event: String, t: Double, wall: Date, _ fields: [(String, JSONValue)]) -> String {
        let w = DateTime(seconds: wall.timeIntervalSince1970).iso8601Milliseconds
        return JSONValue.object([("event", .string(event)), ("t", .double((t * 1000).rounded() / 1000)), ("wall", .string(w))] + fields)
            .text
    }

    /// Milliseconds kept to the microsecond: more digits would only be noise.
    static func rounded(_ fields: [(String, JSONValue)]) -> [(String, JSONValue)] {
        fields.map { k, v in
            if case .double(let d) = v, k.hasSuffix("Ms") || k == "requested" { return (k, .double((d * 1000).rounded() / 1000)) }
            return (k, v)
        }
    }

    /// A `player` sample of one pane.
    /// A `sync` event: the offset between the panes' playheads on the wall clock, the lock and the speed corrections.
    static func sync(_ y: SyncSnapshot) -> [(String, JSONValue)] {
        var state = y.state.label
        if case .off = y.state { state = "off" }
        let ms = { (x: Double?) in JSONValue.double(x.map { ($0 * 10_000).rounded() / 10 }) }
        var fields: [(String, JSONValue)] = [
            ("offsetMs", ms(y.offset)), ("locked", .bool(y.state == .locked)), ("state", .string(state)),
            ("speeds", .array(y.speeds.map { .double(($0 * 100_000).rounded() / 100_000) })),
            ("pdts", .array(y.pdts.map { .string($0?.iso8601Milliseconds) })),
            ("reference", .int(y.reference)), ("offsetsMs", .array(y.offsets.map(ms))),
        ]
        if y.followsClock {
            // `--latency`: the reference is the wall clock; each pane's error against it (docs/SYNC.md).
            fields += [("latency", .double(y.latency)), ("errorsMs", .array(y.offsets.map(ms)))]
        }
        if let a = y.actions.last { fields.append(("action", .string(a.description))) }
        if y.actions.count > 1 { fields.append(("actions", .array(y.actions.map { .string($0.description) }))) }
        if case .off(let why) = y.state { fields.append(("reason", .string(why))) }
        if case .waitingFor(let panes) = y.state { fields.append(("waitingFor", .array(panes.map { .int($0) }))) }
        if !y.reasons.isEmpty { fields.append(("reasons", .array(y.reasons.map { .string($0) }))) }
        return fields
    }

    static func player(_ s: SessionState, pane: Int) -> [(String, JSONValue)] {
        let p = s.sample
        return [
            ("pane", .int(pane)), ("state", .string(s.state.rawValue)), ("timePos", .double(p.timePos)), ("audioPts", .double(p.audioPts)),
            ("playheadPDT", .string(s.playheadPDT?.iso8601Milliseconds)), ("rung", .int(s.playingRung)), ("width", .int(p.width)),
            ("height", .int(p.height)),
            ("bufferedRanges", .array(p.seekableRanges.map { .array([.double($0.start), .double($0.end)]) })),
            ("cacheEnd", .double(p.cacheEnd)),
            (
                "bufferedWindow",
                .array(
                    s.bufferedRanges.map {
                        .array([.double(($0.start * 1000).rounded() / 1000), .double(($0.end * 1000).rounded() / 1000)])
                    })
            ), ("underrun", .bool(p.underrun)),
            ("droppedFrames", .int(p.droppedFrames)), ("position", .double(s.position)), ("liveLatency", .double(s.liveLatency)),
            ("edgeDistance", .double(s.catchUp == nil ? nil : s.edgeDistance)),
            ("pdtLatency", .double(s.pdtLatency.map { ($0 * 1000).rounded() / 1000 })),
            // The same to the microsecond, of the frame when it is shown and of the audio heard (docs/SYNC.md, measuring).
            ("frameLatency", .double(s.frameShownAt == nil ? nil : s.pdtLatency.map { ($0 * 1e6).rounded() / 1e6 })),
            ("audioLatency", .double(s.audioLatency.map { ($0 * 1e6).rounded() / 1e6 })),
            ("bufferedAhead", .double(s.bufferedAhead.map { ($0 * 1000).rounded() / 1000 })),
            ("paused", .bool(p.paused)), ("speed", .double(p.speed)),
            // When the player's properties were read (the event's own time is when it was written).
            ("readAt", .string(p.wall?.iso8601Milliseconds)), ("skips", .int(s.skipCount)), ("picture", .string(s.picture.label)),
            // The audio rendition given to the player, and the language of the track mpv plays (docs/RENDITIONS.md).
            ("audioRendition", .string(s.playingAudio?.name)), ("audioTrackLanguage", .string(p.audioLanguage)),
            ("audioChannels", .int(p.audioChannels)),
            // An interstitial plays in place of the primary (the fields above are the primary's, held at its moment): which,
            // and how far into its assets (docs/EVENTS.md).
            ("interstitial", .string(s.interstitials.label)),
            ("interstitialElapsed", .double(s.interstitials.run.map { ($0.elapsed * 1000).rounded() / 1000 })),
        ]
    }

    /// The `ladder` event.
    static func ladder(_ s: SessionState, pane: Int) -> [(String, JSONValue)] {
        [
            ("pane", .int(pane)), ("url", .string(s.url)), ("single", .bool(s.ladder.single)), ("file", .bool(s.ladder.file)),
            ("variants", .array(s.ladder.rungs.map { InspectJSON.variant($0.variant, index: $0.index) })),
            (
                "caps",
                .object([
                    ("maxHeight", .int(s.caps.maxHeight)), ("maxBitrate", .int(s.caps.maxBitrate)),
                    ("serverMaxBitrate", .int(s.caps.serverMaxBitrate)),
                ])
            ),
        ]
    }

    /// The summary in the `end` event.
    static func summary(_ s: SessionState, pane: Int) -> JSONValue {
        let totals = s.requestTotals
        return .object([
            ("pane", .int(pane)), ("state", .string(s.state.rawValue)), ("started", .bool(s.started)), ("stalls", .int(s.stallCount)),
            ("skips", .int(s.skipCount)), ("skippedSeconds", .double((s.skippedSeconds * 1000).rounded() / 1000)),
            ("stalledSeconds", .double((s.stalledSeconds * 1000).rounded() / 1000)), ("requests", .int(totals.count)),
            ("segments", .int(totals.segments)), ("bytes", .int(totals.bytes)), ("keys", .int(totals.keys)),
            ("switches", .int(totals.switches)), ("droppedFrames", .int(s.sample.droppedFrames)),
            ("throughputBps", .double(s.throughput.estimate)),
            ("error", .string(s.error)),
        ])
    }

    /// The line a pane's report makes, if any (`verbose`: info-level log lines too): the event table of docs/MONITOR.md.
    public static func event(for report: PaneReport, verbose: Bool) -> (String, [(String, JSONValue)])? {
        let i = report.pane
        switch report.output {
        case .loader(let e): return event(for: e, pane: i)
        case .fact(let f): return event(for: f, report: report)
        case .ladder: return ("ladder", ladder(report.state, pane: i))
        case .switched(let s):
            return (
                "variant",
                [
                    ("pane", .int(i)), ("from", .int(s.from)), ("to", .int(s.to)), ("reason", .string(s.reason.rawValue)),
                    ("mechanism", .string(s.mechanism.rawValue)), ("atMsn", .int(s.atMSN)), ("detail", .string(s.detail)),
                ]
            )
        case .log(let level, let text) where level.isWarning:
            return ("log", [("pane", .int(i)), ("level", .string(level.rawValue)), ("text", .string(text))])
        case .log(let level, let text) where verbose:
            return ("log", [("pane", .int(i)), ("level", .string(level.rawValue)), ("text", .string(text))])
        case .log: return nil
        case .sampled: return ("player", player(report.state, pane: i) + [("trigger", .string("change"))])
        }
    }

    /// The line a Loader event makes, if any.
    static func event(for e: LoaderEvent, pane i: Int) -> (String, [(String, JSONValue)])? {
        switch e {
        case .request(let r):
            return ("request", [("pane", .int(i))] + rounded(r.json.objectFields.filter { $0.0 != "start" }))
        case .key(let k): return ("key", [("pane", .int(i))] + rounded(k.json.objectFields))
        case .diagnostic(let d): return ("diagnostic", [("pane", .int(i)), ("message", .string(d))])
        case .firstPTS, .mediaStart, .gapFilled, .segmentStarted: return nil
        case .reload(let r): return ("reload", [("pane", .int(i))] + rounded(r.json.objectFields))
        case .resume(let r): return ("resume", [("pane", .int(i))] + rounded(r.json.objectFields))
        case .playerCMCD(let c): return ("playerCMCD", [("pane", .int(i))] + c.json.objectFields)
        case .playlist(let p):
            return ("playlist", [("pane", .int(i))] + LoaderEvent.playlist(p).json.objectFields.dropFirst())
        case .failover(let msn, let failed, let by, let cause):
            return (
                "failover",
                [
                    ("pane", .int(i)), ("msn", .int(msn)), ("failedRung", .int(failed)), ("by", .int(by)),
                    ("cause", .string(cause)),
                ]
            )
        case .recovered(let rung, let down, let cause):
            return (
                "recovered",
                [("pane", .int(i)), ("rung", .int(rung)), ("downSeconds", .double(down)), ("cause", .string(cause))]
            )
        case .timedMetadata, .captionData: return nil
        }
    }

    /// The line a Session fact makes, if any. Long as a table is: one case per fact, each the shape of its event.
    static func event(for fact: SessionFact, report: PaneReport) -> (String, [(String, JSONValue)])? {
        let i = report.pane
        switch fact {
        case .skipped(let k):
            return (
                "skip",
                [
                    ("pane", .int(i)), ("from", .double(k.fromTime)), ("to", .double(k.toTime)), ("fromMsn", .int(k.from.msn)),
                    ("toMsn", .int(k.to.msn)), ("seconds", .double((k.seconds * 1000).rounded() / 1000)),
                    ("cause", .string(k.cause)),
                ]
            )
        case .stallStarted(let t):
            return (
                "stall",
                [
                    ("pane", .int(i)), ("start", .double(t)), ("end", .null),
                    ("cause", .string(report.state.currentStall?.cause)),
                ]
            )
        case .stallEnded(let s):
            return (
                "stall",
                [("pane", .int(i)), ("start", .double(s.start)), ("end", .double(s.end)), ("cause", .string(s.cause))]
            )
        case .gap(let rung, let msn, let pdt, let duration, let action):
            return (
                "gap",
                [
                    ("pane", .int(i)), ("rung", .int(rung)), ("msn", .int(msn)), ("pdt", .string(pdt?.iso8601Milliseconds)),
                    ("duration", .double(duration)), ("action", .string(action)),
                ]
            )
        case .failed(let message, let cause):
            return ("error", [("pane", .int(i)), ("message", .string(message)), ("cause", .string(cause))])
        case .ended: return ("ended", [("pane", .int(i))])
        // Reported as a switch (`PaneOwner.report`).
        case .servedFrom: return nil
        case .firstFrame(let at): return ("firstFrame", [("pane", .int(i)), ("at", .double((at * 1000).rounded() / 1000))])
        case .audio(let a):
            return (
                "rendition",
                [
                    ("pane", .int(i)), ("type", .string("audio")), ("from", .string(a.from?.name)), ("to", .string(a.to.name)),
                    ("language", .string(a.to.language)), ("channels", .string(a.to.channels)), ("group", .string(a.to.groupID)),
                    ("reason", .string(a.reason.rawValue)), ("honoured", .bool(a.honoured)),
                    ("mechanism", .string(a.mechanism?.rawValue)), ("atMsn", .int(a.atMSN)),
                ]
            )
        case .subtitleRendition(let c):
            return (
                "rendition",
                [
                    ("pane", .int(i)), ("type", .string("subtitles")), ("from", .string(c.from?.name)), ("to", .string(c.to?.name)),
                    ("language", .string(c.to?.language)), ("forced", .bool(c.to?.forced ?? false)), ("group", .string(c.to?.groupID)),
                    ("reason", .string(c.reason.rawValue)), ("honoured", .bool(c.honoured)),
                ]
            )
        case .metadata(let m, let at):
            // Timed metadata the playhead reached: at its time on the player's clock, with what it says (docs/EVENTS.md).
            return ("metadata", [("pane", .int(i))] + m.json.objectFields + [("at", .double((at * 1000).rounded() / 1000))])
        case .subtitle(let c):
            // The cue shown at the playhead: `at` is the playhead when it was seen, so `lateMs` measures how far the screen was
            // from the cue's own time (docs/SUBTITLES.md).
            let ms = { (v: Double?) in JSONValue.double(v.map { ($0 * 1000).rounded() / 1000 }) }
            return (
                "subtitle",
                [
                    ("pane", .int(i)), ("text", .string(c.lines.isEmpty ? nil : c.lines.joined(separator: "\n"))), ("start", ms(c.start)),
                    ("end", ms(c.end)), ("at", ms(c.at)), ("lateMs", .double(c.start.map { ((c.at - $0) * 1000).rounded() })),
                    ("rendition", .string(c.rendition.name)), ("language", .string(c.rendition.language)),
                ]
            )
        case .pathway(let c, let detail):
            return (
                "pathway",
                [
                    ("pane", .int(i)), ("from", .string(c.from)), ("to", .string(c.to)), ("cause", .string(c.cause.rawValue)),
                    ("detail", .string(detail)),
                ]
            )
        case .steering(let outcome, let priority, let next):
            return (
                "steering",
                [
                    ("pane", .int(i)), ("outcome", .string(outcome)), ("priority", .array(priority.map { .string($0) })),
                    ("pathway", .string(report.state.pathways?.current)),
                    ("nextIn", .double(next.map { (($0 - report.t) * 1000).rounded() / 1000 })),
                ]
            )
        case .violation(let rung, let rendition, let f):
            return (
                "violation",
                [
                    ("pane", .int(i)), ("rung", .int(rung)), ("rendition", .string(rendition)), ("rule", .string(f.rule.rawValue)),
                    ("severity", .string(f.severity == .error ? "must" : "should")), ("section", .string(f.section)),
                    ("msn", .int(f.msn)), ("message", .string(f.message)),
                ]
            )
        case .cue(let f):
            let (phase, b, seconds): (String, CueBreak, Double?) =
                switch f {
                case .entered(let b): ("enter", b, nil)
                case .left(let b, let seconds): ("leave", b, seconds)
                }
            let source: String
            switch b.source {
            case .cueOut: source = "cue-out"
            case .dateRange: source = "daterange"
            }
            return (
                "cue",
                [
                    ("pane", .int(i)), ("phase", .string(phase)), ("id", .string(b.key)), ("source", .string(source)),
                    ("break", .bool(b.isBreak)), ("class", .string(b.classID)), ("startMsn", .int(b.startMSN)),
                    ("start", .double((b.start * 1000).rounded() / 1000)),
                    ("startDate", .string(b.startDate?.iso8601Milliseconds)), ("planned", .double(b.planned)),
                    ("actual", .double(b.actual)), ("closed", .bool(b.closed)),
                    ("seconds", .double(seconds.map { ($0 * 1000).rounded() / 1000 })),
                    ("position", .double(report.state.position.map { ($0 * 1000).rounded() / 1000 })),
                    ("playheadPDT", .string(report.state.playheadPDT?.iso8601Milliseconds)),
                ]
            )
        case .picture(let f):
            let (state, key, seconds): (String, String, Double) =
                switch f {
                case .frozen(let since): ("frozen", "since", since)
                case .moving(let after): ("moving", "after", after)
                case .black(let since): ("black", "since", since)
                case .shown(let after): ("shown", "after", after)
                }
            return ("picture", [("pane", .int(i)), ("state", .string(state)), (key, .double((seconds * 1000).rounded() / 1000))])
        case .interstitial(let f): return ("interstitial", [("pane", .int(i))] + interstitialFields(f, report: report))
        }
    }

    /// An `interstitial` event's fields (docs/MONITOR.md): its `phase` and what it says, with the primary's playhead.
    static func interstitialFields(_ f: InterstitialFact, report: PaneReport) -> [(String, JSONValue)] {
        let ms = { (v: Double) in JSONValue.double((v * 1000).rounded() / 1000) }
        let fields: [(String, JSONValue)] =
            switch f {
            case .began(let id, let when): [("phase", .string("begin")), ("id", .string(id)), ("when", .string(when))]
            case .listed(let id, let assets, let seconds):
                [("phase", .string("list")), ("id", .string(id)), ("assets", .int(assets)), ("seconds", ms(seconds))]
            case .asset(let id, let index, let count, let uri):
                [("phase", .string("asset")), ("id", .string(id)), ("index", .int(index)), ("count", .int(count)), ("uri", .string(uri))]
            case .assetFailed(let id, let index, let uri, let why):
                [
                    ("phase", .string("assetFailed")), ("id", .string(id)), ("index", .int(index)), ("uri", .string(uri)),
                    ("cause", .string(why)),
                ]
            case .assetEnded(let id, let index, let seconds):
                [("phase", .string("assetEnded")), ("id", .string(id)), ("index", .int(index)), ("seconds", ms(seconds))]
            case .resumed(let id, let played, let at):
                [("phase", .string("resume")), ("id", .string(id)), ("played", ms(played)), ("at", .string(at))]
            }
        return fields + [("playheadPDT", .string(report.state.playheadPDT?.iso8601Milliseconds))]
    }
}

/// Runs panes without a screen and writes their session as JSON Lines.
public enum MonitorRunner {
    /// Runs until `duration`, a `quit` command, or every pane has ended or failed; returns the exit status (1 when playback failed).
    public static func run(_ request: MonitorRequest, write: @escaping @Sendable (String) -> Void) async -> Int32 {
        await session(request, write: write).status
    }

    /// What a session came to: its exit status and each pane's last state (nil: it could not start).
    public struct Outcome: Sendable {
        public var status: Int32
        public var states: [SessionState]
    }

    /// Runs as `run` does, until the task is cancelled too; `write` nil: no JSON lines are made at all (a fleet's sessions).
    public static func session(_ request: MonitorRequest, write: (@Sendable (String) -> Void)?) async -> Outcome {
        let started = ContinuousClock.now
        let out = MonitorOutput(started: started, write: write)
        var configs = request.panes
        let recorder: Recorder?
        do {
            recorder = try SessionRecording.start(request.record, command: "monitor", panes: &configs) { why in
                out.emit("error", [("message", .string(why)), ("cause", .string("record"))])
            }
        } catch {
            out.emit("error", [("message", .string(error.description)), ("cause", .string("record"))])
            return Outcome(status: 2, states: [])
        }
        defer { recorder?.close() }
        out.recorder = recorder
        for n in request.notes { out.emit("diagnostic", [("message", .string(n))]) }
        var panes: [Pane] = []
        for (i, config) in configs.enumerated() {
            do {
                let pane = try Pane(index: i, config: config, started: started) { [observer = request.observer] report in
                    observer?.report(report)
                    guard out.wanted else { return }
                    if let (event, fields) = MonitorJSON.event(for: report, verbose: request.verbose) { out.emit(event, fields) }
                }
                panes.append(pane)
            } catch {
                out.emit("error", [("pane", .int(i)), ("message", .string("cannot start: \(error)")), ("cause", .string("setup"))])
                for p in panes { await p.close() }
                return Outcome(status: 2, states: [])
            }
        }
        await open(panes, started: started, duration: request.duration)
        let sync =
            request.latency.map { SyncRunner(panes: panes, started: started, latency: $0) }
            ?? (panes.count >= 2 && request.sync ? SyncRunner(panes: panes, started: started) : nil)
        sync?.start()
        var pending = request.commands[...]
        // When a replay made as many media requests as its recording (ReplayProgress.mayEnd).
        var caughtUp: Double?
        let period = 1 / max(0.5, min(50, request.rate))
        var tick = 0
        loop: while true {
            tick += 1
            let next = started + .milliseconds(Int(Double(tick) * period * 1000))
            try? await Task.sleep(until: next, clock: .continuous)
            let t = Pane.seconds(ContinuousClock.now - started)
            for d in request.replay?.takeDivergences() ?? [] { out.emit("divergence", [("message", .string(d))]) }
            if perform(&pending, t: t, panes: panes, sync: sync, out: out, recorder: recorder) { break loop }
            // Every pane is sampled in the same tick.
            var states: [SessionState] = []
            for p in panes { states.append(await p.sample()) }
            let snapshot = sync?.snapshot
            request.observer?.tick(states, sync: snapshot)
            // One tick's lines share one stamp.
            if out.wanted {
                var lines = states.enumerated().map { ("player", MonitorJSON.player($1, pane: $0)) }
                if let y = snapshot { lines.append(("sync", MonitorJSON.sync(y))) }
                out.emit(lines)
            }
            if let d = request.duration, t >= d, request.replay?.mayEnd(t: t, length: d, caughtUp: &caughtUp) ?? true { break }
            if Task.isCancelled { break }
            if states.allSatisfy({ $0.state == .ended || $0.state == .error }) { break }
        }
        // The sync loop ends first (its last word to the panes: normal speed), then the panes settle: the summary then counts
        // what the lines before it said, and no pane's report comes after it
        // (a request ending as the run stops was written after a summary that had not counted it).
        await sync?.stopped()
        for p in panes { await p.settle() }
        let states = panes.map(\.snapshot)
        if out.wanted { out.emit("end", [("summary", .array(states.enumerated().map { MonitorJSON.summary($1, pane: $0) }))]) }
        request.observer?.finished(states)
        for p in panes { await p.close() }
        return Outcome(status: states.allSatisfy { $0.error == nil && $0.started } ? 0 : 1, states: states)
    }

    /// Opens every pane, bounded by the run's length too: a stream that never opens (an origin that dribbles, a playlist
    /// that never ends) fails at `--duration` naming what it waited for.
    static func open(_ panes: [Pane], started: ContinuousClock.Instant, duration: Double?) async {
        await withTaskGroup(of: Bool.self) { g in
            for p in panes {
                g.addTask {
                    await p.open(); return true
                }
            }
            if let d = duration {
                g.addTask {
                    try? await Task.sleep(until: started + .milliseconds(Int(d * 1000)), clock: .continuous)
                    return false
                }
            }
            var open = 0
            for await done in g {
                if done {
                    open += 1
                    if open == panes.count { g.cancelAll() }
                } else if open < panes.count {
                    for p in panes { p.stopOpening("the run's --duration of \(fixed(duration ?? 0, 1)) s ended") }
                }
            }
        }
    }

    /// The commands due at run time `t` performed, each written and recorded, a late one said as a divergence; true when
    /// one of them is `quit`.
    static func perform(
        _ pending: inout ArraySlice<ScriptedAction>, t: Double, panes: [Pane], sync: SyncRunner?, out: MonitorOutput, recorder: Recorder?
    ) -> Bool {
        while let c = pending.first {
            let here = panes[safe: c.pane ?? 0]?.snapshot.playhead
            let cue = c.cue(t: t, playhead: here)
            if cue == .notYet { break }
            pending = pending.dropFirst()
            if cue == .late { out.emit("divergence", [("message", .string(ReplayProgress.late(c, playhead: here)))]) }
            out.emit("command", [("line", .int(c.line)), ("action", .string("\(c.action)"))])
            recorder?.input(t: t, pane: c.pane, command: c.action.words(), playhead: here.map { ($0.msn, $0.offset) })
            if c.action == .quit { return true }
            if c.action == .toggleSync { sync?.toggle(); continue }
            if case .syncReference(let p?) = c.action { sync?.pinReference(p); continue }
            for p in panes where c.pane == nil || c.pane == p.index {
                // The playhead recorded with it (`here`, in its pane) is the one it is decided at.
                let seen = p.index == (c.pane ?? 0) ? here : p.snapshot.playhead
                p.perform(c.action, at: cue == .due ? c.moment(for: p.index) ?? seen : nil)
            }
        }
        return false
    }
}

/// The one writer of monitor lines. Each line (a tick's lines together) is stamped when it is written, under one lock, so `t`
/// never goes back in the stream even when a pane's report and a tick are written at the same moment from two threads.
final class MonitorOutput: Sendable {
    private let started: ContinuousClock.Instant
    private let write: (@Sendable (String) -> Void)?
    /// Held while a line is stamped and written: the lines go out in the order of their stamps.
    private let writing = NIOLockedValueBox<Recorder?>(nil)
    /// Gets every line too, when the session is recorded (set before the panes start).
    var recorder: Recorder? {
        get { writing.withLockedValue { $0 } }
        set { writing.withLockedValue { $0 = newValue } }
    }
    /// Whether anybody reads the lines (nil `write` and no recording: none are made).
    var wanted: Bool { write != nil || recorder != nil }

    init(started: ContinuousClock.Instant, write: (@Sendable (String) -> Void)?) {
        self.started = started
        self.write = write
    }

    func emit(_ event: String, _ fields: [(String, JSONValue)]) { emit([(event, fields)]) }

    func emit(_ lines: [(String, [(String, JSONValue)])]) {
        writing.withLockedValue { recorder in
            let t = Pane.seconds(ContinuousClock.now - started)
            let wall = Date()
            for (event, fields) in lines {
                let line = MonitorJSON.line(event, t: t, wall: wall, fields)
                write?(line)
                recorder?.event(t: t, name: event, pane: fields.first { $0.0 == "pane" }?.1.intValue, json: line)
            }
        }
    }
}
