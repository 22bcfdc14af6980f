import HLS
import Testing

/// One attribute-list case: the text, the attributes expected (name, value, quoted), and a diagnostic fragment expected or nil.
struct AttributeCase: Sendable, CustomStringConvertible {
    var text: String
    var expected: [(String, String, Bool)]
    var diagnostic: String?
    var description: String { text }
}

@Suite("§4.2 Attribute Lists")
struct AttributeListTests {
    static let cases: [AttributeCase] = [
        AttributeCase(
            text: #"BANDWIDTH=1280000,CODECS="avc1.4d401f,mp4a.40.2""#,
            expected: [("BANDWIDTH", "1280000", false), ("CODECS", "avc1.4d401f,mp4a.40.2", true)], diagnostic: nil),
        AttributeCase(text: #"NAME="",LANGUAGE="en""#, expected: [("NAME", "", true), ("LANGUAGE", "en", true)], diagnostic: nil),
        AttributeCase(
            text: "IV=0x9358382AEB449EE23C3D809DA0B9CCD3", expected: [("IV", "0x9358382AEB449EE23C3D809DA0B9CCD3", false)], diagnostic: nil),
        AttributeCase(
            text: "RESOLUTION=1920x1080,FRAME-RATE=29.970",
            expected: [("RESOLUTION", "1920x1080", false), ("FRAME-RATE", "29.970", false)], diagnostic: nil),
        AttributeCase(
            text: "TIME-OFFSET=-12.5,PRECISE=YES", expected: [("TIME-OFFSET", "-12.5", false), ("PRECISE", "YES", false)], diagnostic: nil),
        AttributeCase(text: #"URI="a,b=c""#, expected: [("URI", "a,b=c", true)], diagnostic: nil),
        AttributeCase(text: #"URI="unterminated"#, expected: [("URI", "unterminated", true)], diagnostic: "is not closed"),
        AttributeCase(text: "BANDWIDTH", expected: [], diagnostic: "has no value"),
        AttributeCase(text: "A=1,A=2", expected: [("A", "2", false)], diagnostic: "appears more than once"),
        AttributeCase(text: "bandwidth=1", expected: [("BANDWIDTH", "1", false)], diagnostic: "must use only A-Z"),
        AttributeCase(text: "A=1, B=2", expected: [("A", "1", false), ("B", "2", false)], diagnostic: "white space"),
        AttributeCase(text: #"URI="x"junk,B=2"#, expected: [("URI", "x", true), ("B", "2", false)], diagnostic: "unexpected"),
        AttributeCase(text: "A=,B=2", expected: [("A", "", false), ("B", "2", false)], diagnostic: "empty value"),
        AttributeCase(text: "A=1,,B=2", expected: [("A", "1", false), ("B", "2", false)], diagnostic: "empty attribute"),
        AttributeCase(text: "", expected: [], diagnostic: nil),
    ]

    @Test("tokenizes names, quoted and unquoted values, and reports malformed input with a column", arguments: cases)
    func tokenize(_ c: AttributeCase) {
        var d: [Diagnostic] = []
        let list = AttributeList.parse(Substring(c.text), line: 7, column: 10, diagnostics: &d)
        #expect(list.attributes.map { $0.name } == c.expected.map { $0.0 })
        #expect(list.attributes.map { $0.value } == c.expected.map { $0.1 })
        #expect(list.attributes.map { $0.quoted } == c.expected.map { $0.2 })
        if let frag = c.diagnostic {
            #expect(d.contains { $0.message.contains(frag) && $0.line == 7 && ($0.column ?? 0) >= 10 }, "\(d)")
        } else {
            #expect(d.isEmpty, "\(d)")
        }
    }

    @Test("the column points at the attribute name")
    func columns() {
        var d: [Diagnostic] = []
        let list = AttributeList.parse("AB=1,CD=2", line: 1, column: 19, diagnostics: &d)
        #expect(list.attributes.map(\.column) == [19, 24])
    }

    @Test(
        "typed values: decimal-integer, floats, resolution, hex, enumerations",
        arguments: [
            (#"#EXT-X-STREAM-INF:BANDWIDTH=1280000.0"#, "not a decimal-integer; read as 1280000"),
            (#"#EXT-X-STREAM-INF:BANDWIDTH=99999999999999999999999"#, "not a decimal-integer"),
            (#"#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=1920*1080"#, "not a decimal-resolution"),
            (#"#EXT-X-STREAM-INF:BANDWIDTH=1,FRAME-RATE=fast"#, "not a decimal-floating-point"),
            (#"#EXT-X-STREAM-INF:BANDWIDTH=1,HDCP-LEVEL=TYPE-9"#, "not one of TYPE-0, TYPE-1, NONE"),
            (#"#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=avc1"#, "must be in double quotes"),
            (#"#EXT-X-STREAM-INF:BANDWIDTH="1""#, "must not be quoted"),
        ])
    func typedValues(_ tag: String, _ message: String) {
        let r = parse("#EXTM3U\n\(tag)\nv.m3u8\n")
        #expect(r.has(.error, message, line: 2) || r.has(.warning, message, line: 2), "\(r.diagnostics)")
    }

    @Test("a float BANDWIDTH is still read")
    func floatBandwidth() {
        let r = parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1280000.0\nv.m3u8\n")
        #expect(r.multivariantPlaylist.variants.first?.bandwidth == 1_280_000)
    }
}
