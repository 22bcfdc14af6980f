/// A CEA-708 (DTVCC) caption decoder for one service (CTA-708-E §5–§8): fed the `cc_data` triplets of a stream in order, it
/// gathers DTVCC packets, reads the chosen service's blocks and keeps its windows' text as a decoder would. Pen and window
/// styles, anchors and timing (DLY) are not kept. Any byte sequence is safe to feed.
public struct CEA708Decoder: Sendable {
    /// The service number, 1–63.
    public let service: Int
    /// The DTVCC packet being gathered: its header byte, then its data (CTA-708-E §5).
    private var packet: [UInt8] = []
    private var packetSize = 0
    private var windows = [CaptionWindow?](repeating: nil, count: 8)
    private var currentWindow: Int?

    public init(service: Int) {
        precondition((1...63).contains(service), "CEA-708 services are 1–63")
        self.service = service
    }

    /// Forgets everything: no packet gathered, no windows.
    public mutating func reset() { self = CEA708Decoder(service: service) }

    /// The visible windows' text, highest priority (0) first, then by window id: each window's non-empty rows without
    /// trailing spaces, joined by newlines.
    public var text: String {
        windows.indices.compactMap { i in windows[i].flatMap { $0.visible ? (i, $0) : nil } }
            .sorted { ($0.1.priority, $0.0) < ($1.1.priority, $1.0) }
            .flatMap { $0.1.lines }
            .joined(separator: "\n")
    }

    /// Takes one `cc_data` triplet: `cc_type` 3 starts a DTVCC packet (a packet still gathered is read as far as it goes),
    /// 2 continues it; a packet is read once its size is reached. CEA-608 and invalid triplets are ignored.
    public mutating func feed(_ t: CCTriplet) {
        guard t.valid else { return }
        switch t.type {
        case 3:
            if !packet.isEmpty { readPacket() }
            // packet_size_code: the packet's size in pairs of bytes, 0 meaning 64 pairs (CTA-708-E §5).
            let code = Int(t.first & 0x3F)
            packetSize = code == 0 ? 128 : code * 2
            packet = [t.first, t.second]
        case 2:
            guard !packet.isEmpty else { return }
            packet += [t.first, t.second]
        default:
            return
        }
        if packet.count >= packetSize { readPacket() }
    }

    /// Reads the service blocks of the packet gathered (CTA-708-E §6.2): a 3-bit service number (7: the number is in an
    /// extended header byte) and a 5-bit block size; a null header ends the packet. A block cut short is dropped.
    private mutating func readPacket() {
        let data = Array(packet.prefix(packetSize).dropFirst())
        packet = []
        var i = 0
        while i < data.count {
            var number = Int(data[i] >> 5)
            let size = Int(data[i] & 0x1F)
            i += 1
            if number == 0 && size == 0 { break }
            if number == 7 && size != 0 {
                guard i < data.count else { break }
                number = Int(data[i] & 0x3F)
                i += 1
            }
            guard i + size <= data.count else { break }
            if number == service { interpret(Array(data[i..<(i + size)])) }
            i += size
        }
    }

    /// The caption channel commands of one service block (CTA-708-E §7.1), each whole; one cut short by the block's end is
    /// dropped.
    private mutating func interpret(_ block: [UInt8]) {
        var i = 0
        while i < block.count {
            let n = CEA708.commandLength(block, at: i)
            guard i + n <= block.count else { break }
            execute(block, at: i)
            i += n
        }
    }

