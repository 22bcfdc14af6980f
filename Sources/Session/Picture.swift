/// A frame reduced to what frozen and black detection need: the mean luma of a 16×9 grid of blocks (pure).
public struct LumaGrid: Sendable, Equatable {
    public static let columns = 16
    public static let rows = 9
    /// Block means, row by row, 0…255 (full-range luma, BT.601 weights).
    public var cells: [Double]

    public init(cells: [Double]) { self.cells = cells }

    /// The grid of a `bgr0` frame (4 bytes a pixel, rows `stride` bytes apart), every second pixel of every second row read.
    public static func of(bgr0 bytes: [UInt8], width: Int, height: Int, stride: Int) -> LumaGrid? {
        guard width >= columns, height >= rows, stride >= width * 4, bytes.count >= stride * height else { return nil }
        var sums = [Double](repeating: 0, count: columns * rows)
        var counts = [Int](repeating: 0, count: columns * rows)
        bytes.withUnsafeBufferPointer { b in
            for y in Swift.stride(from: 0, to: height, by: 2) {
                let row = y * rows / height * columns
                let base = y * stride
                for x in Swift.stride(from: 0, to: width, by: 2) {
                    let p = base + x * 4
                    let luma = 0.114 * Double(b[p]) + 0.587 * Double(b[p + 1]) + 0.299 * Double(b[p + 2])
                    let cell = row + x * columns / width
                    sums[cell] += luma
                    counts[cell] += 1
                }
            }
        }
        return LumaGrid(cells: zip(sums, counts).map { $1 > 0 ? $0 / Double($1) : 0 })
    }

    public var mean: Double { cells.isEmpty ? 0 : cells.reduce(0, +) / Double(cells.count) }
    public var brightest: Double { cells.max() ?? 0 }

    /// The largest change of any block's mean: an encoder's noise on a repeated frame moves it by a fraction of a step, any
    /// motion by many.
    public func change(from o: LumaGrid) -> Double {
        guard o.cells.count == cells.count else { return .infinity }
        return zip(cells, o.cells).map { abs($0 - $1) }.max() ?? 0
    }
}

/// What the picture watch found, as it starts and ends.
public enum PictureFact: Sendable, Equatable {
    /// No change since `since` (session seconds) while playing.
    case frozen(since: Double)
    /// The picture moves again after `seconds` frozen.
    case moving(after: Double)
    /// Black since `since`.
    case black(since: Double)
    /// A picture again after `seconds` black.
    case shown(after: Double)
}

/// Frozen and black detection over the frames sampled while a pane plays (pure; time arrives with each frame).
/// A picture is frozen when no block changes by more than `changeThreshold` for `minimum` seconds of playback (a paused,
/// stalled or starting player is expected to stand still and is not judged); black when every block is darker than
/// `blackBrightest` for as long. Black takes precedence: a black picture is not also called frozen.
public struct PictureWatch: Sendable, Equatable {
    public static let minimum = 2.0
    public static let changeThreshold = 1.5
    public static let blackBrightest = 24.0

    private(set) var last: LumaGrid?
    /// Session time of the last change seen (or of the last moment the player was not playing).
    private(set) var changedAt: Double?
    /// Whether the last frame was seen while playing.
    private(set) var wasPlaying = false
    /// Session time the picture went dark (black once it lasts `minimum`).
    private(set) var darkSince: Double?
    /// Frozen since, while reported.
    public private(set) var frozenSince: Double?
    /// Black since, while reported.
    public private(set) var blackSince: Double?

    public init() {}

    /// "black", "frozen" or "moving"; nil before any frame was seen.
    public var label: String? {
        guard last != nil else { return nil }
        return blackSince != nil ? "black" : frozenSince != nil ? "frozen" : "moving"
    }

    public mutating func observe(_ g: LumaGrid, at t: Double, playing: Bool) -> [PictureFact] {
        defer { last = g }
        var facts: [PictureFact] = []
        let dark = g.brightest < Self.blackBrightest
        if dark { darkSince = darkSince ?? t } else { darkSince = nil }
        if let since = blackSince, !dark {
            facts.append(.shown(after: t - since))
            blackSince = nil
        }
        let changed = last.map { g.change(from: $0) > Self.changeThreshold } ?? true
        if changed {
            if let since = frozenSince {
                facts.append(.moving(after: t - since))
                frozenSince = nil
            }
            changedAt = t
        } else if (!playing || !wasPlaying) && frozenSince == nil {
            // Standing still while not playing is expected: the count starts when playback does.
            changedAt = t
        }
        wasPlaying = playing
        guard playing else { return facts }
        if dark, blackSince == nil, let d = darkSince, t - d >= Self.minimum {
            blackSince = d
            facts.append(.black(since: d))
        }
        if !dark, frozenSince == nil, let c = changedAt, t - c >= Self.minimum {
            frozenSince = c
            facts.append(.frozen(since: c))
        }
        return facts
    }
}
