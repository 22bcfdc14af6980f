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
            let local = Box(type: "moov", offset: m.offset - offset, headerSize: m.headerSize, size: m.size)
            movieExtends = FragmentedMP4.child(bytes, local, "mvex") != nil
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
                let local = Box(type: "moov", offset: box.offset - offset, headerSize: box.headerSize, size: box.size)
                movieExtends = FragmentedMP4.child(bytes, local, "mvex") != nil
            }
        }
    }

    /// Enough is known to say what a player needs: `moov` and what it holds, and where the media starts.
    public var enough: Bool {
        complete || (moov != nil && movieExtends != nil && boxes.contains { $0.type == "mdat" || $0.type == "moof" })
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
