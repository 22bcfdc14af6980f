// libFuzzer entry point: feeds arbitrary bytes to the lexer, the attribute-list tokenizer, the parser and the writer.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaylist(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    var diagnostics: [Diagnostic] = []
    _ = AttributeList.parse(Substring(text), line: 1, column: 1, diagnostics: &diagnostics)
    let options = ParseOptions(importedVariables: ["a": "b"], url: "https://x/y.m3u8?q=1")
    let result = PlaylistParser.parseLenient(text, options: options)
    // Whatever parses must write and parse again without trapping.
    let written = PlaylistWriter.write(result.playlist)
    _ = PlaylistParser.parseLenient(written, options: options)
    if let media = result.playlist.media {
        _ = Timeline.gapRanges(media)
        _ = Timeline.programDateTime(at: 1.5, in: media)
    }
    _ = DateTime(iso8601: text)
    return 0
}
