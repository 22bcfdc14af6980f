import MediaFormats
import Testing

/// Timed metadata in the media (docs/EVENTS.md): ID3v2 tags and `emsg` boxes, read as the Loader reads them.
@Suite("Timed metadata: ID3 tags and emsg boxes")
struct TimedMetadataTests {
    @Test("an ID3v2.4 tag of TXXX frames reads back; v2.3 sizes, PRIV owners and UTF-16 text frames read too; not a tag: nil")
    func id3() {
        let tag = ID3.tag([("hlstui", "segment 3"), ("pdt", "2026-01-01T00:00:06.000Z")])
        #expect(
            ID3.frames(tag) == [
                ID3.Frame(id: "TXXX", text: "hlstui=segment 3"), ID3.Frame(id: "TXXX", text: "pdt=2026-01-01T00:00:06.000Z"),
            ])
        // ID3v2.3: plain 32-bit frame sizes; a PRIV frame (owner, then binary) and a TIT2 in UTF-16 with a byte order mark.
        let priv: [UInt8] = Array("com.apple.streaming.transportStreamTimestamp".utf8) + [0] + [0, 0, 0, 0, 0, 0, 0x1F, 0x40]
        let title: [UInt8] = [1, 0xFF, 0xFE] + Array("Hi".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        func frame(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + [0, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + [0, 0] + body
        }
        let frames = frame("PRIV", priv) + frame("TIT2", title)
        let v23: [UInt8] = Array("ID3".utf8) + [3, 0, 0] + [0, 0, UInt8(frames.count >> 7), UInt8(frames.count & 0x7F)] + frames
        #expect(
            ID3.frames(v23) == [
                ID3.Frame(id: "PRIV", text: "com.apple.streaming.transportStreamTimestamp (8 bytes)"), ID3.Frame(id: "TIT2", text: "Hi"),
            ])
        #expect(ID3.frames(Array("not a tag at all".utf8)) == nil)
    }

    @Test("emsg: a version 1 box's own time; a version 0 box's delta after the segment's start; other boxes passed over")
    func emsg() {
        let v1 = EventMessage.box(
            scheme: EventMessage.id3Scheme, value: "x", timescale: 90_000, presentationTime: 900_000, duration: 180_000, id: 7,
            data: [1, 2, 3])
        let moof: [UInt8] = [0, 0, 0, 8] + Array("moof".utf8)
        let read = EventMessage.all(in: v1 + moof)
        #expect(
            EventMessage.all(in: v1 + moof + [0, 0, 0x10, 0, 0x6D, 0x64, 0x61, 0x74, 1, 2]) == read,
            "the first bytes of a segment, its mdat cut off (the Loader's probe): the emsg still read")
        #expect(
            read == [EventMessage(scheme: EventMessage.id3Scheme, value: "x", time: 10, duration: 2, id: 7, data: [1, 2, 3])],
            "\(read)")
        // Version 0: scheme and value first, then timescale, presentation_time_delta, duration (unknown), id.
        let payload: [UInt8] =
            [0, 0, 0, 0] + Array("urn:x".utf8) + [0] + [0] + [0, 0, 0x03, 0xE8] + [0, 0, 0x01, 0xF4] + [0xFF, 0xFF, 0xFF, 0xFF]
            + [0, 0, 0, 9] + [42]
        let v0 = [0, 0, 0, UInt8(8 + payload.count)] + Array("emsg".utf8) + payload
        #expect(
            EventMessage.all(in: v0 + moof, segmentStart: 20) == [
                EventMessage(scheme: "urn:x", value: "", time: 20.5, duration: nil, id: 9, data: [42])
            ])
    }
}
