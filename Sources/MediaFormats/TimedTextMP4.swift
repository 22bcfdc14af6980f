/// IMSC1 subtitles carried in fragmented MP4 (RFC 8216bis §3.1.5; ISO/IEC 14496-30 `stpp`): the TTML documents of a
/// segment read out of its `mdat`, and — for the embedded origin — an init section and segments written around documents.
public enum TimedTextMP4 {
    /// The TTML documents a segment carries: each `mdat`'s payload as text, split where a new document starts.
    public static func documents(segment bytes: [UInt8]) -> [String] {
        guard let boxes = FragmentedMP4.boxes(bytes) else { return [] }
        var out: [String] = []
        for b in boxes where b.type == "mdat" {
            let text = String(decoding: bytes[b.payloadRange], as: UTF8.self)
            // Several samples in one mdat: each a document of its own, starting with its XML declaration.
            var pieces: [String] = []
            var rest = Substring(text)
            while let r = rest.dropFirst().firstRange(of: "<?xml") {
                pieces.append(String(rest[..<r.lowerBound]))
                rest = rest[r.lowerBound...]
            }
            pieces.append(String(rest))
            out += pieces.filter { $0.contains("<tt") }
        }
        return out
    }

    /// An init section for one `stpp` track of `timescale` ticks a second.
    public static func initSection(timescale: UInt32) -> [UInt8] {
        let ftyp = box("ftyp", Array("iso6".utf8) + be32(0) + Array("iso6cmfc".utf8))
        let mvhd = fullBox(
            "mvhd", 0, 0,
            be32(0) + be32(0) + be32(timescale) + be32(0) + be32(0x0001_0000) + be16(0x0100) + [UInt8](repeating: 0, count: 10) + matrix
                + [UInt8](repeating: 0, count: 24) + be32(2))
        let tkhd = fullBox(
            "tkhd", 0, 3,
            be32(0) + be32(0) + be32(1) + be32(0) + be32(0) + [UInt8](repeating: 0, count: 8) + be16(0) + be16(0) + be16(0) + be16(0)
                + matrix + be32(0) + be32(0))
        let mdhd = fullBox("mdhd", 0, 0, be32(0) + be32(0) + be32(timescale) + be32(0) + be16(0x15C7) + be16(0)) // language "eng"
        let hdlr = fullBox("hdlr", 0, 0, be32(0) + Array("subt".utf8) + [UInt8](repeating: 0, count: 12) + Array("hlstui IMSC1\0".utf8))
        let stpp = box(
            "stpp",
            [UInt8](repeating: 0, count: 6) + be16(1) + Array("http://www.w3.org/ns/ttml\0".utf8) + [0]
                + Array("application/ttml+xml\0".utf8))
        let stbl = box(
            "stbl",
            fullBox("stsd", 0, 0, be32(1) + stpp) + fullBox("stts", 0, 0, be32(0)) + fullBox("stsc", 0, 0, be32(0))
                + fullBox("stsz", 0, 0, be32(0) + be32(0)) + fullBox("stco", 0, 0, be32(0)))
        let dinf = box("dinf", fullBox("dref", 0, 0, be32(1) + fullBox("url ", 0, 1, [])))
        let minf = box("minf", fullBox("sthd", 0, 0, []) + dinf + stbl)
        let trak = box("trak", tkhd + box("mdia", mdhd + hdlr + minf))
        let mvex = box("mvex", fullBox("trex", 0, 0, be32(1) + be32(1) + be32(0) + be32(0) + be32(0)))
        return ftyp + box("moov", mvhd + trak + mvex)
    }

    /// One segment: a fragment holding `document` as its one sample, from `decodeTime` for `duration` ticks.
    public static func segment(sequence: UInt32, decodeTime: UInt64, duration: UInt32, document: [UInt8]) -> [UInt8] {
        func moof(dataOffset: UInt32) -> [UInt8] {
            let tfhd = fullBox("tfhd", 0, 0x02_0000, be32(1))
            let tfdt = fullBox("tfdt", 1, 0, be32(UInt32(decodeTime >> 32)) + be32(UInt32(decodeTime & 0xFFFF_FFFF)))
            let trun = fullBox("trun", 0, 0x0301, be32(1) + be32(dataOffset) + be32(duration) + be32(UInt32(document.count)))
            return box("moof", fullBox("mfhd", 0, 0, be32(sequence)) + box("traf", tfhd + tfdt + trun))
        }
        let size = moof(dataOffset: 0).count
        return moof(dataOffset: UInt32(size + 8)) + box("mdat", document)
    }

    static let matrix =
        be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x4000_0000)

}
