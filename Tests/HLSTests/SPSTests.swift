import MediaFormats
import Testing

/// Sequence parameter sets as x264 writes them (made with ffmpeg 5.1's libx264), read as `inspect --media` reads them.
@Suite(
    "H.264 SPS: profile, level, the picture's size after cropping, its aspect, frame rate and transfer (ITU-T H.264 §7.3.2.1.1, Annex E)")
struct SPSTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    /// 1920×1080 High@4.0 at 30 fps: coded 1088 lines, cropped by 8; the RBSP carries emulation prevention bytes.
    static let hd = "67640028acd940780227e5c044000003000400000300f03c60c658"
    /// 640×360 Main@3.0 at 25 fps, sample aspect 4:3 (shown 853 wide).
    static let sd = "674d401eeca05017fcb870800000030080000019078b16cb"
    /// 1280×720 High@3.2 at 60000/1001 fps, transfer 16 (PQ).
    static let pq = "67640020acd9405005bb016a122012800001f48000ea60078c18cb"

    @Test("each field as the encoder was asked")
    func fields() throws {
        let hd = try #require(SPS(nal: Self.bytes(Self.hd)))
        #expect(hd.profile == 100 && hd.level == 40 && hd.width == 1920 && hd.height == 1080 && hd.frameRate == 30)
        #expect(hd.sampleAspect == (1, 1) && hd.displayWidth == 1920 && hd.transfer == nil)
        let sd = try #require(SPS(nal: Self.bytes(Self.sd)))
        #expect(sd.profile == 77 && sd.level == 30 && sd.width == 640 && sd.height == 360 && sd.frameRate == 25)
        #expect(sd.sampleAspect == (4, 3) && sd.displayWidth == 853)
        let pq = try #require(SPS(nal: Self.bytes(Self.pq)))
        #expect(pq.width == 1280 && pq.height == 720 && pq.transfer == 16)
        #expect(abs((pq.frameRate ?? 0) - 60000.0 / 1001) < 1e-9)
    }

    @Test("found in an Annex B stream and in an init section's avcC; cut short or not an SPS, nothing")
    func found() throws {
        let nal = Self.bytes(Self.hd)
        let annexB = [0, 0, 0, 1, 9, 0xF0] + [0, 0, 0, 1] + nal + [0, 0, 1, 0x68, 0xEB]
        #expect(H264.firstSPS(annexB: annexB) == nal)
        #expect(H264.firstSPS(annexB: [0, 0, 1] + nal) == nal, "at the end of the bytes")
        let avcC: [UInt8] =
            Array("avcC".utf8) + [1, 0x64, 0, 0x28, 0xFF, 0xE1, 0, UInt8(nal.count)] + nal + [1, 0, 4, 0x68, 0xEB, 0xE3, 0xCB]
        #expect(H264.firstSPS(initSection: [0, 0, 0, 0x30] + avcC) == nal)
        #expect(SPS(nal: Array(nal.prefix(8))) == nil)
        #expect(SPS(nal: [0x68] + nal.dropFirst()) == nil)
    }
}
