import LoaderEvents
import HLS
import LoaderCore
import NIOConcurrencyHelpers

/// Video the player does not decode (mpv `vid=no`, `LoaderOptions.readsUndecodedVideo`). FFmpeg then reads no segment of a
/// variant whose audio is a rendition of its own, so nothing would watch the video's delivery and the session would have no
/// segment of the variant to time the playhead with. The Loader reads each video segment itself, whole, when the player asks for
/// the audio segment with the same media sequence number, and drops it — requested, retried, failed over, timed and reported like
/// a segment the player reads (DECISIONS.md, "Video not decoded").
extension LoaderServer {
    /// Called for every segment the player asks for; acts on audio rendition segments only, each MSN once per rung.
    func readAlong(_ audio: Resource) {
        guard options.readsUndecodedVideo, audio.kind == .segment, let msn = audio.msn, let p = audio.playlist else { return }
        let (rung, spliced) = table.withLockedValue { t -> (Int?, Bool) in
            guard t.audioPlaylists.contains(p), let rung = t.route?.rung ?? t.playerRung else { return (nil, false) }
            guard t.readAlong.insert(ReadAlong(rung: rung, msn: msn)).inserted else { return (nil, false) }
            if t.readAlong.count > 64, let oldest = t.readAlong.min(by: { $0.msn < $1.msn }) { t.readAlong.remove(oldest) }
            return (rung, t.route != nil)
        }
        guard let rung else { return }
        tasks.spawn { [self] in
            if spliced {
                await segment(Resource.spliceSegment(msn: msn), range: nil, writer: .sink())
                return
            }
            // The playlist read lists the segment after this one too when it exists: reported, it tells the session what
            // follows (a discontinuity to cross, a GAP) before the player gets there, as FFmpeg's own reloads would.
            guard let rm = await rungMedia(rung, containing: msn + 1), let s = rm.segment(msn) else { return }
            let res = segmentResource(s, base: rm.url, rung: rung, playlist: .upstream(rm.url))
            // The init section first, once: its tracks time the segment (its first PTS).
            if let initURL = res.initURL, let map = s.map, initTracks.withLockedValue({ $0[initURL] == nil }) {
                var i = Resource(upstream: initURL, kind: .initSection, rung: rung)
                i.byteRange = map.byteRange
                await segment(i, range: nil, writer: .sink())
            }
            await segment(res, range: nil, writer: .sink())
            // The player asked for the newest segment: what follows it (perhaps a discontinuity, where the Loader ends the
            // player's playlist and the player asks for nothing more) is read once it is published, a target duration at a
            // time, as FFmpeg's own reloads would have found it.
            var later = rm
            for _ in 0..<3 where later.segment(msn + 1) == nil && !later.media.endList && !Task.isCancelled {
                await sleep(Double(later.media.targetDuration ?? 2))
                guard let fresh = await rungMedia(rung, containing: msn + 1) else { return }
                later = fresh
            }
        }
    }
}

/// A video segment the Loader read along with the audio.
struct ReadAlong: Hashable, Sendable {
    var rung: Int
    var msn: Int
}