    private mutating func execute(_ b: [UInt8], at i: Int) {
        let c = b[i]
        switch c {
        case 0x08: withWindow { $0.backspace() } // BS
        case 0x0C: withWindow { $0.clear(movingPen: true) } // FF
        case 0x0D: withWindow { $0.carriageReturn() } // CR
        case 0x0E: withWindow { $0.clearRow() } // HCR
        case 0x10: // EXT1: G2, G3 (C2 and C3 codes carry nothing shown)
            let e = b[i + 1]
            if (0x20...0x7F).contains(e) { write(CEA708.g2(e)) }
            if e >= 0xA0 { write("_") } // G3: only the [CC] icon at 0xA0 is defined (CTA-708-E §7.1)
        case 0x20...0x7E: write(Character(Unicode.Scalar(c)))
        case 0x7F: write("♪") // G0's music note (CTA-708-E §7.1)
        case 0x80...0x87: if windows[Int(c & 7)] != nil { currentWindow = Int(c & 7) } // CW0–CW7
        case 0x88: forWindows(b[i + 1]) { $0.clear(movingPen: false) } // CLW
        case 0x89: forWindows(b[i + 1]) { $0.visible = true } // DSW
        case 0x8A: forWindows(b[i + 1]) { $0.visible = false } // HDW
        case 0x8B: forWindows(b[i + 1]) { $0.visible.toggle() } // TGW
        case 0x8C: // DLW
            for k in 0..<8 where b[i + 1] & (1 << k) != 0 {
                windows[k] = nil
                if currentWindow == k { currentWindow = nil }
            }
        case 0x8F: // RST
            windows = [CaptionWindow?](repeating: nil, count: 8)
            currentWindow = nil
        case 0x92: withWindow { $0.movePen(row: Int(b[i + 1] & 0x0F), column: Int(b[i + 2] & 0x3F)) } // SPL
        case 0x98...0x9F: defineWindow(Int(c & 7), Array(b[(i + 1)..<(i + 7)]))
        case 0xA0...0xFF: write(Character(Unicode.Scalar(c))) // G1: ISO 8859-1
        default: break // NUL, ETX, P16, DLY, DLC, SPA, SPC, SWA, reserved: nothing shown changes
        }
    }

    /// DefineWindow (CTA-708-E §8): creates the window, or updates an existing one keeping its text; it becomes the
    /// current window. Parameters: visible (bit 5) and priority (bits 0–2) in the first byte, the row count less one in the
    /// fourth byte's low nibble, the column count less one in the fifth byte's low six bits.
    private mutating func defineWindow(_ id: Int, _ p: [UInt8]) {
        let rows = Int(p[3] & 0x0F) + 1
        let columns = Int(p[4] & 0x3F) + 1
        var w = windows[id] ?? CaptionWindow(rows: rows, columns: columns)
        w.resize(rows: rows, columns: columns)
        w.visible = p[0] & 0x20 != 0
        w.priority = Int(p[0] & 0x07)
        windows[id] = w
        currentWindow = id
    }

    private mutating func write(_ c: Character) { withWindow { $0.write(c) } }

    private mutating func withWindow(_ body: (inout CaptionWindow) -> Void) {
        guard let k = currentWindow, windows[k] != nil else { return }
        body(&windows[k]!)
    }

    private mutating func forWindows(_ map: UInt8, _ body: (inout CaptionWindow) -> Void) {
        for k in 0..<8 where map & (1 << k) != 0 && windows[k] != nil { body(&windows[k]!) }
    }
}

/// One caption window's text (CTA-708-E §8): a grid of rows and columns, a pen, visibility and priority.
struct CaptionWindow: Sendable {
    var visible = false
    var priority = 0
    private(set) var cells: [[Character]]
    private var columns: Int
    private var penRow = 0
    private var penColumn = 0

    init(rows: Int, columns: Int) {
        self.columns = columns
        cells = [[Character]](repeating: [Character](repeating: " ", count: columns), count: rows)
    }

    var lines: [String] { cells.map { String($0).trimmingTrailingSpaces }.filter { !$0.isEmpty } }

    /// New dimensions, keeping the text that still fits.
    mutating func resize(rows: Int, columns: Int) {
        self.columns = columns
        cells = (0..<rows).map { r in
            (0..<columns).map { c in r < cells.count && c < cells[r].count ? cells[r][c] : " " }
        }
    }

    /// A character at the pen, which moves right; past the last column or row it is dropped (no word wrap).
    mutating func write(_ c: Character) {
        guard penRow < cells.count, penColumn < columns else { return }
        cells[penRow][penColumn] = c
        penColumn += 1
    }

