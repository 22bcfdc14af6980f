import HLSReport
import MediaFormats
import Testing

/// The audio codec from the bytes (RFC 6381 as CODECS writes it), and CODECS held against it (RFC 8216bis §4.4.6.2).
@Suite("Audio codecs from the bytes: ADTS, esds, AC-3 and E-AC-3; CODECS against the audio of a variant and its renditions")
struct AudioCodecsTests {
    @Test("ADTS: the profile plus one is the object type; packed audio after its ID3 tag; AC-3 and E-AC-3 by bsid")
    func adts() {
        #expect(AudioCodecs.adts([0xFF, 0xF1, 0x50, 0x80, 0x01, 0x7F, 0xFC]) == "mp4a.40.2")
        #expect(AudioCodecs.adts([0xFF, 0xF1, 0x10, 0x80, 0x01, 0x7F, 0xFC]) == "mp4a.40.1")
        #expect(AudioCodecs.adts([0x47, 0x40, 0x11, 0x10, 0, 0, 0]) == nil)
        // An ID3 tag of 12 bytes (syncsafe size), then the ADTS frame.
        let id3: [UInt8] = [0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 12] + [UInt8](repeating: 0, count: 12)
        #expect(AudioCodecs.packed(id3 + [0xFF, 0xF1, 0x50, 0x80, 0x01, 0x7F, 0xFC]) == "mp4a.40.2")
        #expect(AudioCodecs.packed([0x0B, 0x77, 0, 0, 0x14, 0x40, 0x43]) == "ac-3") // bsid 8
        #expect(AudioCodecs.packed([0x0B, 0x77, 0, 0, 0x14, 0x80, 0x43]) == "ec-3") // bsid 16
    }

    @Test("esds: FFmpeg's AAC-LC (object type 2 in the AudioSpecificConfig); HE-AAC, an escaped type, MP3 by its indication")
    func esds() {
        func initSection(_ esdsHex: String) -> [UInt8] {
            Array("mp4a".utf8) + [0, 0, 0, 0x36] + Array("esds".utf8) + HEVCTests.bytes(esdsHex)
        }
        // As FFmpeg 5.1 writes it (descriptor sizes in four bytes).
        #expect(
            AudioCodecs.initSection(
                initSection("000000000380808025000100048080801740150000000000fa000000fa000580808005118856e500068080800102"))
                == "mp4a.40.2")
        #expect(
            AudioCodecs.initSection(initSection("000000000319000100041140150000000000fa000000fa000502") + [0x2B, 0x92]) == "mp4a.40.5")
        // Object type 31 escapes: 32 + the next six bits (here 10: 42, USAC).
        #expect(
            AudioCodecs.initSection(initSection("000000000319000100041140150000000000fa000000fa000502") + [0xF9, 0x40]) == "mp4a.40.42")
        #expect(AudioCodecs.initSection(initSection("000000000314000100040f6b15000000000000fa000000fa00")) == "mp4a.40.34")
        #expect(AudioCodecs.initSection(Array("stsd".utf8) + Array("ec-3".utf8) + Array("dec3".utf8)) == "ec-3")
        #expect(AudioCodecs.initSection(Array("stsd".utf8) + Array("ac-3".utf8) + Array("dac3".utf8)) == "ac-3")
    }

    @Test("AAC-LC in the bytes may be HE-AAC signalled implicitly; otherwise the codec itself")
    func names() {
        #expect(AudioCodecs.names("mp4a.40.2", "mp4a.40.2") && AudioCodecs.names("mp4a.40.5", "mp4a.40.2"))
        #expect(AudioCodecs.names("MP4A.40.29", "mp4a.40.2") && AudioCodecs.names("mp4a.40.29", "mp4a.40.5"))
        #expect(
            !AudioCodecs.names("mp4a.40.2", "mp4a.40.5") && !AudioCodecs.names("mp4a.40.2", "ac-3") && !AudioCodecs.names("ac-3", "ec-3"))
        #expect(AudioCodecs.isAudio("ec-3") && AudioCodecs.isAudio("mp4a.40.2") && !AudioCodecs.isAudio("avc1.64001f"))
    }

    static func variant(_ index: Int, codecs: String, audio: String?, group: String?) -> VariantMeasure {
        var v = VariantMeasure(index: index, name: "v\(index)", measured: 4, listed: 4, peak: 1_000_000, average: 900_000)
        (v.bandwidth, v.averageBandwidth, v.codecs, v.audioCodec, v.audioGroup) = (1_000_000, 900_000, codecs, audio, group)
        return v
    }

    @Test("CODECS names the audio of its segments and of every rendition in its AUDIO group; each one missing is a must fix")
    func checks() {
        let right = Self.variant(0, codecs: "avc1.64001f,ac-3", audio: "ac-3", group: nil)
        let wrong = Self.variant(1, codecs: "avc1.64001f,mp4a.40.2", audio: "ac-3", group: nil)
        let none = Self.variant(2, codecs: "avc1.64001f", audio: "mp4a.40.2", group: nil)
        let grouped = Self.variant(3, codecs: "avc1.64001f,mp4a.40.2", audio: nil, group: "aud")
        var rendition = VariantMeasure(index: 4, name: "audio English [en]", measured: 4, listed: 4, peak: 100_000, average: 96_000)
        (rendition.audioCodec, rendition.audioGroup) = ("ec-3", "aud")
        var other = rendition
        other.audioGroup = "elsewhere"
        let found = MediaChecks.findings([right, wrong, none, grouped], audio: [rendition, other], subtitles: [])
            .filter { $0.rule == "codecs-audio" }
        #expect(found.map(\.variant) == [1, 2, 3] && found.allSatisfy(\.must))
        #expect(
            found.map(\.message) == [
                "v1: CODECS says mp4a.40.2, the audio in its segments is ac-3",
                "v2: CODECS lists no audio codec, the audio in its segments is mp4a.40.2",
                "v3: CODECS says mp4a.40.2, the audio in audio English [en] is ec-3",
            ])
    }
}

@Suite("Codec readers on cut bytes: nothing read past the end")
struct CodecReadersCutTests {
    @Test("each reader given every prefix of a real init section and of a TS packet answers without trapping")
    func prefixes() {
        let esds = HEVCTests.bytes("000000000380808025000100048080801740150000000000fa000000fa000580808005118856e500068080800102")
        let initSection = Array("mp4a".utf8) + [0, 0, 0, 0x36] + Array("esds".utf8) + esds
        for n in 0...initSection.count {
            let cut = Array(initSection.prefix(n))
            _ = AudioCodecs.initSection(cut)
            _ = HEVC.codecString(initSection: cut)
            _ = DolbyVision.codecs(initSection: cut)
            _ = AudioCodecs.packed(cut)
        }
        #expect(AudioCodecs.initSection(Array(initSection.prefix(12))) == nil)
        #expect(AudioCodecs.initSection(initSection) == "mp4a.40.2")
    }
}
