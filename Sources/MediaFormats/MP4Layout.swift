/// Where the top-level boxes of an MP4 file lie (ISO/IEC 14496-12 §4.2), and what that costs a player that reads it over
/// HTTP: read from bytes fetched at known offsets, one box header after another, so a URL needs only a few small ranges.
public struct MP4Layout: Sendable, Equatable {
    /// The file's length in bytes.
    public let size: Int
    /// The top-level boxes found so far, in file order.
    public private(set) var boxes: [Box] = []
    /// Where the next top-level box header starts (`size` once every box is known).
    public private(set) var next = 0
    /// The major brand of `ftyp`.
    public private(set) var brand: String?
    /// `moov` holds an `mvex` box (ISO/IEC 14496-12 §8.8.1): the media is in fragments; nil until `moov` was read.
    public private(set) var movieExtends: Bool?
    /// Why the box structure cannot be followed (a size that runs past the file, a type that is not text).
    public private(set) var broken: String?
    /// The movie's duration in seconds from `mvhd` (ISO/IEC 14496-12 §8.2.2); nil until `moov` was read, or when it says none
    /// (a fragmented file's `mvhd` may leave it 0).
    public private(set) var duration: Double?

    public init(size: Int) { self.size = size }

    /// Every top-level box is known (or the structure is broken).
    public var complete: Bool { next >= size || broken != nil }

    /// The bytes to read next: the next box's header, or all of `moov` once its header is known (its children say whether
    /// the file is fragmented).
    public var needed: Range<Int>? {
        if let m = moov, movieExtends == nil { return m.offset..<(m.offset + m.size) }
        return complete ? nil : next..<min(size, next + 16)
    }

    /// Reads the boxes in `bytes`, which start at file offset `offset`: every header that follows the last one known.
    public mutating func feed(_ bytes: [UInt8], at offset: Int) {
        if let m = moov, movieExtends == nil, offset <= m.offset, offset + bytes.count >= m.offset + m.size {
            readMovie(bytes, Box(type: "moov", offset: m.offset - offset, headerSize: m.headerSize, size: m.size))
        }
        while !complete, next >= offset, next < offset + bytes.count {
            let local = next - offset
            // A header that runs past what was read is asked for next.
            guard local + 8 <= bytes.count, FragmentedMP4.u32(bytes, local) != 1 || local + 16 <= bytes.count else { return }
            guard let b = FragmentedMP4.header(bytes, at: local, end: bytes.count) else {
                broken = "no box at byte \(next): the file is not MP4 there"
                return
            }
            var box = Box(type: b.type, offset: next, headerSize: b.headerSize, size: b.size)
            // A size of 0 runs to the end of the file, not of what was read.
            if Int(FragmentedMP4.u32(bytes, next - offset)) == 0 { box.size = size - next }
            guard box.offset + box.size <= size else {
                broken = "box \(box.type) at byte \(next) is \(box.size) bytes, past the end of the \(size)-byte file"
                return
            }
            if box.type == "ftyp", box.offset + 12 <= offset + bytes.count {
                brand = String(decoding: bytes[(next - offset + 8)..<(next - offset + 12)], as: UTF8.self)
            }
            boxes.append(box)
            next = box.offset + box.size
            if box.type == "moov", movieExtends == nil, offset + bytes.count >= box.offset + box.size {
                readMovie(bytes, Box(type: "moov", offset: box.offset - offset, headerSize: box.headerSize, size: box.size))
            }
        }
    }

    /// What `moov` (at `local` in `bytes`) says: fragments (`mvex`) and the movie's duration (`mvhd`, version 0 or 1).
    mutating func readMovie(_ bytes: [UInt8], _ local: Box) {
        movieExtends = FragmentedMP4.child(bytes, local, "mvex") != nil
        guard let h = FragmentedMP4.child(bytes, local, "mvhd") else { return }
        let body = h.offset + h.headerSize
        let v1 = bytes[body] == 1
        guard body + (v1 ? 32 : 20) <= h.offset + h.size else { return }
        let scale = FragmentedMP4.u32(bytes, body + (v1 ? 20 : 12))
        let units = v1 ? FragmentedMP4.u64(bytes, body + 24) : UInt64(FragmentedMP4.u32(bytes, body + 16))
        // All ones: the duration is not known (ISO/IEC 14496-12 §8.2.2.3).
        guard scale > 0, units > 0, units != (v1 ? UInt64.max : UInt64(UInt32.max)) else { return }
        duration = Double(units) / Double(scale)
    }

    /// Reads the layout of a `size`-byte file whose first bytes are `first`, asking `read` for the ranges it needs next (each at
    /// least `chunk` bytes, so small boxes come together; at most 32 reads): a few small reads, never the whole file.
    public static func scan<E: Error>(
        size: Int, first: [UInt8], chunk: Int = 65_536, read: (Range<Int>) async throws(E) -> [UInt8]
    ) async throws(E) -> MP4Layout {
        var layout = MP4Layout(size: size)
        layout.feed(first, at: 0)
        guard layout.startsLikeMP4 else { return layout }
        var steps = 0
        while !layout.enough, let need = layout.needed, steps < 32 {
            steps += 1
            let range = need.lowerBound..<min(size, max(need.upperBound, need.lowerBound + chunk))
            let bytes = try await read(range)
            let before = (layout.boxes.count, layout.movieExtends)
            layout.feed(bytes, at: range.lowerBound)
            if (layout.boxes.count, layout.movieExtends) == before && layout.broken == nil { break }
        }
        return layout
    }

    /// The first box is one an MP4 file starts with.
    public var startsLikeMP4: Bool { boxes.first.map { ["ftyp", "styp", "moov", "free", "mdat"].contains($0.type) } == true }

    /// Enough is known to say what a player needs: `moov` and what it holds, and where the media starts.
    public var enough: Bool {
        if broken != nil { return true }
        // `moov` itself is read, wherever it lies: it says whether the media is in fragments, and how long the movie is.
        if moov != nil && movieExtends == nil { return false }
        return complete || (moov != nil && boxes.contains { $0.type == "mdat" || $0.type == "moof" })
    }

    public var moov: Box? { boxes.first { $0.type == "moov" } }
    public var firstMdat: Box? { boxes.first { $0.type == "mdat" } }
    /// The media is in fragments (`moof` boxes, or `mvex` in `moov`).
    public var fragmented: Bool { boxes.contains { $0.type == "moof" } || movieExtends == true }

    /// `moov` comes before the media: a player reading from the start has it first.
    public var moovFirst: Bool? {
        guard let m = moov else { return nil }
        guard let d = firstMdat ?? boxes.first(where: { $0.type == "moof" }) else { return true }
        return m.offset < d.offset
    }

    /// The ranges a player reading over HTTP asks for before its first frame, in order: from the start; when `moov` lies
    /// after the media, `moov` itself (a second round trip), then back to the media (a third).
    public var playerRequests: [Range<Int>] {
        guard let m = moov else { return [0..<size] }
        guard moovFirst == false, let d = firstMdat else { return [0..<size] }
        return [0..<size, m.offset..<(m.offset + m.size), (d.offset + d.headerSize)..<size]
    }
}