    mutating func backspace() {
        guard penColumn > 0 else { return }
        penColumn -= 1
        if penRow < cells.count, penColumn < columns { cells[penRow][penColumn] = " " }
    }

    /// CR (CTA-708-E §7.1): the pen to the start of the next row; from the last row, the rows scroll up.
    mutating func carriageReturn() {
        penColumn = 0
        if penRow + 1 < cells.count {
            penRow += 1
        } else if !cells.isEmpty {
            cells.removeFirst()
            cells.append([Character](repeating: " ", count: columns))
            penRow = cells.count - 1
        }
    }

    /// HCR (CTA-708-E §7.1): the pen's row erased, the pen to its start.
    mutating func clearRow() {
        if penRow < cells.count { cells[penRow] = [Character](repeating: " ", count: columns) }
        penColumn = 0
    }

    mutating func clear(movingPen: Bool) {
        cells = cells.map { _ in [Character](repeating: " ", count: columns) }
        if movingPen { movePen(row: 0, column: 0) }
    }

    mutating func movePen(row: Int, column: Int) {
        penRow = row
        penColumn = column
    }
}

/// CEA-708 (DTVCC) captions written as `cc_data` triplets (CTA-708-E §5–§8): a caption's commands, the service blocks
/// holding them, and the packets carrying those, cut into what each video frame carries.
public enum CEA708 {
    /// A pop-on caption for `service` in `window` (0–7), as service blocks: the window defined hidden (priority 0, as many
    /// rows as `text` has lines, at most 15, and columns as its longest line, at most 64), cleared, each line at its row's
    /// start (SetPenLocation), then shown (DisplayWindows) — its text appears at once (CTA-708-E §8).
    public static func popOn(_ text: String, service: Int, window: Int = 0) -> [UInt8] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(15).map { $0.prefix(64) }
        let columns = min(max(lines.map(\.count).max() ?? 1, 1), 64)
        let w = UInt8(window & 7)
        // DefineWindow: hidden, priority 0; anchor 0, 0 at the upper left; row and column counts less one; window and pen
        // styles 1 (CTA-708-E §8).
        var commands: [UInt8] = [0x98 | w, 0x00, 0x00, 0x00, UInt8(lines.count - 1), UInt8(columns - 1), 0x09]
        commands += [0x88, 1 << w] // ClearWindows
        for (row, line) in lines.enumerated() {
            commands += [0x92, UInt8(row), 0x00] // SetPenLocation
            for c in line { commands += encode(c) }
        }
        commands += [0x89, 1 << w] // DisplayWindows
        return serviceBlock(service: service, commands)
    }

    /// Removes `window`'s caption (DeleteWindows, CTA-708-E §8), as service blocks for `service`.
    public static func clear(service: Int, window: Int = 0) -> [UInt8] {
        serviceBlock(service: service, [0x8C, 1 << UInt8(window & 7)])
    }

    /// `commands` as service blocks of `service` (1–63; from 7 on with the extended header byte): a header with the block
    /// size, at most 31 bytes each, cut between commands (CTA-708-E §6.2, §6.3).
    public static func serviceBlock(service: Int, _ commands: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        while start < commands.count {
            var end = start
            while end < commands.count {
                let n = min(commandLength(commands, at: end), commands.count - end) // a last command cut short: as it is
                if end + n - start > 31 { break }
                end += n
            }
            if end == start { end = min(start + 31, commands.count) } // a command longer than a block: cut
            let size = UInt8(end - start)
            out += service < 7 ? [UInt8(service) << 5 | size] : [0xE0 | size, UInt8(service & 0x3F)]
            out += commands[start..<end]
            start = end
        }
        return out
    }

    /// `serviceBlocks` in DTVCC packets (CTA-708-E §5): a header with the 2-bit sequence number (`sequence`, advanced by
    /// each packet) and the size in pairs of bytes, at most 127 bytes of whole blocks, padded with a null to an even length;
    /// then as triplets, `cc_type` 3 starting each packet and 2 continuing it, at most `perFrame` for each video frame.
    public static func packets(_ serviceBlocks: [UInt8], sequence: inout Int, perFrame: Int = 10) -> [[CCTriplet]] {
        var blocks: [ArraySlice<UInt8>] = []
        var i = 0
        while i < serviceBlocks.count {
            let size = Int(serviceBlocks[i] & 0x1F)
            let header = serviceBlocks[i] >> 5 == 7 && size != 0 ? 2 : 1
            let end = min(i + header + size, serviceBlocks.count)
            blocks.append(serviceBlocks[i..<end])
            i = end
        }
        var data: [[UInt8]] = []
        for b in blocks {
            if let last = data.last, last.count + b.count <= 127 {
                data[data.count - 1] += b
            } else {
                data.append(Array(b))
            }
        }
        var triplets: [CCTriplet] = []
        for d in data {
            var bytes = [UInt8(sequence & 3) << 6] + d
            if bytes.count % 2 == 1 { bytes.append(0) }
            bytes[0] |= UInt8((bytes.count / 2) & 0x3F) // 64 pairs: size code 0
            sequence = (sequence + 1) & 3
            for k in stride(from: 0, to: bytes.count, by: 2) {
                triplets.append(CCTriplet(type: k == 0 ? 3 : 2, bytes[k], bytes[k + 1]))
            }
        }
        let n = max(perFrame, 1)
        return stride(from: 0, to: triplets.count, by: n).map { Array(triplets[$0..<min($0 + n, triplets.count)]) }
    }

    /// The bytes of one character (CTA-708-E §7.1): G0 (ASCII, 0x7F the music note), G1 (ISO 8859-1), G2 after EXT1; one
    /// CEA-708 has not becomes a space.
    static func encode(_ c: Character) -> [UInt8] {
        if c == "♪" { return [0x7F] }
        if let s = c.unicodeScalars.first, c.unicodeScalars.count == 1, (0x20...0x7E).contains(s.value) || (0xA0...0xFF).contains(s.value) {
            return [UInt8(s.value)]
        }
        if let code = g2Table.first(where: { $0.value == c })?.key { return [0x10, code] }
        return [0x20]
    }

    /// A G2 character (CTA-708-E §7.1); an undefined one shows as an underscore.
    static func g2(_ b: UInt8) -> Character { g2Table[b] ?? "_" }

    private static let g2Table: [UInt8: Character] = [
        0x20: " ", 0x21: " ", 0x25: "…", 0x2A: "Š", 0x2C: "Œ", 0x30: "█", 0x31: "‘", 0x32: "’", 0x33: "“", 0x34: "”", 0x35: "•",
        0x39: "™", 0x3A: "š", 0x3C: "œ", 0x3D: "℠", 0x3F: "Ÿ", 0x76: "⅛", 0x77: "⅜", 0x78: "⅝", 0x79: "⅞", 0x7A: "│", 0x7B: "┐",
        0x7C: "└", 0x7D: "─", 0x7E: "┘", 0x7F: "┌",
    ]

    /// The length in bytes of the command at `i` (CTA-708-E §7.1): C0 by its range (0x10–0x17 one parameter byte, P16 and
    /// 0x18–0x1F two), C1 by its parameters, EXT1 with its code (C2 by range, C3 with its variable length's header); a
    /// character one byte.
    static func commandLength(_ b: [UInt8], at i: Int) -> Int {
        switch b[i] {
        case 0x10:
            guard i + 1 < b.count else { return 2 }
            switch b[i + 1] {
            case 0x00...0x07: return 2
            case 0x08...0x0F: return 3
            case 0x10...0x17: return 4
            case 0x18...0x1F: return 5
            case 0x80...0x87: return 6
            case 0x88...0x8F: return 7
            case 0x90...0x9F: return i + 2 < b.count ? 3 + Int(b[i + 2] & 0x1F) : 3
            default: return 2
            }
        case 0x11...0x17: return 2
        case 0x18...0x1F: return 3
        case 0x88...0x8D: return 2
        case 0x90, 0x92: return 3
        case 0x91: return 4
        case 0x97: return 5
        case 0x98...0x9F: return 7
        default: return 1
        }
    }
}
