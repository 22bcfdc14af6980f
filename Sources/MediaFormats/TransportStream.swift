/// What the first packets of an MPEG-TS segment say: programs, elementary streams, first timestamps (ISO/IEC 13818-1).
public struct TSInfo: Sendable, Equatable {
    /// PID of the first video stream in the PMT, if any.
    public var videoPID: Int?
    /// PIDs of audio streams in the PMT.
    public var audioPIDs: [Int] = []
    /// stream_type of every elementary stream by PID.
    public var streamTypes: [Int: UInt8] = [:]
    /// PID of the first program's PMT, from the PAT.
    public var programMapPID: Int?
    /// First PTS (90 kHz) of the video stream.
    public var firstVideoPTS: UInt64?
    /// First PTS (90 kHz) of any audio stream.
    public var firstAudioPTS: UInt64?
    /// Bytes from the start to the end of the first video access unit (up to the next video PES start), for I-frame playlists.
    public var firstVideoAccessUnitEnd: Int?
    /// Offset of the first packet carrying the start of a video PES.
    public var firstVideoPESOffset: Int?
    public var packetCount: Int = 0

    /// The earliest PTS in 90 kHz units: video when present, else audio.
    public var firstPTS: UInt64? { firstVideoPTS ?? firstAudioPTS }
}

/// Reading MPEG-TS segments without decoding them.
public enum TransportStream {
    public static let packetSize = 188

    /// True when `bytes` is a whole number of 188-byte packets, each starting with the 0x47 sync byte.
    public static func looksValid(_ bytes: some Collection<UInt8>) -> Bool {
        let count = bytes.count
        guard count >= packetSize, count % packetSize == 0 else { return false }
        var i = bytes.startIndex
        var n = 0
        while n < count {
            if bytes[i] != 0x47 { return false }
            i = bytes.index(i, offsetBy: packetSize)
            n += packetSize
        }
        return true
    }

    /// Decodes a 33-bit PTS/DTS from its 5 header bytes.
    static func timestamp(_ p: UnsafeBufferPointer<UInt8>, _ o: Int) -> UInt64 {
        let a = UInt64(p[o] >> 1 & 0x07) << 30
        let b = UInt64(p[o + 1]) << 22 | UInt64(p[o + 2] >> 1) << 15
        let c = UInt64(p[o + 3]) << 7 | UInt64(p[o + 4] >> 1)
        return a | b | c
    }

    /// Probes the PAT, PMT and the first PES headers of `bytes`.
    public static func probe(_ bytes: [UInt8]) -> TSInfo {
        bytes.withUnsafeBufferPointer { probe($0) }
    }

