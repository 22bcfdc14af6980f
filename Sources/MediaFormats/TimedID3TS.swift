/// ID3 timed metadata in MPEG-TS (Apple's "Timed Metadata for HTTP Live Streaming"): an elementary stream of type 0x15 whose
/// PES packets (stream_id 0xBD) each carry an ID3v2 tag at their PTS.
extension TransportStream {
    /// The PID the embedded origin gives its ID3 stream.
    public static let id3PID = 0x0110

    /// The ID3 tags of `bytes`' metadata streams (stream type 0x15), each with its PES's PTS (90 kHz).
    public static func timedID3(_ bytes: [UInt8]) -> [(pts: UInt64?, tag: [UInt8])] {
        let info = probe(bytes)
        let pids = Set(info.streamTypes.filter { $0.value == 0x15 }.map(\.key))
        guard !pids.isEmpty else { return [] }
        return pesPackets(bytes, pids: pids).map { ($0.pts, $0.payload) }
    }
}

extension TransportStream {
    /// `bytes` with an ID3 stream added (for the embedded origin): its entry in the PMT (stream type 0x15 with a
    /// metadata_descriptor naming ID3) and one PES carrying `tag` at `pts`, right after the PMT; `cc` is its packet's
    /// continuity counter (the segment's number, so the stream counts on across segments).
    public static func addingTimedID3(_ bytes: [UInt8], tag: [UInt8], pts: UInt64, cc: UInt8) -> [UInt8] {
        let info = probe(bytes)
        guard let pmtPID = info.programMapPID, bytes.count % packetSize == 0 else { return bytes }
        var out: [UInt8] = []
        var added = false
        var o = 0
        while o + packetSize <= bytes.count {
            let packet = Array(bytes[o..<(o + packetSize)])
            o += packetSize
            let pid = Int(packet[1] & 0x1F) << 8 | Int(packet[2])
            guard !added, pid == pmtPID, packet[1] & 0x40 != 0, let pmt = programMapAddingID3(packet) else {
                out += packet
                continue
            }
            out += pmt
            var count = cc & 0x0F
            out += packetize(id3PES(tag, pts: pts), pid: id3PID, firstAF: nil, cc: &count)
            added = true
        }
        return out
    }

    /// The PMT packet with an ES entry for the ID3 stream (its section in one packet, as the origin's are).
    static func programMapAddingID3(_ packet: [UInt8]) -> [UInt8]? {
        guard let (t, crcAt) = sectionBounds(packet), t + 12 <= packetSize else { return nil }
        // metadata_descriptor (ISO/IEC 13818-1 §2.6.60): format 0xFFFF 'ID3 ', 0xFF 'ID3 ', service 0, flags 0x0F.
        let descriptor: [UInt8] = [0x26, 13, 0xFF, 0xFF] + Array("ID3 ".utf8) + [0xFF] + Array("ID3 ".utf8) + [0x00, 0x0F]
        let pid = id3PID
        let entry: [UInt8] = [0x15, 0xE0 | UInt8(pid >> 8), UInt8(pid & 0xFF), 0xF0, UInt8(descriptor.count)] + descriptor
        guard crcAt + 4 + entry.count <= packetSize else { return nil }
        var section = Array(packet[t..<crcAt]) + entry
        let length = section.count - 3 + 4
        section[1] = (section[1] & 0xF0) | UInt8((length >> 8) & 0x0F)
        section[2] = UInt8(length & 0xFF)
        section += crcBytes(section[...])
        let head = Array(packet[..<t])
        return head + section + [UInt8](repeating: 0xFF, count: packetSize - head.count - section.count)
    }

    /// A PES of private stream 1 carrying `tag` at `pts`.
    static func id3PES(_ tag: [UInt8], pts: UInt64) -> [UInt8] {
        let p = pts & 0x1_FFFF_FFFF
        let stamp: [UInt8] = [
            0x21 | UInt8((p >> 29) & 0x0E), UInt8((p >> 22) & 0xFF), UInt8(((p >> 14) & 0xFE) | 1), UInt8((p >> 7) & 0xFF),
            UInt8(((p << 1) & 0xFE) | 1),
        ]
        let length = 3 + stamp.count + tag.count
        return [0, 0, 1, 0xBD, UInt8(length >> 8), UInt8(length & 0xFF), 0x80, 0x80, UInt8(stamp.count)] + stamp + tag
    }
}
