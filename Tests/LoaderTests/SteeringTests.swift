import Foundation
import HLS
import LoaderCore
import Testing

@Suite("Content steering: the manifest, its reload request, clones, pathways of a playlist (pure)")
struct SteeringTests {
    static let base = "https://a.example.com/live/master.m3u8"

    /// Two pathways of two variants each (the second with its own audio group), steered.
    static let multivariant: MultivariantPlaylist = {
        let text = """
            #EXTM3U
            #EXT-X-CONTENT-STEERING:SERVER-URI="/steer.json",PATHWAY-ID="cdn-b"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud-a",NAME="en",STABLE-RENDITION-ID="en",URI="audio/en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud-b",NAME="en",STABLE-RENDITION-ID="en",URI="https://b.example.com/audio/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="aud-a",PATHWAY-ID="cdn-a",STABLE-VARIANT-ID="lo"
            v1/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="aud-a",PATHWAY-ID="cdn-a",STABLE-VARIANT-ID="hi"
            v2/index.m3u8?token=x
            #EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="aud-b",PATHWAY-ID="cdn-b",STABLE-VARIANT-ID="lo"
            https://b.example.com/v1/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="aud-b",PATHWAY-ID="cdn-b",STABLE-VARIANT-ID="hi"
            https://b.example.com/v2/index.m3u8

            """
        return PlaylistParser.parseLenient(text).playlist.multivariant!
    }()

    static func manifest(_ json: String) -> Result<SteeringManifest, SteeringError> {
        SteeringManifest.parse(Array(json.utf8), from: "https://steer.example.com/v1/steer.json?session=1")
    }

    @Test("a manifest is read whole; RELOAD-URI is resolved against the manifest's URL; clones keep their replacements")
    func parse() throws {
        let m = try Self.manifest(
            """
            {"VERSION":1,"TTL":10,"RELOAD-URI":"next.json?s=2","PATHWAY-PRIORITY":["cdn-a","cdn-b"],
             "PATHWAY-CLONES":[{"BASE-ID":"cdn-a","ID":"cdn-c","URI-REPLACEMENT":{"HOST":"c.example.com:8443",
               "PARAMS":{"k":"v"},"PER-VARIANT-URIS":{"hi":"https://c2.example.com/hi.m3u8"}}}]}
            """
        ).get()
        #expect(m.ttl == 10)
        #expect(m.reloadURI == "https://steer.example.com/v1/next.json?s=2")
        #expect(m.priority == ["cdn-a", "cdn-b"])
        #expect(m.clones.first?.id == "cdn-c" && m.clones.first?.replacement.host == "c.example.com:8443")
        #expect(m.clones.first?.replacement.perVariantURIs["hi"] == "https://c2.example.com/hi.m3u8")
    }

