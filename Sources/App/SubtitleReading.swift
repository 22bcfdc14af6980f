import HLS
import Loader
import LoaderCore
import MediaFormats
import Session

extension LoaderServer {
    /// A subtitle read for hlstui itself (docs/SUBTITLES.md), `base` the stream's URL: its answer as the pane's input.
    func answer(_ read: SubtitleRead, base: String) async -> PaneInput {
        switch read {
        case .playlist(let uri):
            let url = VirtualPlaylists.resolve(uri, against: base)
            let r = await readSubtitlePlaylist(url)
            let answer = r.map { SubtitleAnswer.playlist($0.playlist) }.mapError { SubtitleReadFailure(cause: $0.description) }
            return .subtitleRead(read, url: (try? r.get())?.url ?? url, answer)
        case .segment(_, let uri, let segmentBase, let range):
            let url = VirtualPlaylists.resolve(uri, against: segmentBase)
            let r = await readSubtitleSegment(url, range: range)
            // WebVTT (RFC 8216bis §3.1.4), or IMSC1 in fragmented MP4 (§3.1.5): its TTML documents out of the mdat.
            let answer = r.map { bytes -> SubtitleAnswer in
                FragmentedMP4.startsLikeMP4(Array(bytes.prefix(64)))
                    ? .documents(TimedTextMP4.documents(segment: bytes)) : .text(String(decoding: bytes, as: UTF8.self))
            }
            return .subtitleRead(read, url: url, answer.mapError { SubtitleReadFailure(cause: $0.description) })
        }
    }
}
