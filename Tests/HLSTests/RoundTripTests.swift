import Foundation
import HLS
import Testing

@Suite("Writer round trip (RFC 8216bis §4)")
struct RoundTripTests {
    @Test("parse → write → parse gives the same model for every corpus playlist")
    func corpusRoundTrip() throws {
        var failures: [String] = []
        #expect(Corpus.playlists(in: Corpus.own).count >= 8, "hlstui's own corpus always runs")
        for file in Corpus.files {
            let text = Corpus.text(file)
            // Variables from the context are needed again on the second parse.
            let options = ParseOptions(
                importedVariables: ["foo": "bar", "p": "part-", "host": "example.com"], url: "https://h/x.m3u8?a=1&foo=bar")
            let first = PlaylistParser.parseLenient(text, options: options)
            let written = PlaylistWriter.write(first.playlist)
            let second = PlaylistParser.parseLenient(written, options: options)
            // A reference before its EXT-X-DEFINE is an error (§4.3); the writer puts definitions first, so such files cannot round-trip.
            // Likewise a variable whose value itself reads like a reference: substitution is not recursive, but written text is read again.
            let referenceBeforeDefinition =
                first.diagnostics.contains { $0.rule.hasSuffix("§4.3") }
                || first.playlist.defines.contains { $0.resolved?.contains("{$") ?? false }
            if first.playlist != second.playlist && !referenceBeforeDefinition {
                failures.append(file.lastPathComponent + ": " + firstDifference(first.playlist, second.playlist))
            }
            // Writing is stable: the second write equals the first.
            if PlaylistWriter.write(second.playlist) != written && !referenceBeforeDefinition {
                failures.append(file.lastPathComponent + ": second write differs from the first")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) playlists do not round-trip:\n\(failures.joined(separator: "\n"))")
    }

    func firstDifference(_ a: Playlist, _ b: Playlist) -> String {
        if let ma = a.media, let mb = b.media {
            if ma.segments.count != mb.segments.count { return "segment count \(ma.segments.count) vs \(mb.segments.count)" }
            for (i, (x, y)) in zip(ma.segments, mb.segments).enumerated() where x != y {
                return "segment \(i): \(x) vs \(y)"
            }
            var ca = ma, cb = mb
            ca.segments = []
            cb.segments = []
            return "playlist fields: \(ca) vs \(cb)"
        }
        if let ma = a.multivariant, let mb = b.multivariant {
            for (i, (x, y)) in zip(ma.variants, mb.variants).enumerated() where x != y { return "variant \(i): \(x) vs \(y)" }
            return "multivariant: \(ma) vs \(mb)"
        }
        return
            "kind or header: version \(String(describing: a.version)) vs \(String(describing: b.version)), defines \(a.defines) vs \(b.defines)"
    }

    @Test("resolving variables drops EXT-X-DEFINE and keeps substituted URIs")
    func resolveVariables() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-DEFINE:NAME="base",VALUE="https://cdn.example/"
            #EXT-X-DEFINE:QUERYPARAM="token"
            #EXT-X-TARGETDURATION:2
            #EXTINF:2,
            {$base}seg1.ts?t={$token}
            #EXT-X-ENDLIST
            """
        let r = try PlaylistParser.parse(text, options: ParseOptions(strict: true, url: "https://o/a.m3u8?token=abc"))
        let out = PlaylistWriter.write(r.playlist, resolveVariables: true)
        #expect(!out.contains("EXT-X-DEFINE"))
        #expect(out.contains("https://cdn.example/seg1.ts?t=abc"))
        let again = try PlaylistParser.parse(out, options: ParseOptions(strict: true))
        #expect(again.playlist.media?.segments.first?.uri == "https://cdn.example/seg1.ts?t=abc")
    }
}
