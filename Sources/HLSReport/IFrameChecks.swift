import HLS
import JSONValue

/// What `inspect --media` read of one I-frame playlist (EXT-X-I-FRAME-STREAM-INF): each segment is one I-frame (RFC 8216bis
/// §4.4.3.6), so each byte range must open with an independent frame.
public struct IFrameMeasure: Sendable, Equatable {
    public var name: String
    /// Ranges read (all, or a sample) and how many the playlist lists.
    public var measured: Int
    public var listed: Int
    /// The msn of each range read that does not open with an independent frame.
    public var dependent: [Int] = []
    public init(name: String, measured: Int, listed: Int, dependent: [Int] = []) {
        (self.name, self.measured, self.listed, self.dependent) = (name, measured, listed, dependent)
    }
}

public enum IFrameChecks {
    /// `iframe-not-independent`: a range that does not open with an IDR (H.264) or IRAP picture (HEVC), or a first sample
    /// not marked sync (fMP4) — a trick-play that decodes nothing, or garbage, at that point.
    public static func findings(_ m: IFrameMeasure, index: Int) -> [MediaFinding] {
        guard !m.dependent.isEmpty else { return [] }
        let list = m.dependent.prefix(5).map(String.init).joined(separator: ", ") + (m.dependent.count > 5 ? ", …" : "")
        return [
            MediaFinding(
                rule: "iframe-not-independent", must: true, section: "RFC 8216bis §4.4.3.6", variant: index,
                message:
                    "\(m.name): \(m.dependent.count) of \(m.measured) I-frame ranges do not open with an independent frame (msn \(list)): each segment of an I-frame playlist is one I-frame"
            )
        ]
    }

    public static func text(_ measures: [IFrameMeasure]) -> [String] {
        measures.map { m in
            "  I-frames \(m.name)  \(m.measured) of \(m.listed) ranges, "
                + (m.dependent.isEmpty ? "each an independent frame" : "\(m.dependent.count) not independent")
        }
    }

    public static func json(_ measures: [IFrameMeasure]) -> JSONValue {
        .array(
            measures.map { m in
                .object([
                    ("name", .string(m.name)), ("measured", .int(m.measured)), ("listed", .int(m.listed)),
                    ("dependent", .array(m.dependent.map { .int($0) })),
                ])
            })
    }
}