    /// Probes raw bytes (see `probe(_:)`).
    public static func probe(_ p: UnsafeBufferPointer<UInt8>) -> TSInfo {
        var info = TSInfo()
        var pmtPID: Int?
        var offset = 0
        var videoPESStarts = 0
        while offset + packetSize <= p.count {
            defer { offset += packetSize }
            guard p[offset] == 0x47 else { continue }
            info.packetCount += 1
            let pusi = p[offset + 1] & 0x40 != 0
            let pid = Int(p[offset + 1] & 0x1F) << 8 | Int(p[offset + 2])
            let afc = (p[offset + 3] >> 4) & 0x3
            guard afc & 0x1 != 0 else { continue }
            var start = offset + 4
            if afc & 0x2 != 0 { start += 1 + Int(p[offset + 4]) }
            let end = offset + packetSize
            guard start < end else { continue }
            if pid == 0 && pusi {
                // PAT: pointer field, then the table.
                let t = start + 1 + Int(p[start])
                guard t + 8 <= end else { continue }
                let sectionLength = Int(p[t + 1] & 0x0F) << 8 | Int(p[t + 2])
                var e = t + 8
                let stop = min(end, t + 3 + sectionLength - 4)
                while e + 4 <= stop {
                    let program = Int(p[e]) << 8 | Int(p[e + 1])
                    if program != 0 { pmtPID = Int(p[e + 2] & 0x1F) << 8 | Int(p[e + 3]); info.programMapPID = pmtPID; break }
                    e += 4
                }
            } else if pid == pmtPID && pusi {
                let t = start + 1 + Int(p[start])
                guard t + 12 <= end else { continue }
                let sectionLength = Int(p[t + 1] & 0x0F) << 8 | Int(p[t + 2])
                let programInfoLength = Int(p[t + 10] & 0x0F) << 8 | Int(p[t + 11])
                var e = t + 12 + programInfoLength
                let stop = min(end, t + 3 + sectionLength - 4)
                while e + 5 <= stop {
                    let type = p[e]
                    let epid = Int(p[e + 1] & 0x1F) << 8 | Int(p[e + 2])
                    let esInfo = Int(p[e + 3] & 0x0F) << 8 | Int(p[e + 4])
                    info.streamTypes[epid] = type
                    switch type {
                    // 0xDB, 0xCF, 0xC1, 0xC2: H.264, AAC, AC-3 and E-AC-3 with SAMPLE-AES (RFC 8216bis §5.3).
                    case 0x01, 0x02, 0x10, 0x1B, 0x24, 0xDB: if info.videoPID == nil { info.videoPID = epid }
                    case 0x03, 0x04, 0x0F, 0x11, 0x81, 0x87, 0xCF, 0xC1, 0xC2: info.audioPIDs.append(epid)
                    default: break
                    }
                    e += 5 + esInfo
                }
            } else if pusi, info.streamTypes[pid] != nil {
                // PES header: 00 00 01 id len(2) flags(2) hdrlen, PTS.
                guard start + 14 <= end, p[start] == 0, p[start + 1] == 0, p[start + 2] == 1 else { continue }
                let hasPTS = p[start + 7] & 0x80 != 0
                if pid == info.videoPID {
                    videoPESStarts += 1
                    if videoPESStarts == 1 { info.firstVideoPESOffset = offset }
                    if videoPESStarts == 2 && info.firstVideoAccessUnitEnd == nil { info.firstVideoAccessUnitEnd = offset }
                    if hasPTS && info.firstVideoPTS == nil { info.firstVideoPTS = timestamp(p, start + 9) }
                } else if info.audioPIDs.contains(pid), hasPTS, info.firstAudioPTS == nil {
                    info.firstAudioPTS = timestamp(p, start + 9)
                }
            }
        }
        if info.firstVideoAccessUnitEnd == nil && videoPESStarts == 1 { info.firstVideoAccessUnitEnd = p.count }
        return info
    }
}

extension TransportStream {
    /// The segment with its first audio PES moved in front of its first video packet, as packagers that write each segment's
    /// audio first do: packets keep their order within every PID (continuity counters stay intact), and no timestamp changes.
    public static func audioFirst(_ bytes: [UInt8]) -> [UInt8] {
        let info = probe(bytes)
        guard let video = info.videoPID, let audio = info.audioPIDs.first, bytes.count % packetSize == 0 else { return bytes }
        let count = bytes.count / packetSize
        func pid(_ i: Int) -> Int { Int(bytes[i * packetSize + 1] & 0x1F) << 8 | Int(bytes[i * packetSize + 2]) }
        func starts(_ i: Int) -> Bool { bytes[i * packetSize + 1] & 0x40 != 0 }
        guard let firstVideo = (0..<count).first(where: { pid($0) == video }),
            let pesStart = (firstVideo..<count).first(where: { pid($0) == audio && starts($0) })
        else { return bytes }
        var moved = [pesStart]
        for i in (pesStart + 1)..<count where pid(i) == audio {
            if starts(i) { break }
            moved.append(i)
        }
        let movedSet = Set(moved)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        func append(_ i: Int) { out.append(contentsOf: bytes[(i * packetSize)..<((i + 1) * packetSize)]) }
        for i in 0..<firstVideo { append(i) }
        for i in moved { append(i) }
        for i in firstVideo..<count where !movedSet.contains(i) { append(i) }
        return out
    }

