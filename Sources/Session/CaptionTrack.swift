import LoaderEvents
import MediaFormats

/// Closed captions hlstui decodes itself (docs/SUBTITLES.md, "Closed captions"): the channels the player does not decode
/// (CEA-608 CC2–CC4, CEA-708 services). The caption data of the segments the Loader gave the player, by segment, and one
/// decoder for the channel chosen, fed picture by picture in presentation order up to the playhead: what it shows there is
/// the caption on screen with the frame.
public struct CaptionTrack: Sendable {
    /// Each segment's pictures that carry caption data, in presentation order (the newest `limit` segments). The same
    /// segment read again (another rung's copy, a re-read) adds only pictures not there yet.
    var segments: [Int: [CaptionSample]] = [:]
    var decoder: CaptionDecoder?
    var channel: CaptionChannel?
    /// How far the decoder was fed: the segment and time of the last look.
    var fed: (msn: Int, time: Double)?
    /// What the decoder shows at the last look, and the time of the picture that made it so.
    public internal(set) var text = ""
    public internal(set) var since: Double?
    /// The channels the caption data said something in so far (`CaptionChannel.found`).
    public internal(set) var found: Set<CaptionChannel> = []

    static let limit = 64
    /// Segments before the playhead's fed again after a jump: a pop-on caption is loaded before the picture that shows it.
    static let lead = 2

    /// Keeps segment `e.msn`'s pictures; the channels that speak in them for the first time.
    mutating func add(_ e: CaptionDataEvent) -> Set<CaptionChannel> {
        let channels = CaptionChannel.found(in: e.samples).subtracting(found)
        found.formUnion(channels)
        var pictures = segments[e.msn] ?? []
        let fresh = e.samples.filter { s in !pictures.contains { abs($0.time - s.time) < 0.0005 } }
        guard !fresh.isEmpty else { return channels }
        pictures = (pictures + fresh).sorted { $0.time < $1.time }
        segments[e.msn] = pictures
        // Pictures the decoder went past without: fed again from before them at the next look.
        if let f = fed, e.msn < f.msn || (e.msn == f.msn && fresh.contains { $0.time <= f.time }) { fed = nil }
        if segments.count > Self.limit, let oldest = segments.keys.min() { segments[oldest] = nil }
        return channels
    }

    /// The caption of `channel` at raw time `time` in segment `msn`: what the pictures up to there leave shown. Going on from
    /// the last look feeds the pictures between; a jump (a seek, a new channel, data that came late) feeds afresh from
    /// `lead` segments before.
    mutating func caption(_ channel: CaptionChannel, at time: Double, msn: Int) -> String {
        if self.channel != channel {
            (self.channel, decoder, fed) = (channel, CaptionDecoder(channel: channel), nil)
        }
        let to = time + 0.0005
        let from: (msn: Int, time: Double)
        if let f = fed, f.msn < msn || (f.msn == msn && f.time <= to), msn - f.msn <= 1 {
            from = f
        } else {
            decoder?.reset()
            (text, since) = ("", nil)
            from = (msn - Self.lead, -.infinity)
        }
        for m in from.msn...msn {
            for s in segments[m] ?? [] where (m > from.msn || s.time > from.time) && (m < msn || s.time <= to) {
                decoder?.feed(s)
                let now = decoder?.text ?? ""
                if now != text { (text, since) = (now, s.time) }
            }
        }
        fed = (msn, to)
        return text
    }
}
