// libFuzzer entry point: feeds arbitrary bytes to the lexer, the attribute-list tokenizer, the parser and the writer; then
// to what reads a parsed playlist — the lint, the timeline, a delta update merged into the playlist it updates, and the
// reload rules between two reloads (`LiveContinuity`, `LiveWatch`). The input is also cut in two at its first NUL, as two
// versions of one playlist. An input that opens with `{` goes to the JSON the network brings beside playlists instead: a
// content steering manifest and an interstitial's asset list (built in from LoaderCore by scripts/fuzz.sh).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaylist(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if bytes.first == UInt8(ascii: "{") {
        let body = Array(bytes)
        if case .success(let m) = SteeringManifest.parse(body, from: "https://x/steer?a=1") { _ = m.ttl }
        if case .success(let list) = AssetList.parse(body, from: "https://x/assets.json") { _ = list.assets.count }
        return 0
    }
    let text = String(decoding: bytes, as: UTF8.self)
    var diagnostics: [Diagnostic] = []
    _ = AttributeList.parse(Substring(text), line: 1, column: 1, diagnostics: &diagnostics)
    let options = ParseOptions(importedVariables: ["a": "b"], url: "https://x/y.m3u8?q=1")
    let result = PlaylistParser.parseLenient(text, options: options)
    // Whatever parses must write and parse again without trapping.
    let written = PlaylistWriter.write(result.playlist)
    _ = PlaylistParser.parseLenient(written, options: options)
    _ = Lint.check(result.playlist)
    if let media = result.playlist.media {
        _ = Timeline.gapRanges(media)
        _ = Timeline.programDateTime(at: 1.5, in: media)
    }
    _ = DateTime(iso8601: text)
    // Two versions of one playlist: before the first NUL and after it.
    if let cut = bytes.firstIndex(of: 0) {
        let a = PlaylistParser.parseLenient(String(decoding: bytes[..<cut], as: UTF8.self), options: options).playlist.media
        let b = PlaylistParser.parseLenient(String(decoding: bytes[(cut + 1)...], as: UTF8.self), options: options).playlist.media
        if let a, let b {
            _ = DeltaUpdate.merge(b, into: a)
            _ = LiveContinuity.check(previous: a, next: b, elapsed: 1)
            var watch = LiveWatch()
            _ = watch.read(0, name: "a", variant: true, at: 0, a)
            _ = watch.read(1, name: "b", variant: true, at: 0.5, b)
            _ = watch.read(0, name: "a", variant: true, at: 30, b)
            _ = watch.due(0)
        }
    }
    return 0
}