    /// CRC-32/MPEG-2 (polynomial 0x04C11DB7, not reflected), as PSI sections carry it.
    static func crc32MPEG2(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    /// For a first packet carrying a PSI section (PAT, CAT, NIT, SDT, EIT: PIDs 0–0x12): whether its CRC holds; nil for other packets.
    public static func firstSectionIsIntact(_ bytes: [UInt8]) -> Bool? {
        guard bytes.count >= packetSize, bytes[0] == 0x47 else { return nil }
        let pid = Int(bytes[1] & 0x1F) << 8 | Int(bytes[2])
        guard pid <= 0x12, bytes[1] & 0x40 != 0 else { return nil }
        guard let s = sectionBounds(bytes) else { return false }
        return crc32MPEG2(bytes[s.table..<(s.crcAt + 4)]) == 0
    }

    /// Where the PSI section a packet starts stands (ISO/IEC 13818-1 §2.4.4): `table` its first byte (table_id), `crcAt` its
    /// CRC_32; nil when the section does not fit in the packet.
    static func sectionBounds(_ p: [UInt8]) -> (table: Int, crcAt: Int)? {
        guard p.count >= packetSize else { return nil }
        var start = 4
        if (p[3] >> 4) & 0x2 != 0 { start += 1 + Int(p[4]) }
        guard start < packetSize else { return nil }
        let table = start + 1 + Int(p[start])
        guard table + 3 <= packetSize else { return nil }
        let length = Int(p[table + 1] & 0x0F) << 8 | Int(p[table + 2])
        guard length >= 4, table + 3 + length <= packetSize else { return nil }
        return (table, table + 3 + length - 4)
    }

    /// The CRC_32 of `section`, as its four bytes.
    static func crcBytes(_ section: ArraySlice<UInt8>) -> [UInt8] {
        let crc = crc32MPEG2(section)
        return (0..<4).map { UInt8(truncatingIfNeeded: crc >> (24 - 8 * $0)) }
    }
}

extension TransportStream {
    /// Where each video PES begins, in stream (decode) order: the offset of the packet that starts it and its decode time
    /// (DTS, or PTS when the header has no DTS; 90 kHz). `videoPID` for bytes without the PAT and PMT (a slice of a stream).
    public static func videoPESStarts(_ bytes: [UInt8], videoPID: Int? = nil) -> [(offset: Int, dts: UInt64)] {
        guard let video = videoPID ?? probe(bytes).videoPID else { return [] }
        return bytes.withUnsafeBufferPointer { p in
            var out: [(offset: Int, dts: UInt64)] = []
            var offset = 0
            while offset + packetSize <= p.count {
                defer { offset += packetSize }
                guard p[offset] == 0x47, p[offset + 1] & 0x40 != 0 else { continue }
                let pid = Int(p[offset + 1] & 0x1F) << 8 | Int(p[offset + 2])
                let afc = (p[offset + 3] >> 4) & 0x3
                guard pid == video, afc & 0x1 != 0 else { continue }
                var start = offset + 4
                if afc & 0x2 != 0 { start += 1 + Int(p[offset + 4]) }
                guard start + 19 <= offset + packetSize, p[start] == 0, p[start + 1] == 0, p[start + 2] == 1,
                    p[start + 7] & 0x80 != 0
                else { continue }
                // PTS_DTS_flags 11: the DTS follows the PTS.
                out.append((offset, timestamp(p, p[start + 7] & 0xC0 == 0xC0 ? start + 14 : start + 9)))
            }
            return out
        }
    }
}

extension TransportStream {
    /// How long the video of a segment lasts: from its first decode time to its last plus one frame (the median step between
    /// decode times, one PES per frame as packagers write them); nil with fewer than two video frames. The MPEG-TS wrap is
    /// crossed.
    public static func videoDuration(_ bytes: [UInt8]) -> Double? {
        let dts = videoPESStarts(bytes).map(\.dts)
        guard dts.count >= 2 else { return nil }
        let wrap: UInt64 = 1 << 33
        let steps = zip(dts, dts.dropFirst()).map { ($1 &+ wrap &- $0) % wrap }.sorted()
        let frame = steps[steps.count / 2]
        let span = steps.reduce(UInt64(0), +)
        return Double(span + frame) / 90_000
    }
}

extension TransportStream {
    /// The elementary stream of the first video PES packet (ISO/IEC 13818-1 §2.4.3.6): the payloads of the video PID from
    /// the first PES start to the next, its PES header taken off; with the video's stream_type. Nil without a video stream.
    public static func firstVideoAccessUnit(_ bytes: [UInt8]) -> (payload: [UInt8], streamType: UInt8)? {
        let info = probe(bytes)
        guard let video = info.videoPID, let type = info.streamTypes[video], let first = info.firstVideoPESOffset else { return nil }
        var out: [UInt8] = []
        var offset = first
        var started = false
        while offset + packetSize <= bytes.count {
            defer { offset += packetSize }
            guard bytes[offset] == 0x47 else { continue }
            let pusi = bytes[offset + 1] & 0x40 != 0
            let pid = Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2])
            let afc = (bytes[offset + 3] >> 4) & 0x3
            guard pid == video, afc & 0x1 != 0 else { continue }
            var start = offset + 4
            if afc & 0x2 != 0 { start += 1 + Int(bytes[offset + 4]) }
            let end = offset + packetSize
            guard start < end else { continue }
            if pusi {
                if started { break }
                started = true
                // 00 00 01 stream_id length(2) flags(2) header_length, then the header's fields.
                guard start + 9 <= end else { return nil }
                start += 9 + Int(bytes[start + 8])
                guard start <= end else { return nil }
            }
            if started { out += bytes[start..<end] }
        }
        return out.isEmpty ? nil : (out, type)
    }

    /// Whether a segment opens with a frame decodable on its own: its first video access unit holds an IDR picture (H.264
    /// NAL type 5, ITU-T H.264 §7.4.1.2) or an IRAP picture (HEVC NAL types 16–23, ITU-T H.265 §7.4.2.2). Nil when there is no
    /// video, or its codec is neither.
    public static func opensIndependently(_ bytes: [UInt8]) -> Bool? {
        guard let (au, type) = firstVideoAccessUnit(bytes) else { return nil }
        switch type {
        case 0x1B, 0xDB: return H264.nalTypes(annexB: au).contains(5)
        case 0x24: return H264.nalTypes(annexB: au, hevc: true).contains { (16...23).contains($0) }
        default: return nil
        }
    }
}

