/// The CEA-608 character sets (CEA-608-E §6.4.2) and the preamble address code rows (Table 53), shared by the decoder and
/// the writer. Codes are channel 1's; channel 2's control codes add 0x08 to the first byte.
enum CEA608Table {
    /// The basic North American character of a standard character byte 0x20–0x7F (CEA-608-E §6.4.2): ASCII but
    /// for the ten positions CEA-608 gives accented letters and symbols.
    static func basic(_ b: UInt8) -> Character {
        switch b {
        case 0x2A: return "á"
        case 0x5C: return "é"
        case 0x5E: return "í"
        case 0x5F: return "ó"
        case 0x60: return "ú"
        case 0x7B: return "ç"
        case 0x7C: return "÷"
        case 0x7D: return "Ñ"
        case 0x7E: return "ñ"
        case 0x7F: return "█"
        default: return Character(Unicode.Scalar(b))
        }
    }

    /// The special characters 0x11 0x30–0x3F (CEA-608-E §6.4.2); 0x39 is the transparent space.
    static let special: [Character] = ["®", "°", "½", "¿", "™", "¢", "£", "♪", "à", " ", "è", "â", "ê", "î", "ô", "û"]

    /// The extended Western European characters (CEA-608-E §6.4.2): 0x12 0x20–0x3F (Spanish, French,
    /// miscellaneous), then 0x13 0x20–0x3F (Portuguese, German, Danish).
    static let extended: [Character] = [
        "Á", "É", "Ó", "Ú", "Ü", "ü", "‘", "¡", "*", "’", "—", "©", "℠", "•", "“", "”",
        "À", "Â", "Ç", "È", "Ê", "Ë", "ë", "Î", "Ï", "ï", "Ô", "Ù", "ù", "Û", "«", "»",
        "Ã", "ã", "Í", "Ì", "ì", "Ò", "ò", "Õ", "õ", "{", "}", "\\", "^", "_", "|", "~",
        "Ä", "ä", "Ö", "ö", "ß", "¥", "¤", "¦", "Å", "å", "Ø", "ø", "┌", "┐", "└", "┘",
    ]

    /// The row (1–15) a preamble address code names (CEA-608-E Table 53): channel 1's first byte 0x10–0x17, second byte
    /// 0x40–0x7F; nil for a pair that is no preamble address code.
    static func pacRow(_ first: UInt8, _ second: UInt8) -> Int? {
        guard (0x40...0x7F).contains(second) else { return nil }
        let low = second >= 0x60
        switch first {
        case 0x11: return low ? 2 : 1
        case 0x12: return low ? 4 : 3
        case 0x15: return low ? 6 : 5
        case 0x16: return low ? 8 : 7
        case 0x17: return low ? 10 : 9
        case 0x10: return low ? nil : 11
        case 0x13: return low ? 13 : 12
        case 0x14: return low ? 15 : 14
        default: return nil
        }
    }

    /// The preamble address code (channel 1) that starts `row` (1–15) at column 0 in white (indent 0: bit 4 of the second
    /// byte).
    static func pac(row: Int) -> (UInt8, UInt8) {
        let firsts: [UInt8] = [0x11, 0x11, 0x12, 0x12, 0x15, 0x15, 0x16, 0x16, 0x17, 0x17, 0x10, 0x13, 0x13, 0x14, 0x14]
        let r = min(max(row, 1), 15)
        // Row 11 has only the 0x40 half; otherwise odd rows of a pair take 0x40, even ones 0x60 (Table 53).
        let second: UInt8 = r == 11 || r == 12 || r == 14 || (r < 11 && r % 2 == 1) ? 0x50 : 0x70
        return (firsts[r - 1], second)
    }

    /// How a character is sent (CEA-608-E §6.4.2): as a standard byte, as a special character's pair, or as an extended
    /// character's pair after the standard byte a decoder without the extended set shows instead; nil if CEA-608 has none.
    enum Code: Equatable {
        case basic(UInt8)
        case special(UInt8)
        case extended(UInt8, UInt8, fallback: UInt8)
    }

    static func code(for c: Character) -> Code? {
        if let s = c.unicodeScalars.first, c.unicodeScalars.count == 1, s.value >= 0x20, s.value <= 0x7F {
            let b = UInt8(s.value)
            if basic(b) == c { return .basic(b) }
        }
        if let i = basicSubstitutes.firstIndex(of: c) { return .basic(basicSubstituteCodes[i]) }
        if let i = special.firstIndex(of: c), i != 9 { return .special(0x30 + UInt8(i)) }
        if let i = extended.firstIndex(of: c) {
            let fallback = fallbacks[i].unicodeScalars.first.map { UInt8($0.value) } ?? 0x20
            return .extended(i < 32 ? 0x12 : 0x13, 0x20 + UInt8(i % 32), fallback: fallback)
        }
        return nil
    }

    private static let basicSubstituteCodes: [UInt8] = [0x2A, 0x5C, 0x5E, 0x5F, 0x60, 0x7B, 0x7C, 0x7D, 0x7E, 0x7F]
    private static let basicSubstitutes: [Character] = basicSubstituteCodes.map(basic)

    /// The standard character sent before each extended one, for decoders without the extended set (CEA-608-E §6.4.2).
    private static let fallbacks: [Character] = [
        "A", "E", "O", "U", "U", "u", "'", "!", "-", "'", "-", "c", "s", ".", "\"", "\"",
        "A", "A", "C", "E", "E", "E", "e", "I", "I", "i", "O", "U", "u", "U", "\"", "\"",
        "A", "a", "I", "I", "i", "O", "o", "O", "o", "(", ")", "/", "-", "-", "!", "-",
        "A", "a", "O", "o", "s", "Y", "o", "!", "A", "a", "O", "o", "+", "+", "+", "+",
    ]
}
