import HLS

/// Parses leniently with lint on.
func parse(_ text: String, importing: [String: String] = [:], url: String? = nil) -> ParseResult {
    PlaylistParser.parseLenient(text, options: ParseOptions(importedVariables: importing, url: url))
}

/// A media playlist from its body lines (header added).
func mediaText(_ body: String, version: Int = 7, target: Int = 6, end: Bool = true) -> String {
    "#EXTM3U\n#EXT-X-VERSION:\(version)\n#EXT-X-TARGETDURATION:\(target)\n" + body + (end ? "\n#EXT-X-ENDLIST\n" : "\n")
}

extension ParseResult {
    /// Diagnostics of one severity whose message contains `text`.
    func has(_ severity: Severity, _ text: String, line: Int? = nil) -> Bool {
        diagnostics.contains { $0.severity == severity && $0.message.contains(text) && (line == nil || $0.line == line) }
    }

    var mediaPlaylist: MediaPlaylist { playlist.media ?? MediaPlaylist() }
    var multivariantPlaylist: MultivariantPlaylist { playlist.multivariant ?? MultivariantPlaylist() }
    var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }
}
