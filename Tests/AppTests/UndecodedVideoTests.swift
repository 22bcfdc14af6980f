import Foundation
import Origin
import Testing

enum UndecodedOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

/// `--no-video-decode` (a fleet's `video: false`): the player decodes no video, hlstui still watches its delivery.
@Suite("Video not decoded: delivery still watched, loops and switches crossed without a stall", .serialized)
struct UndecodedVideoTests {
    @Test(
        "fMP4 with its audio a rendition of its own: every video segment is read along with the audio, the loop's discontinuities are crossed by reload, no stall"
    )
    func fmp4() async throws {
        let state = UndecodedOrigin.state
        let mark = state.log().count
        // 45 s: the origin's live loop restarts its timestamps every 20 s, so at least two discontinuities are crossed.
        // Deutsch: the rendition with a playlist of its own (English is in the variant's segments). Alone: each crossing is a
        // reload, and a reload that takes a second is a stall (`StallWatch`) — about 0.1 s here beside three busy loops, but
        // 1.09 s once in the tier at its busiest, beside other players on two cores.
        let r = try await MonitorRun.run(
            ["\(UndecodedOrigin.base)/live-fmp4/master.m3u8", "--no-video-decode", "--audio", "de", "--duration", "45"], alone: true)
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        #expect(
            r.named("error").isEmpty && r.named("stall").isEmpty,
            "\(r.named("error")) \(r.named("stall")) \(r.named("skip")) \(r.named("variant"))")
        // No content lost at a reload: a skip here is at most the audio the null output drains at the end of what it was given.
        let skips = r.named("skip").filter { ($0["seconds"] as? Double ?? 0) > 0.6 }
        #expect(skips.isEmpty, "\(skips)")
        let playing = r.named("player").filter { $0["state"] as? String == "playing" }
        #expect(playing.count >= 150, "\(playing.count) samples playing")
        // FFmpeg reads only the audio rendition; the video segments the origin served came from hlstui's read-along, one per
        // audio segment, and each is a request event with its rung.
        let served = state.log(since: mark).filter { $0.kind == "segment" }
        let video = Set(served.filter { $0.path.contains("/v") }.compactMap(\.msn))
        let audio = Set(served.filter { $0.path.contains("/audio-") }.compactMap(\.msn))
        #expect(audio.count >= 15, "\(audio.count) audio segments")
        #expect(audio.subtracting(video).count <= 1, "audio segments without their video: \(audio.subtracting(video).sorted())")
        let videoRequests = r.named("request").filter { $0["kind"] as? String == "segment" && $0["rung"] as? Int != nil }
        let timed = Set(videoRequests.filter { $0["firstPTS"] as? Double != nil }.compactMap { $0["msn"] as? Int })
        #expect(video.subtracting(timed).count <= 1, "video segments served but not timed: \(video.subtracting(timed).sorted())")
    }

    @Test("MPEG-TS with its audio muxed in: plays without a stall")
    func ts() async throws {
        let state = UndecodedOrigin.state
        let mark = state.log().count
        let r = try await MonitorRun.run(["\(UndecodedOrigin.base)/live-ts/master.m3u8", "--no-video-decode", "--duration", "25"])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        #expect(r.named("error").isEmpty && r.named("stall").isEmpty, "\(r.named("error")) \(r.named("stall"))")
        // The variant's segments carry the audio played: the player reads them itself.
        let video = state.log(since: mark).filter { $0.kind == "segment" && $0.path.contains("/v") }.compactMap(\.msn)
        #expect(video.count >= 8, "\(video)")
        #expect(r.named("player").filter { $0["state"] as? String == "playing" }.count >= 60)
    }
}