extension TransportStream {
    /// The segment without the packets of its first video PES (its first access unit, here its IDR picture): it then opens
    /// on a frame that needs an earlier one, as a packager that cuts off its GOPs does (the origin's `?nonidr=`).
    public static func droppingFirstVideoAccessUnit(_ bytes: [UInt8]) -> [UInt8] {
        guard let video = probe(bytes).videoPID else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var starts = 0
        var offset = 0
        while offset + packetSize <= bytes.count {
            defer { offset += packetSize }
            let packet = bytes[offset..<(offset + packetSize)]
            let pid = Int(packet[offset + 1] & 0x1F) << 8 | Int(packet[offset + 2])
            if pid == video, packet[offset] == 0x47 {
                if packet[offset + 1] & 0x40 != 0 { starts += 1 }
                if starts <= 1 { continue }
            }
            out += packet
        }
        return out
    }
}

extension TransportStream {
    /// The PES packets of `pids` (ISO/IEC 13818-1 §2.4.3.6) put together from their TS packets, in the order they start: each
    /// with its PID, its PTS (§2.4.3.7; nil when the header has none) and its payload (to PES_packet_length when that is not
    /// 0). A PES begun before `bytes` is left out, as is one whose header is cut; one cut at the end keeps what arrived (a
    /// packet cut short is dropped).
    static func pesPackets(_ bytes: [UInt8], pids: Set<Int>) -> [(pid: Int, pts: UInt64?, payload: [UInt8])] {
        var raw: [(pid: Int, bytes: [UInt8])] = []
        var open: [Int: Int] = [:]
        var o = 0
        while o + packetSize <= bytes.count {
            defer { o += packetSize }
            guard bytes[o] == 0x47 else { continue }
            let pid = Int(bytes[o + 1] & 0x1F) << 8 | Int(bytes[o + 2])
            guard pids.contains(pid) else { continue }
            let afc = (bytes[o + 3] >> 4) & 0x3
            guard afc & 0x1 != 0 else { continue }
            var start = o + 4
            if afc & 0x2 != 0 { start += 1 + Int(bytes[o + 4]) }
            guard start < o + packetSize else { continue }
            if bytes[o + 1] & 0x40 != 0 {
                open[pid] = raw.count
                raw.append((pid, []))
            }
            if let i = open[pid] { raw[i].bytes += bytes[start..<(o + packetSize)] }
        }
        return raw.compactMap { pid, pes in
            guard pes.count >= 9, pes[0] == 0, pes[1] == 0, pes[2] == 1 else { return nil }
            let headerEnd = 9 + Int(pes[8])
            guard headerEnd <= pes.count else { return nil }
            let pts = pes[7] & 0x80 != 0 && pes.count >= 14 ? pes.withUnsafeBufferPointer { timestamp($0, 9) } : nil
            let declared = Int(pes[4]) << 8 | Int(pes[5])
            let end = declared > 0 ? min(pes.count, 6 + declared) : pes.count
            return (pid, pts, Array(pes[headerEnd..<max(headerEnd, end)]))
        }
    }
}
