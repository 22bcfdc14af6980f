import HLS
import Testing
import Foundation

/// A live playlist of segments `first..<end` (4 s each), a discontinuity before `discontinuityAt`, PDT on the first segment
/// and after the discontinuity, and the date ranges `ranges` before the first segment.
private func live(_ first: Int, _ end: Int, discontinuityAt: Int? = nil, ranges: [String] = [], skip: Int? = nil, removed: [String] = [])
    -> MediaPlaylist
{
    var lines = [
        "#EXTM3U", "#EXT-X-VERSION:10", "#EXT-X-TARGETDURATION:4", "#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=24,CAN-SKIP-DATERANGES=YES",
        "#EXT-X-MEDIA-SEQUENCE:\(first)", "#EXT-X-DISCONTINUITY-SEQUENCE:3",
    ]
    if let skip {
        lines.append(
            "#EXT-X-SKIP:SKIPPED-SEGMENTS=\(skip)"
                + (removed.isEmpty ? "" : ",RECENTLY-REMOVED-DATERANGES=\"\(removed.joined(separator: "\t"))\""))
    }
    for id in ranges { lines.append("#EXT-X-DATERANGE:ID=\"\(id)\",START-DATE=\"2026-01-01T00:00:00Z\"") }
    for n in (first + (skip ?? 0))..<end {
        if n == discontinuityAt { lines.append("#EXT-X-DISCONTINUITY") }
        if n == first || n == discontinuityAt {
            lines.append("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:\(String(format: "%02d", n / 15)):\(String(format: "%02d", n % 15 * 4))Z")
        }
        lines += ["#EXTINF:4,", "s\(n).ts"]
    }
    return PlaylistParser.parseLenient(lines.joined(separator: "\n") + "\n").playlist.media!
}

@Suite("Playlist delta updates merged into the held playlist (RFC 8216bis §6.2.5.1, §6.3.7)")
struct DeltaUpdateTests {
    @Test("the skipped segments come from the held playlist; discontinuity sequence and PDT carry on into the listed ones")
    func merge() throws {
        let full = live(100, 112, discontinuityAt: 103)
        let delta = live(100, 112, discontinuityAt: 103, skip: 5)
        #expect(delta.segments.first?.mediaSequence == 105)
        let merged = try DeltaUpdate.merge(delta, into: full).get()
        #expect(merged.skip == nil)
        #expect(merged.segments.map(\.uri) == full.segments.map(\.uri))
        #expect(merged.segments.map(\.mediaSequence) == full.segments.map(\.mediaSequence))
        #expect(merged.segments.map(\.discontinuitySequence) == full.segments.map(\.discontinuitySequence))
        #expect(merged.segments.map(\.effectiveProgramDateTime) == full.segments.map(\.effectiveProgramDateTime))
        // A delta that skips nothing, or none at all, is the playlist itself.
        #expect(try DeltaUpdate.merge(full, into: full).get() == full)
    }

    @Test("a delta that skips what the held playlist no longer has, or lists a segment differently, is refused with its cause")
    func refused() {
        let old = live(90, 100)
        let delta = live(100, 112, skip: 5)
        #expect(throws: DeltaUpdate.Failure.missingSegments(first: 100, last: 104)) { try DeltaUpdate.merge(delta, into: old).get() }
        var other = live(100, 112)
        other.segments[8].uri = "other.ts"
        let f = #expect(throws: DeltaUpdate.Failure.self) { try DeltaUpdate.merge(delta, into: other).get() }
        #expect(f?.description.contains("lists segment 108 as s108.ts (4 s), the full playlist had other.ts (4 s)") == true)
    }

    @Test("date ranges: the held ones the v2 delta leaves out are kept, the recently removed ones dropped")
    func dateRanges() throws {
        let full = live(100, 112, ranges: ["ad-1", "ad-2", "ad-3"])
        let delta = live(100, 112, ranges: ["ad-3"], skip: 5, removed: ["ad-2"])
        let merged = try DeltaUpdate.merge(delta, into: full).get()
        #expect(Set(merged.dateRanges.map(\.id)) == ["ad-1", "ad-3"])
    }
}