    @Test("a bad manifest is one line naming what is wrong")
    func bad() {
        let cases: [(String, String)] = [
            ("<html>busy</html>", "the steering manifest is not a JSON object"),
            ("[1, 2]", "the steering manifest is not a JSON object"),
            (#"{"VERSION":2,"TTL":10,"PATHWAY-PRIORITY":["a"]}"#, "the steering manifest's VERSION is 2; only 1 is defined"),
            (#"{"VERSION":1,"PATHWAY-PRIORITY":["a"]}"#, "the steering manifest's TTL is missing"),
            (#"{"VERSION":1,"TTL":"10","PATHWAY-PRIORITY":["a"]}"#, "the steering manifest's TTL has the wrong type"),
            (#"{"VERSION":1,"TTL":0,"PATHWAY-PRIORITY":["a"]}"#, "the steering manifest's TTL must be a positive number of seconds"),
            (#"{"VERSION":1,"TTL":10,"PATHWAY-PRIORITY":[]}"#, "the steering manifest's PATHWAY-PRIORITY is empty"),
            (#"{"VERSION":1,"TTL":10,"PATHWAY-PRIORITY":["a","a"]}"#, "the steering manifest's PATHWAY-PRIORITY lists \"a\" twice"),
            (
                #"{"VERSION":1,"TTL":10,"PATHWAY-PRIORITY":["cdn a"]}"#,
                "the steering manifest names pathway \"cdn a\": only letters, digits, '.', '-' and '_' are allowed"
            ),
        ]
        for (json, line) in cases {
            guard case .failure(let e) = Self.manifest(json) else {
                Issue.record("accepted: \(json)")
                continue
            }
            #expect(e.description == line, "\(json)")
        }
    }

    @Test("a clone copies its base pathway's variants and audio with the host, parameters or per-ID URIs replaced")
    func clones() {
        let clone = PathwayClone(
            baseID: "cdn-a", id: "cdn-c",
            replacement: URIReplacement(
                host: "c.example.com:8443", params: ["k": "v", "token": "y"],
                perVariantURIs: ["hi": "https://c2.example.com/hi.m3u8"]))
        let m = clone.expand(Self.multivariant, base: Self.base)
        let added = m.variants.filter { $0.pathwayID == "cdn-c" }
        #expect(added.map(\.uri) == ["https://c.example.com:8443/live/v1/index.m3u8?k=v&token=y", "https://c2.example.com/hi.m3u8"])
        #expect(added.allSatisfy { $0.audio == "aud-a/cdn-c" })
        #expect(
            m.renditions.filter { $0.groupID == "aud-a/cdn-c" }.map(\.uri)
                == ["https://c.example.com:8443/live/audio/en.m3u8?k=v&token=y"])
        // An ID already used, or a base that does not exist: nothing added.
        #expect(PathwayClone(baseID: "cdn-a", id: "cdn-b", replacement: URIReplacement()).expand(m, base: Self.base) == m)
        #expect(PathwayClone(baseID: "nope", id: "cdn-d", replacement: URIReplacement()).expand(m, base: Self.base) == m)
    }

    @Test("the reload carries _HLS_pathway and _HLS_throughput")
    func reload() {
        #expect(
            SteeringRequest.url("https://s.example.com/steer?x=1&_HLS_pathway=old", pathway: "cdn-a", throughput: 5_000_000)
                == "https://s.example.com/steer?x=1&_HLS_pathway=cdn-a&_HLS_throughput=5000000")
        #expect(
            SteeringRequest.url("https://s.example.com/steer", pathway: ".", throughput: nil)
                == "https://s.example.com/steer?_HLS_pathway=."
        )
    }
}

extension SteeringTests {
    @Test("each pathway's variants; the same rung on another pathway by STABLE-VARIANT-ID, else bandwidth and resolution")
    func equivalents() {
        let m = Self.multivariant
        #expect(PathwayIDs.variants(of: "cdn-a", in: m) == [0, 1] && PathwayIDs.variants(of: "cdn-b", in: m) == [2, 3])
        #expect(PathwayIDs.equivalent(of: 1, on: "cdn-b", in: m) == 3)
        #expect(PathwayIDs.equivalent(of: 2, on: "cdn-a", in: m) == 0)
        #expect(PathwayIDs.equivalent(of: 2, on: "cdn-b", in: m) == 2)
        #expect(PathwayIDs.equivalent(of: 0, on: "cdn-x", in: m) == nil)
        // Redundant streams: no stable IDs, the same variants again on another host.
        var r = m
        for i in r.variants.indices { r.variants[i].stableVariantID = nil }
        #expect(PathwayIDs.equivalent(of: 1, on: "cdn-b", in: r) == 3)
        r.variants[3].bandwidth = 2_100_000
        #expect(PathwayIDs.equivalent(of: 1, on: "cdn-b", in: r) == 3, "by place when nothing else matches")
    }

    @Test("a data: SERVER-URI (RFC 2397): base64 with or without padding, percent-encoded text; a bad one is named")
    func dataURI() throws {
        let json = #"{"VERSION":1,"TTL":5,"PATHWAY-PRIORITY":["cdn-b"]}"#
        let b64 = "data:application/json;base64," + Data(json.utf8).base64EncodedString()
        #expect(DataURI.isData(b64) && DataURI.isData("DATA:,x") && !DataURI.isData("https://x/data:"))
        #expect(try DataURI.decode(b64).get() == Array(json.utf8))
        var unpadded = b64
        while unpadded.hasSuffix("=") { unpadded.removeLast() }
        #expect(unpadded != b64)
        #expect(try DataURI.decode(unpadded).get() == Array(json.utf8))
        #expect(try DataURI.decode("data:application/json,%7B%22a%22%3A1%7D").get() == Array(#"{"a":1}"#.utf8))
        #expect(DataURI.decode("data:application/json;base64") == .failure(.noComma))
        #expect(DataURI.decode("data:;base64,@@@@") == .failure(.base64))
        #expect(DataURI.decode("data:,%zz") == .failure(.percentEncoding))
        let m = try SteeringManifest.parse(try DataURI.decode(b64).get(), from: Self.base).get()
        #expect(m.priority == ["cdn-b"] && m.ttl == 5)
    }

    @Test(
        "redundant copies without PATHWAY-ID are pathways named by host (copy-n when hosts do not tell them apart); one copy, or named pathways, unchanged"
    )
    func redundantCopies() {
        func playlist(_ uris: [String], pathway: String? = nil) -> MultivariantPlaylist {
            var m = MultivariantPlaylist()
            for (i, u) in uris.enumerated() {
                var v = Variant(uri: u, bandwidth: i % 2 == 0 ? 800_000 : 2_000_000)
                v.pathwayID = pathway
                m.variants.append(v)
            }
            return m
        }
        let two = playlist([
            "https://a.example.com/lo.m3u8", "https://a.example.com/hi.m3u8", "https://user@B.example.com:8443/lo.m3u8",
            "https://b.example.com:8443/hi.m3u8",
        ])
        let named = PathwayIDs.namingRedundantCopies(two)
        #expect(named.variants.map(\.pathwayID) == ["a.example.com", "a.example.com", "b.example.com-8443", "b.example.com-8443"])
        #expect(PathwayIDs.equivalent(of: 1, on: "b.example.com-8443", in: named) == 3, "the same rung on the other copy")
        let relative = PathwayIDs.namingRedundantCopies(playlist(["lo.m3u8", "hi.m3u8", "backup/lo.m3u8", "backup/hi.m3u8"]))
        #expect(relative.variants.map(\.pathwayID) == ["copy-1", "copy-1", "copy-2", "copy-2"])
        let one = playlist(["https://a.example.com/lo.m3u8", "https://a.example.com/hi.m3u8"])
        #expect(PathwayIDs.namingRedundantCopies(one) == one)
        let steered = playlist(["https://a.example.com/lo.m3u8", "https://b.example.com/lo.m3u8"], pathway: "x")
        #expect(PathwayIDs.namingRedundantCopies(steered) == steered)
    }
}
