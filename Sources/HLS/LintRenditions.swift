/// The EXT-X-MEDIA rules beyond one tag (RFC 8216bis §4.4.6.1; Apple's HLS authoring specification): language tags, audio
/// channels, and the choice each variant's group offers.
extension Lint {
    static func checkRenditions(_ m: MultivariantPlaylist, _ d: inout [Diagnostic]) {
        for r in m.renditions {
            for (attribute, tag) in [("LANGUAGE", r.language), ("ASSOC-LANGUAGE", r.assocLanguage)] {
                guard let tag, let why = LanguageTag.problem(tag) else { continue }
                d.append(
                    Diagnostic(
                        .error, line: r.line.number, rule: bis("4.4.6.1"),
                        "EXT-X-MEDIA NAME=\"\(r.name)\": \(attribute)=\"\(tag)\" is not an RFC 5646 language tag (\(why))"))
            }
            if r.type == "AUDIO", r.channels == nil {
                d.append(
                    Diagnostic(
                        .warning, line: r.line.number, rule: "lint (RFC 8216bis §4.4.6.1 SHOULD)",
                        "audio rendition \"\(r.name)\" in group \"\(r.groupID)\" has no CHANNELS; every audio EXT-X-MEDIA SHOULD have one"))
            }
        }
        // The groups the variants name, of one TYPE, should offer the same choice: a switch to a variant of another group
        // otherwise changes which languages can be picked (or drops the one playing).
        for (type, group) in [("AUDIO", \Variant.audio), ("SUBTITLES", \Variant.subtitles)] {
            let named = Set(m.variants.compactMap { $0[keyPath: group] })
            guard named.count > 1 else { continue }
            let offers = named.sorted().map { g in
                (g, Set(m.renditions.filter { $0.type == type && $0.groupID == g }.map { $0.language ?? $0.name }))
            }
            guard Set(offers.map(\.1)).count > 1 else { continue }
            let line = m.renditions.first { $0.type == type && named.contains($0.groupID) }?.line.number
            let list = offers.map { "\"\($0.0)\" \($0.1.sorted().joined(separator: ", "))" }.joined(separator: "; ")
            d.append(
                Diagnostic(
                    .warning, line: line, rule: "lint (Apple HLS authoring spec)",
                    "the variants' \(type) groups offer different renditions (\(list)): a rung switch changes what can be chosen"))
        }
    }
}

/// RFC 5646 language tags (BCP 47), checked for their form (§2.1), not against the registry.
public enum LanguageTag {
    /// Why `tag` is not a well-formed language tag; nil when it is.
    public static func problem(_ tag: String) -> String? {
        if tag.isEmpty { return "empty" }
        if tag.contains("_") { return "subtags are joined by \"-\", not \"_\"" }
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        if parts.contains(where: \.isEmpty) { return "an empty subtag" }
        if parts.contains(where: { !$0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }) {
            return "a subtag that is not letters and digits"
        }
        let lower = parts.map { $0.lowercased() }
        // Private use (x-…) and the irregular grandfathered i-… tags.
        if lower[0] == "x" || lower[0] == "i" {
            return parts.count > 1 && parts.dropFirst().allSatisfy { (1...8).contains($0.count) } ? nil : "a malformed private-use tag"
        }
        let alpha = { (s: String) in s.allSatisfy(\.isLetter) }
        guard alpha(parts[0]), (2...8).contains(parts[0].count) else { return "the language \"\(parts[0])\" is not 2 to 8 letters" }
        var i = 1
        // extlang: up to three 3-letter subtags after a 2–3 letter language.
        if parts[0].count <= 3 {
            var ext = 0
            while i < parts.count, ext < 3, parts[i].count == 3, alpha(parts[i]) { i += 1; ext += 1 }
        }
        // script, then region (two letters or three digits)
        if i < parts.count, parts[i].count == 4, alpha(parts[i]) { i += 1 }
        if i < parts.count, (parts[i].count == 2 && alpha(parts[i])) || (parts[i].count == 3 && parts[i].allSatisfy(\.isNumber)) { i += 1 }
        // variants: 5–8 alphanumerics, or a digit and three alphanumerics.
        while i < parts.count, (5...8).contains(parts[i].count) || (parts[i].count == 4 && parts[i].first!.isNumber) { i += 1 }
        // extensions: a singleton (not x) and subtags of 2–8; then private use.
        while i < parts.count, parts[i].count == 1, lower[i] != "x" {
            i += 1
            let start = i
            while i < parts.count, (2...8).contains(parts[i].count) { i += 1 }
            if i == start { return "the extension \"\(parts[start - 1])\" has no subtag" }
        }
        if i < parts.count, lower[i] == "x" {
            i += 1
            let start = i
            while i < parts.count, (1...8).contains(parts[i].count) { i += 1 }
            if i == start { return "\"x\" with no private-use subtag" }
        }
        return i == parts.count ? nil : "\"\(parts[i])\" is out of place"
    }
}
