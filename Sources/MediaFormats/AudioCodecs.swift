/// The audio codec of a segment or init section as RFC 6381 writes it in CODECS (RFC 8216bis §4.4.6.2): AAC as
/// `mp4a.40.AOT` from an ADTS header (ISO/IEC 14496-3 §1.A.2.2.1: the profile plus one) or from the `esds` box's
/// AudioSpecificConfig (ISO/IEC 14496-1 §7.2.6, 14496-3 §1.6.2.1), MP3 as `mp4a.40.34`, AC-3 and E-AC-3 as `ac-3` and
/// `ec-3` (ETSI TS 102 366 Annex F), Opus and FLAC by their sample entries. Pure.
public enum AudioCodecs {
    /// The codec of the first audio stream of an MPEG-TS segment, by its stream type (ISO/IEC 13818-1 Table 2-34; ATSC A/52
    /// for AC-3 and E-AC-3) and, for ADTS AAC, the first frame's header. SAMPLE-AES streams (RFC 8216bis §5.3) by theirs.
    public static func transportStream(_ bytes: [UInt8]) -> String? {
        let info = TransportStream.probe(bytes)
        guard let pid = info.audioPIDs.first, let type = info.streamTypes[pid] else { return nil }
        switch type {
        case 0x0F, 0xCF: return type == 0xCF ? "mp4a.40.2" : firstPES(bytes, pid: pid).flatMap(adts)
        case 0x03, 0x04: return "mp4a.40.34"
        case 0x81, 0xC1: return "ac-3"
        case 0x87, 0xC2: return "ec-3"
        default: return nil
        }
    }

    /// Packed audio (RFC 8216bis §3.1.3): an ID3 tag (its syncsafe size in bytes 6–9, ID3v2.4 §3.1), then ADTS frames; AC-3
    /// and E-AC-3 frames open with their own sync word (0x0B77), told apart by bsid (over 10: E-AC-3).
    public static func packed(_ b: [UInt8]) -> String? {
        var i = 0
        if b.count >= 10, b[0] == 0x49, b[1] == 0x44, b[2] == 0x33 {
            i = 10 + (Int(b[6] & 0x7F) << 21 | Int(b[7] & 0x7F) << 14 | Int(b[8] & 0x7F) << 7 | Int(b[9] & 0x7F))
        }
        guard i + 7 <= b.count else { return nil }
        if b[i] == 0x0B, b[i + 1] == 0x77 { return b[i + 5] >> 3 > 10 ? "ec-3" : "ac-3" }
        return adts(Array(b[i..<(i + 7)]))
    }

    /// `mp4a.40.AOT` from an ADTS frame's header: the sync word, then the profile in the third byte's top two bits.
    public static func adts(_ b: [UInt8]) -> String? {
        guard b.count >= 7, b[0] == 0xFF, b[1] & 0xF6 == 0xF0 else { return nil }
        return "mp4a.40.\(Int(b[2] >> 6) + 1)"
    }

    /// The codec of an fMP4 init section's audio sample entry.
    public static func initSection(_ bytes: [UInt8]) -> String? {
        for (entry, codec) in [("ac-3", "ac-3"), ("ec-3", "ec-3"), ("Opus", "opus"), ("fLaC", "fLaC")]
        where FragmentedMP4.offset(of: entry, in: bytes) != nil {
            return codec
        }
        guard let at = FragmentedMP4.offset(of: "esds", in: bytes), at + 8 <= bytes.count else { return nil }
        return esds(Array(bytes[(at + 8)...]))
    }

    /// An `esds` payload after its version and flags: the ES_Descriptor (tag 3), its DecoderConfigDescriptor (tag 4) with the
    /// objectTypeIndication (0x40: MPEG-4 audio; 0x69, 0x6B: MP3), and its DecoderSpecificInfo (tag 5), whose first five
    /// bits are the audio object type (31: six more, plus 32).
    static func esds(_ b: [UInt8]) -> String? {
        var i = 0
        func descriptor(_ tag: UInt8) -> Int? {
            guard i < b.count, b[i] == tag else { return nil }
            i += 1
            var size = 0
            for _ in 0..<4 {
                guard i < b.count else { return nil }
                size = size << 7 | Int(b[i] & 0x7F)
                i += 1
                if b[i - 1] & 0x80 == 0 { break }
            }
            return size
        }
        guard descriptor(3) != nil, i + 3 <= b.count else { return nil }
        let flags = b[i + 2]
        i += 3
        if flags & 0x80 != 0 { i += 2 }
        if flags & 0x40 != 0, i < b.count { i += 1 + Int(b[i]) }
        if flags & 0x20 != 0 { i += 2 }
        guard descriptor(4) != nil, i + 13 <= b.count else { return nil }
        let oti = b[i]
        i += 13
        if oti == 0x69 || oti == 0x6B { return "mp4a.40.34" }
        guard oti == 0x40 else { return "mp4a." + String(oti, radix: 16) }
        guard descriptor(5) != nil, i < b.count else { return "mp4a.40" }
        var aot = Int(b[i] >> 3)
        if aot == 31, i + 1 < b.count { aot = 32 + Int((b[i] & 0x07) << 3 | b[i + 1] >> 5) }
        return "mp4a.40.\(aot)"
    }

    /// Whether CODECS entry `declared` names the audio measured: the same codec; for AAC the same object type, where AAC-LC in
    /// the bytes may be HE-AAC (5) or HE-AACv2 (29) signalled implicitly (ISO/IEC 14496-3 §1.6.5.2: the SBR is found in the
    /// stream, not in the header).
    public static func names(_ declared: String, _ measured: String) -> Bool {
        let d = declared.lowercased()
        let m = measured.lowercased()
        if d == m { return true }
        if m == "mp4a.40.2" { return ["mp4a.40.5", "mp4a.40.29"].contains(d) }
        if m == "mp4a.40.5" { return d == "mp4a.40.29" }
        return false
    }

    /// Whether a CODECS entry is an audio codec.
    public static func isAudio(_ entry: String) -> Bool {
        let e = entry.lowercased()
        return e.hasPrefix("mp4a") || ["ac-3", "ec-3", "ec+3", "ac-4", "opus", "flac", "alac"].contains { e.hasPrefix($0) }
    }

    /// The payload of the first PES packet of `pid` that starts in `bytes` (as far as its first TS packet goes).
    static func firstPES(_ bytes: [UInt8], pid: Int) -> [UInt8]? {
        var offset = 0
        while offset + 188 <= bytes.count {
            defer { offset += 188 }
            let p = offset
            guard bytes[p] == 0x47, bytes[p + 1] & 0x40 != 0, Int(bytes[p + 1] & 0x1F) << 8 | Int(bytes[p + 2]) == pid else { continue }
            let afc = (bytes[p + 3] >> 4) & 0x3
            guard afc & 0x1 != 0 else { continue }
            var start = p + 4
            if afc & 0x2 != 0 { start += 1 + Int(bytes[p + 4]) }
            guard start + 9 <= p + 188, bytes[start] == 0, bytes[start + 1] == 0, bytes[start + 2] == 1 else { continue }
            let payload = start + 9 + Int(bytes[start + 8])
            guard payload < p + 188 else { continue }
            return Array(bytes[payload..<(p + 188)])
        }
        return nil
    }
}
