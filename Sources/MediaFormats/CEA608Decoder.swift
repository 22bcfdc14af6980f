/// A CEA-608 caption decoder for one channel (CEA-608-E §7, §8): fed the `cc_data` triplets of a stream in order, it keeps
/// the caption memories as a decoder would and shows what is on screen. Styles (colours, italics, underline) are not kept;
/// text mode (TR, RTD) and XDS are read past.
public struct CEA608Decoder: Sendable {
    /// The channel: CC1/CC2 are data channels 1/2 of field 1 (`cc_type` 0), CC3/CC4 data channels 1/2 of field 2.
    public let channel: Int
    private let field: UInt8
    private let dataChannel: Int

    private enum Mode: Sendable, Equatable {
        case popOn
        case paintOn
        case rollUp(Int)
        case text
    }

    private var mode = Mode.popOn
    private var displayed = Screen()
    private var nonDisplayed = Screen()
    /// The cursor (0-based row, and column 0–32: 32 is past the last column, where a character overwrites column 31).
    private var row = 14
    private var column = 0
    /// The roll-up window's base row (0-based; CEA-608-E §8.5).
    private var baseRow = 14
    /// The data channel (1 or 2) the field's last control code selected: the characters after it are that channel's.
    private var current = 1
    /// Inside an XDS packet (field 2, CEA-608-E §8.6): its bytes are no caption text until a control code resumes captions.
    private var inXDS = false
    /// The last control code pair acted on, for dropping its repeat in the next pair (CEA-608-E §8.7).
    private var lastControl: UInt16?

    public init(channel: Int) {
        precondition((1...4).contains(channel), "CEA-608 channels are CC1–CC4")
        self.channel = channel
        field = channel <= 2 ? 0 : 1
        dataChannel = channel % 2 == 1 ? 1 : 2
    }

    /// Forgets everything: nothing shown, pop-on mode, as a decoder at power-on.
    public mutating func reset() { self = CEA608Decoder(channel: channel) }

    /// The displayed memory's non-empty rows, top to bottom, each without trailing spaces, joined by newlines.
    public var text: String { displayed.text }

    /// Takes one `cc_data` triplet: an invalid one, another field's, or another data channel's is ignored.
    public mutating func feed(_ t: CCTriplet) {
        guard t.valid, t.type == field else { return }
        let a = t.first & 0x7F
        let b = t.second & 0x7F
        if a == 0 && b == 0 { return } // null padding
        if field == 1 && (0x01...0x0F).contains(a) {
            // XDS control codes (CEA-608-E §8.6): 0x0F ends the packet (its second byte is the checksum).
            inXDS = a != 0x0F
            lastControl = nil
            return
        }
        if (0x10...0x1F).contains(a) {
            inXDS = false
            let code = UInt16(a) << 8 | UInt16(b)
            if lastControl == code {
                lastControl = nil
                return
            }
            guard b >= 0x20 else {
                lastControl = nil
                return
            }
            lastControl = code
            current = a >= 0x18 ? 2 : 1
            if current == dataChannel { control(a & 0xF7, b) }
            return
        }
        lastControl = nil
        guard !inXDS, current == dataChannel else { return }
        if a >= 0x20 { write(CEA608Table.basic(a)) }
        if b >= 0x20 { write(CEA608Table.basic(b)) }
    }

    /// A control code of this channel, with channel 1's first byte (CEA-608-E §6.4, Tables 51–53).
    private mutating func control(_ a: UInt8, _ b: UInt8) {
        if let r = CEA608Table.pacRow(a, b) { return preamble(row: r - 1, second: b) }
        switch (a, b) {
        case (0x11, 0x20...0x2F): write(" ") // mid-row code: shown as a space (CEA-608-E §6.4.2)
        case (0x11, 0x30...0x3F): write(CEA608Table.special[Int(b - 0x30)])
        case (0x12...0x13, 0x20...0x3F):
            // An extended character replaces the standard one sent before it for decoders without it (§6.4.2).
            column = max(column - 1, 0)
            write(CEA608Table.extended[Int(a - 0x12) * 32 + Int(b - 0x20)])
        case (0x14...0x15, 0x20...0x2F): command(b)
        case (0x17, 0x21...0x23): column = min(column + Int(b - 0x20), 31) // TO1–TO3
        default: break // background and foreground attributes, and undefined codes
        }
    }

