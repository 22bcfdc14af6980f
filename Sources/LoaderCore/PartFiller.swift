/// Filler the Loader writes after each LL-HLS part of a growing segment (DECISIONS.md, "Parts padded for FFmpeg's read"):
/// FFmpeg 5.1's HLS demuxer reads a segment in blocking reads of up to 32 KB (`avio_read` fills the whole request), so a
/// part smaller than that reached the player only once later parts had made up the rest — with 0.333 s parts of a 268 kbps
/// rung, a second late, and a player PART-HOLD-BACK (1 s) behind the edge stalled. After each part the Loader writes bytes
/// every demuxer skips, enough to complete any pending read: MPEG-TS null packets (PID 0x1FFF, ISO/IEC 13818-1 §2.4.3.3),
/// or one ISO BMFF `free` box (ISO/IEC 14496-12 §8.1.2) between fragments. Pure.
public enum PartFiller {
    /// At least FFmpeg's HLS read buffer (hls.c, INITIAL_BUFFER_SIZE).
    public static let minimum = 32_768

    /// The filler for a growing segment of this container.
    public static func bytes(fragmentedMP4: Bool) -> [UInt8] {
        if fragmentedMP4 {
            let size = minimum + 8
            return [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
                + Array("free".utf8) + [UInt8](repeating: 0, count: minimum)
        }
        let packets = (minimum + 187) / 188
        return (0..<packets).flatMap { _ in [0x47, 0x1F, 0xFF, 0x10] + [UInt8](repeating: 0xFF, count: 184) }
    }

    /// `body` without the filler this type writes: MPEG-TS null packets, or top-level `free` boxes of fMP4 (what a player's
    /// copy of a growing segment holds beside the segment's own bytes).
    public static func strip(_ body: [UInt8], fragmentedMP4: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var i = 0
        if fragmentedMP4 {
            while i + 8 <= body.count {
                let size = Int(body[i]) << 24 | Int(body[i + 1]) << 16 | Int(body[i + 2]) << 8 | Int(body[i + 3])
                guard size >= 8, i + size <= body.count else { break }
                if body[(i + 4)..<(i + 8)].elementsEqual("free".utf8) == false { out += body[i..<(i + size)] }
                i += size
            }
            return out + body[i...]
        }
        while i + 188 <= body.count {
            let pid = (Int(body[i + 1]) & 0x1F) << 8 | Int(body[i + 2])
            if !(body[i] == 0x47 && pid == 0x1FFF) { out += body[i..<(i + 188)] }
            i += 188
        }
        return out + body[i...]
    }
}
