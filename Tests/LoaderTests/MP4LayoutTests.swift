import Testing
@testable import MediaFormats

@Suite("MP4 layout: the top-level boxes read a header at a time, and what a player needs before its first frame")
struct MP4LayoutTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let n = UInt32(8 + payload.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + payload
    }
    static let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8))
    static let mdat = box("mdat", [UInt8](repeating: 7, count: 5000))
    static func moov(fragmented: Bool) -> [UInt8] {
        box(
            "moov",
            box("mvhd", [UInt8](repeating: 0, count: 100)) + (fragmented ? box("mvex", box("trex", [UInt8](repeating: 0, count: 24))) : []))
    }

    /// Walks `file` as inspect does over HTTP: a first read of `first` bytes, then what the layout asks for, 64 bytes at a time.
    static func walk(_ file: [UInt8], first: Int) -> (MP4Layout, reads: Int) {
        var l = MP4Layout(size: file.count)
        l.feed(Array(file.prefix(first)), at: 0)
        var reads = 1
        while !l.enough, let need = l.needed, reads < 50 {
            let r = need.lowerBound..<min(file.count, max(need.upperBound, need.lowerBound + 64))
            l.feed(Array(file[r]), at: r.lowerBound)
            reads += 1
        }
        return (l, reads)
    }

    @Test("moov at the front: one request from the start is all a player needs")
    func front() {
        let file = Self.ftyp + Self.moov(fragmented: false) + Self.mdat
        let (l, _) = Self.walk(file, first: 1000)
        #expect(l.brand == "isom" && l.moovFirst == true && l.fragmented == false && l.broken == nil)
        #expect(l.boxes.map(\.type) == ["ftyp", "moov", "mdat"])
        #expect(l.playerRequests == [0..<file.count])
    }

    @Test("moov at the end: found by box sizes past the media, and a second and third request before the first frame")
    func end() {
        let file = Self.ftyp + Self.mdat + Self.moov(fragmented: false)
        let (l, reads) = Self.walk(file, first: 64)
        let moovAt = Self.ftyp.count + Self.mdat.count
        #expect(l.moov?.offset == moovAt && l.moovFirst == false)
        #expect(reads <= 3, "the media is skipped by its size, not read: \(reads) reads")
        #expect(l.playerRequests == [0..<file.count, moovAt..<file.count, (Self.ftyp.count + 8)..<file.count])
    }

    @Test("fragmented: mvex in moov, moof fragments")
    func fragmented() {
        let frag = Self.box("moof", Self.box("mfhd", [0, 0, 0, 0, 0, 0, 0, 1])) + Self.box("mdat", [1, 2, 3])
        let file = Self.ftyp + Self.moov(fragmented: true) + frag + frag
        let (l, _) = Self.walk(file, first: 64)
        #expect(l.fragmented && l.movieExtends == true && l.moovFirst == true)
    }

    @Test("a size past the end of the file, or bytes that are not a box, are named")
    func broken() {
        var file = Self.ftyp + Self.mdat
        file[Self.ftyp.count + 2] = 0xFF // mdat claims far more than the file holds
        let (l, _) = Self.walk(file, first: 64)
        #expect(l.broken?.contains("past the end") == true, "\(String(describing: l.broken))")
        let junk = Self.ftyp + [UInt8](repeating: 0xFF, count: 40)
        #expect(Self.walk(junk, first: 64).0.broken?.contains("not MP4") == true)
    }

    static func be(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(v >> (8 * UInt64(n - 1 - $0)) & 0xFF) } }

    @Test("the movie's duration from mvhd, version 0 and 1; none when it says all ones or nothing")
    func duration() async {
        // version 0: creation, modification, timescale, duration (32-bit); version 1: 64-bit times and duration.
        let v0 = Self.box("mvhd", [0, 0, 0, 0] + Self.be(0, 8) + Self.be(1000, 4) + Self.be(20_500, 4) + [UInt8](repeating: 0, count: 80))
        let v1 = Self.box(
            "mvhd", [1, 0, 0, 0] + Self.be(0, 16) + Self.be(90_000, 4) + Self.be(90_000 * 3600, 8) + [UInt8](repeating: 0, count: 80))
        let unknown = Self.box(
            "mvhd", [0, 0, 0, 0] + Self.be(0, 8) + Self.be(1000, 4) + Self.be(0xFFFF_FFFF, 4) + [UInt8](repeating: 0, count: 80))
        for (mvhd, want) in [(v0, 20.5), (v1, 3600.0), (unknown, nil)] as [([UInt8], Double?)] {
            let file = Self.ftyp + Self.mdat + Self.box("moov", mvhd)
            // Read as the Loader and inspect read it: a first range, then what the layout needs.
            var reads: [Range<Int>] = []
            let l = await MP4Layout.scan(size: file.count, first: Array(file.prefix(64)), chunk: 64) { r in
                reads.append(r)
                return Array(file[r])
            }
            #expect(l.duration == want && l.moovFirst == false && l.startsLikeMP4, "\(String(describing: l.duration)) \(l.boxes) \(reads)")
            #expect(reads.allSatisfy { $0.lowerBound >= Self.ftyp.count + Self.mdat.count }, "the media is never read: \(reads)")
        }
        let notMP4 = await MP4Layout.scan(size: 100, first: Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8), chunk: 64) { _ in [] }
        #expect(!notMP4.startsLikeMP4)
    }
}
