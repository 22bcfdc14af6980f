import HLS
import LoaderEvents
import MediaFormats
import NIOConcurrencyHelpers

/// Closed captions the player does not decode (docs/SUBTITLES.md, "Closed captions"): FFmpeg 5.1 reads CEA-608 CC1 only,
/// so for a stream that names another channel (CC2–CC4, a CEA-708 service) the Loader reads each segment's caption data
/// from the body it gives the player, and the Session decodes the channel chosen.
extension LoaderServer {
    /// Whether the stream given to the player may carry captions the player does not decode: it names such a channel, or a
    /// video variant declares no captions or NONE (RFC 8216bis §4.4.6.2: absent, the video may carry some; NONE is checked
    /// against what it carries). A ladder that declares CC1 only is left to the player.
    var readsCaptions: Bool {
        table.withLockedValue { t in
            guard let m = t.presented?.m else { return false }
            let other = m.renditions.contains { r in
                r.type == "CLOSED-CAPTIONS" && r.instreamID.flatMap(CaptionChannel.init(instreamID:)).map { $0 != .cea608(1) } == true
            }
            return other || m.variants.contains { $0.resolution != nil && ($0.closedCaptions ?? "NONE") == "NONE" }
        }
    }

    /// Tells the session the caption data of segment `msn`'s body as it went to the player (none when it carries none).
    func emitCaptions(_ res: Resource, msn: Int, _ body: [UInt8]) {
        guard !body.isEmpty else { return }
        let tracks = initTracks.withLockedValue { t in res.initURL.flatMap { t[$0] } ?? t.values.first } ?? []
        let samples = CaptionExtraction.samples(segment: body, tracks: tracks)
        guard !samples.isEmpty else { return }
        emit(.captionData(CaptionDataEvent(rung: res.rung, msn: msn, samples: samples)))
    }

    /// A segment given to the player as its parts arrive (LL-HLS, `GrowingBody`): the caption data of what went out so far,
    /// after each part, so that a caption early in the segment is there before the playhead at the live edge reaches it
    /// (the Session keeps each picture once).
    func emitCaptions(_ timing: Resource, rung: Int?, msn: Int, soFar writer: ResponseWriter) {
        guard let body = writer.keptSoFar() else { return }
        var res = timing
        res.rung = rung
        emitCaptions(res, msn: msn, body)
    }
}
