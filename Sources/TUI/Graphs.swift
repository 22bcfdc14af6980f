import Session

/// Block sparklines for the history plots (pure): a series, newest at the right, in `rows` rows of block characters.
public enum Sparkline {
    /// Eighths of a cell, bottom up.
    static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    /// Without UTF-8: quarters of a cell.
    static let asciiBlocks: [Character] = [" ", ".", "-", "=", "#"]

    /// `values` (one a second, oldest first) drawn into `width` columns, `secondsPerColumn` seconds a column (the mean of the
    /// known values in it; a column with none is a hole, drawn blank), scaled so that `top` fills all `rows`; top row first.
    public static func render(_ values: [Double?], width: Int, rows: Int, secondsPerColumn: Int, top: Double, ascii: Bool = false)
        -> [String]
    {
        guard width > 0, rows > 0 else { return [] }
        let glyphs = ascii ? asciiBlocks : blocks
        let steps = glyphs.count - 1
        let per = max(1, secondsPerColumn)
        let cols = columns(values, width: width, secondsPerColumn: per)
        var out = Array(repeating: [Character](repeating: " ", count: width), count: rows)
        for (x, v) in cols.enumerated() {
            guard let v else { continue }
            // At least one step for any value above zero, so a small figure is not drawn as nothing.
            let level = top > 0 ? min(rows * steps, max(v > 0 ? 1 : 0, Int((v / top * Double(rows * steps)).rounded()))) : 0
            for r in 0..<rows {
                let fill = min(steps, max(0, level - r * steps))
                out[rows - 1 - r][x] = glyphs[fill]
            }
        }
        return out.map { String($0) }
    }

    /// The `width` column values, newest at the right: each the mean of the known values in its seconds.
    static func columns(_ values: [Double?], width: Int, secondsPerColumn per: Int) -> [Double?] {
        var cols = [Double?](repeating: nil, count: width)
        var end = values.count
        for x in stride(from: width - 1, through: 0, by: -1) {
            let start = end - per
            guard end > 0 else { break }
            let known = values[max(0, start)..<end].compactMap { $0 }
            cols[x] = known.isEmpty ? nil : known.reduce(0, +) / Double(known.count)
            end = start
        }
        return cols
    }

    /// The largest value in what `width` columns show: the scale's top.
    public static func top(_ values: [Double?], width: Int, secondsPerColumn: Int) -> Double {
        columns(values, width: width, secondsPerColumn: max(1, secondsPerColumn)).compactMap { $0 }.max() ?? 0
    }
}

/// One request as a bar on the waterfall's shared time axis.
public struct WaterfallRow: Sendable, Equatable {
    public var label: String
    /// Session seconds: when the request started, its first byte arrived (nil: no answer) and it ended.
    public var start: Double
    public var firstByte: Double?
    public var end: Double
    public var role: Role
    /// Drawn after the bar where there is room: what the answer's CMSD said (docs/CMCD.md).
    public var note: String?

    public init(label: String, start: Double, firstByte: Double?, end: Double, role: Role, note: String? = nil) {
        self.note = note
        self.label = label
        self.start = start
        self.firstByte = firstByte
        self.end = end
        self.role = role
    }
}

/// The request log as a waterfall (pure): each request a bar from its start to its end, waiting for the first byte drawn
/// light, the transfer solid, on one time axis from the first request shown to the last one's end.
public enum Waterfall {
    public static func render(_ rows: [WaterfallRow], width: Int, ascii: Bool = false) -> (
        axis: (from: Double, to: Double)?, bars: [String]
    ) {
        guard width > 0, let from = rows.map(\.start).min(), let to = rows.map(\.end).max() else { return (nil, []) }
        let span = max(to - from, 0.001)
        let (wait, transfer): (Character, Character) = ascii ? ("-", "#") : ("░", "█")
        func column(_ t: Double) -> Int { min(width - 1, max(0, Int(((t - from) / span * Double(width)).rounded(.down)))) }
        let bars = rows.map { r -> String in
            var line = [Character](repeating: " ", count: width)
            let a = column(r.start)
            let b = column(max(r.start, r.end))
            let f = r.firstByte.map { column(min(max($0, r.start), r.end)) } ?? b + 1
            for x in a...b { line[x] = x < f ? wait : transfer }
            return String(line)
        }
        return ((from, to), bars)
    }
}
