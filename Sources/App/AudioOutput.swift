import Foundation

/// Which of mpv's audio outputs a pane uses, so a machine without sound (a server over SSH, a container) plays silently
/// instead of making every audio library complain on the terminal (DECISIONS.md, "Audio output").
public struct AudioOutputChoice: Sendable, Equatable {
    /// mpv's `ao` value.
    public var ao: String
    /// Said once in the message log; nil when there is nothing to say.
    public var note: String?
    /// True when real devices are tried first and the null output is only the fallback.
    public var probes: Bool

    /// The device outputs tried in order, before the null output; JACK only when asked (`--ao jack`).
    public static let probeOrder = "pipewire,pulse,alsa"

    /// What the machine offers for sound.
    public struct Facts: Sendable, Equatable {
        public var soundCards: Bool
        public var soundServer: Bool
        public init(soundCards: Bool, soundServer: Bool) {
            self.soundCards = soundCards
            self.soundServer = soundServer
        }

        /// Looks: ALSA playback devices in /dev/snd; a PulseAudio or PipeWire socket in the runtime directory or $PULSE_SERVER.
        public static func read(environment: [String: String] = ProcessInfo.processInfo.environment) -> Facts {
            let fm = FileManager.default
            let cards = ((try? fm.contentsOfDirectory(atPath: "/dev/snd")) ?? []).contains { $0.hasPrefix("pcm") && $0.hasSuffix("p") }
            var server = environment["PULSE_SERVER"].map { !$0.isEmpty } ?? false
            var dirs = ["/var/run/pulse"]
            if let r = environment["XDG_RUNTIME_DIR"], !r.isEmpty { dirs.append(r) }
            for d in dirs {
                for name in ["pulse/native", "native", "pipewire-0"] where fm.fileExists(atPath: d + "/" + name) { server = true }
            }
            return Facts(soundCards: cards, soundServer: server)
        }
    }

    /// The choice for a requested output (`--ao`), `--mute`, and what the machine has; pure.
    public static func choose(requested: String?, mute: Bool, facts: Facts) -> AudioOutputChoice {
        if let r = requested { return AudioOutputChoice(ao: r, note: nil, probes: false) }
        if mute { return AudioOutputChoice(ao: "null", note: "audio: muted (--mute): no audio device opened", probes: false) }
        guard facts.soundCards || facts.soundServer else {
            return AudioOutputChoice(
                ao: "null", note: "audio: no output device (no sound card, no PulseAudio or PipeWire): silent", probes: false)
        }
        return AudioOutputChoice(ao: probeOrder + ",null", note: nil, probes: true)
    }

    /// What to say once playback started on `current` (mpv's `current-ao`), when the devices were tried and none answered.
    public func fallbackNote(current: String?) -> String? {
        guard probes, current == "null" else { return nil }
        return "audio: no output device answered (\(AudioOutputChoice.probeOrder.replacingOccurrences(of: ",", with: ", "))): silent"
    }
}
