import HLS
import LoaderCore
import Testing

@Suite("Delivery directives for live reloads (RFC 8216bis §6.2.5, §6.3.7, §6.3.8)")
struct DeliveryDirectivesTests {
    /// A live playlist of segments 100…111, with the server control given.
    func held(_ control: String) -> MediaPlaylist {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:4", "#EXT-X-MEDIA-SEQUENCE:100"]
        if !control.isEmpty { lines.append("#EXT-X-SERVER-CONTROL:" + control) }
        for n in 100..<112 { lines += ["#EXTINF:4,", "s\(n).ts"] }
        return PlaylistParser.parseLenient(lines.joined(separator: "\n") + "\n").playlist.media!
    }

    @Test("block for the next segment only once the player reached the last one held; skip while the held playlist is fresh")
    func choose() {
        let ll = held("CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=24")
        #expect(DeliveryDirectives.choose(held: ll, age: 1, playerAt: 111) == DeliveryDirectives(msn: 112, skip: true))
        #expect(DeliveryDirectives.choose(held: ll, age: 1, playerAt: 109) == DeliveryDirectives(msn: nil, skip: true))
        // §6.3.7: no delta unless the held playlist is younger than half the skip boundary.
        #expect(DeliveryDirectives.choose(held: ll, age: 12, playerAt: 111) == DeliveryDirectives(msn: 112, skip: false))
        // §6.3.8: never block without CAN-BLOCK-RELOAD=YES; nothing at all without a server control, or once ended.
        #expect(DeliveryDirectives.choose(held: held("CAN-SKIP-UNTIL=24"), age: 1, playerAt: 111) == DeliveryDirectives(skip: true))
        #expect(DeliveryDirectives.choose(held: held(""), age: 1, playerAt: 111).isEmpty)
        var ended = ll
        ended.endList = true
        #expect(DeliveryDirectives.choose(held: ended, age: 1, playerAt: 111).isEmpty)
        #expect(DeliveryDirectives.choose(held: nil, age: 0, playerAt: nil).isEmpty)
    }

    @Test("applied after the URL's own query, and stripped back to the stream's URL")
    func urls() {
        let d = DeliveryDirectives(msn: 7, skip: true)
        #expect(d.applied(to: "https://o/a/index.m3u8") == "https://o/a/index.m3u8?_HLS_msn=7&_HLS_skip=YES")
        #expect(d.applied(to: "https://o/a/index.m3u8?token=x") == "https://o/a/index.m3u8?token=x&_HLS_msn=7&_HLS_skip=YES")
        #expect(DeliveryDirectives().applied(to: "https://o/a.m3u8") == "https://o/a.m3u8")
        #expect(DeliveryDirectives.stripped("https://o/a/index.m3u8?token=x&_HLS_msn=7&_HLS_skip=YES") == "https://o/a/index.m3u8?token=x")
        #expect(DeliveryDirectives.stripped("https://o/a/index.m3u8?_HLS_msn=7") == "https://o/a/index.m3u8")
        #expect(DeliveryDirectives.stripped("https://o/a/index.m3u8") == "https://o/a/index.m3u8")
    }
}
