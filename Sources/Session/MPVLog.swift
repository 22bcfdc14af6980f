/// What hlstui makes of one of mpv's log lines: the level it deserves and the text, or nil to drop it; pure.
public struct MPVLogFilter: Sendable {
    var last: String?
    var repeats = 0
    /// Decoder lines demoted while FFmpeg probed SAMPLE-AES samples it had not decrypted yet.
    public private(set) var probeComplaints = 0
    public init() {}

    /// Classifies a line (`spliced`: the Loader joins segments of different rungs; `probingSampleAES`: playback has not started on a
    /// SAMPLE-AES stream) and folds immediate repeats. Returns the lines to log now: a note on the previous line's repeats, then this line unless it repeats.
    /// `anyPlayer`: the line is FFmpeg's while several players share the process, and FFmpeg speaks through the first of them
    /// only, so it may be another pane's: said as such, and never this pane's problem (docs/MESSAGES.md).
    public mutating func take(
        level: String, prefix: String, text: String, spliced: Bool, probingSampleAES: Bool = false, anyPlayer: Bool = false
    ) -> [(
        level: LogLevel, text: String
    )] {
        // FFmpeg 5.1's HLS demuxer probes codec parameters on the samples as they are and decrypts SAMPLE-AES only per packet
        // afterwards: the decoders' complaints about the still-encrypted probe are expected, and said once.
        let probeLine =
            prefix == "ffmpeg/audio" || prefix == "ffmpeg/video"
            || (prefix == "ffmpeg/demuxer"
                && (text.contains("Could not find codec parameters")
                    || text.contains("Consider increasing the value for the 'analyzeduration'")))
        if probingSampleAES && probeLine {
            probeComplaints += 1
            guard probeComplaints == 1 else { return [] }
            return [
                (
                    .info,
                    "mpv \(prefix): \(text) — FFmpeg probes SAMPLE-AES samples before it decrypts them: decoder complaints until playback starts are expected (folded)"
                )
            ]
        }
        let line = "mpv \(prefix): \(text)"
        if line == last {
            repeats += 1
            return []
        }
        var out: [(LogLevel, String)] = []
        if repeats > 0, let l = last { out.append((.info, "(\(l.prefix(60))… repeated \(repeats) more times)")) }
        last = line
        repeats = 0
        guard var level = MPVLogFilter.level(level, prefix: prefix, text: text, spliced: spliced) else { return out }
        var shown = line
        if anyPlayer {
            if [.fatal, .error, .warn].contains(level) { level = .info }
            return out + [(level, shown + " — from one of the panes: FFmpeg speaks through the first player of the process only")]
        }
        if spliced && text.contains("Packet corrupt") {
            shown += " — TS continuity counters jump where two rungs' segments meet (a splice): expected"
        }
        if text.contains("Edit lists are not correctly supported") {
            shown += " — FFmpeg's note on fMP4 edit lists; playback is not affected"
        }
        out.append((level, shown))
        return out
    }

    /// What the H.264/HEVC decoders say when a picture's references were never decoded — after a seek, a splice, a
    /// timestamp reset or an open GOP's start — and which they mend by the next key frame: the message log's, at info, never
    /// the status line's problem (docs/MESSAGES.md).
    static let referenceChatter = [
        "co located POCs unavailable", "mmco: unref short failure", "reference picture missing during reorder",
        "Missing reference picture", "Frame num gap", "number of reference frames", "Could not find ref with POC",
    ]

    /// The level a line deserves: known harmless messages are demoted so they never stand in the status line as the problem.
    static func level(_ level: String, prefix: String, text: String, spliced: Bool) -> LogLevel? {
        if prefix == "ffmpeg/video", referenceChatter.contains(where: text.contains) { return .info }
        // A subtitle rendition FFmpeg's HLS demuxer passes over (hlstui gives live streams none: docs/MESSAGES.md).
        if text.contains("Can't support the subtitle") { return .info }
        // The null audio output complains about pause toggles it cannot have (reload+seek pauses around the switch).
        if prefix == "ao/null" && text.contains("illegal state") { return nil }
        if spliced && text.contains("Packet corrupt") { return .info }
        if text.contains("Edit lists are not correctly supported") { return .info }
        if text.contains("maybe the m3u8 list sequence have been wraped") { return .debug }
        return LogLevel(mpv: level)
    }
}