    /// A miscellaneous control code (CEA-608-E Table 52).
    private mutating func command(_ b: UInt8) {
        switch b {
        case 0x20: mode = .popOn // RCL
        case 0x21: // BS
            if column > 0 {
                column -= 1
                set(" ", at: column)
            }
        case 0x24: for c in min(column, 31)..<32 { set(" ", at: c) } // DER
        case 0x25, 0x26, 0x27: rollUp(rows: Int(b) - 0x23) // RU2–RU4
        case 0x29: // RDC
            if rolling { displayed = Screen() }
            mode = .paintOn
        case 0x2A, 0x2B: mode = .text // TR, RTD: what follows is text service data, not captions
        case 0x2C: displayed = Screen() // EDM
        case 0x2D: carriageReturn() // CR
        case 0x2E: nonDisplayed = Screen() // ENM
        case 0x2F: // EOC
            swap(&displayed, &nonDisplayed)
            mode = .popOn
        default: break // AOF, AON, FON: no effect on the text
        }
    }

    /// RU2–RU4 (CEA-608-E §8.5): from another mode, both memories are erased and the window sits on row 15; within roll-up,
    /// only the depth changes and the rows above the new window are erased.
    private mutating func rollUp(rows: Int) {
        if !rolling {
            displayed = Screen()
            nonDisplayed = Screen()
            baseRow = 14
        }
        mode = .rollUp(rows)
        baseRow = max(baseRow, rows - 1)
        for r in 0..<(baseRow - rows + 1) { displayed.clear(row: r) }
        row = baseRow
        column = 0
    }

    /// CR (CEA-608-E §8.5): in roll-up, the window's rows move up one, the base row is emptied, the cursor goes to its start.
    private mutating func carriageReturn() {
        guard case .rollUp(let depth) = mode else { return }
        let top = max(baseRow - depth + 1, 0)
        if top > 0 { displayed.clear(row: top - 1) }
        for r in top..<baseRow { displayed.copy(row: r + 1, to: r) }
        displayed.clear(row: baseRow)
        row = baseRow
        column = 0
    }

    /// A preamble address code (CEA-608-E §6.4.1, Table 53): the cursor to its row, at its indent (bit 4 of the second
    /// byte, then three bits of fours); in roll-up, the row becomes the base row and the window moves with it (§8.5).
    private mutating func preamble(row r: Int, second b: UInt8) {
        let low = b & 0x1F
        column = low >= 0x10 ? Int((low & 0x0E) >> 1) * 4 : 0
        guard case .rollUp(let depth) = mode else {
            row = r
            return
        }
        let newBase = max(r, depth - 1)
        if newBase != baseRow {
            var moved = Screen()
            for k in 0..<depth where baseRow - k >= 0 && newBase - k >= 0 {
                moved.copy(row: baseRow - k, from: displayed, to: newBase - k)
            }
            displayed = moved
            baseRow = newBase
        }
        row = baseRow
    }

    private var rolling: Bool {
        if case .rollUp = mode { return true }
        return false
    }

    private mutating func write(_ c: Character) {
        column = min(column, 31)
        set(c, at: column)
        column += 1
    }

    private mutating func set(_ c: Character, at col: Int) {
        switch mode {
        case .popOn: nonDisplayed.set(c, row: row, column: col)
        case .paintOn, .rollUp: displayed.set(c, row: row, column: col)
        case .text: break
        }
    }
}

/// A caption memory: 15 rows of 32 columns (CEA-608-E §8.2), spaces where nothing was written.
private struct Screen: Sendable {
    var cells = [[Character]](repeating: Screen.blank, count: 15)
    static let blank = [Character](repeating: " ", count: 32)

    mutating func set(_ c: Character, row: Int, column: Int) {
        guard (0..<15).contains(row), (0..<32).contains(column) else { return }
        cells[row][column] = c
    }

    mutating func clear(row: Int) {
        if (0..<15).contains(row) { cells[row] = Screen.blank }
    }

    mutating func copy(row: Int, to other: Int) {
        guard (0..<15).contains(row), (0..<15).contains(other) else { return }
        cells[other] = cells[row]
    }

    mutating func copy(row: Int, from source: Screen, to other: Int) {
        guard (0..<15).contains(row), (0..<15).contains(other) else { return }
        cells[other] = source.cells[row]
    }

    var text: String {
        cells.map { String($0).trimmingTrailingSpaces }.filter { !$0.isEmpty }.joined(separator: "\n")
    }
}

extension String {
    /// The string without its trailing spaces.
    var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
