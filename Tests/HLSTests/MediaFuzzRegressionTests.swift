import MediaFormats
import Testing

/// Inputs the media fuzz target (Fuzz/FuzzMedia.swift) found trapping, each kept as a test and in its corpus.
@Suite("Media parsers on bytes the fuzzer found: no trap, nothing read")
struct MediaFuzzRegressionTests {
    @Test("a 64-bit box size near 2^64 (offset + size overflowed): not a box")
    func hugeBoxSize() {
        var bytes: [UInt8] = [0, 0, 0, 1] + Array("moof".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0]
        bytes += [UInt8](repeating: 0, count: 32)
        #expect(FragmentedMP4.header(bytes, at: 0, end: bytes.count) == nil)
        #expect(FragmentedMP4.firstDecodeTimes(segment: bytes).isEmpty)
        #expect(FragmentedMP4.boxes(bytes) == nil)
        let large = [0, 0, 0, 8] + Array("free".utf8) + bytes
        #expect(FragmentedMP4.firstDecodeTimes(segment: large).isEmpty)
        #expect(FragmentSplit.videoDuration(segment: large, tracks: [MP4Track(id: 1, timescale: 90_000, handler: "vide")]) == nil)
    }
}
