import HLS
import Loader
import LoaderCore
import HLSReport

/// What `hlstui inspect` asks for.
public struct InspectRequest: Sendable {
    public var source: String
    public var json: Bool
    public var strict: Bool
    public var imports: [String: String]
    public var width: Int
    public var timeout: Double
    /// Headers, user agent and TLS trust for URLs (the Loader's options).
    public var upstream = UpstreamOptions()
    /// Read and measure the media against the playlists (`--media`, docs/VALIDATION.md); `mediaSample`: segments per
    /// variant (nil: all).
    public var media = false
    public var mediaSample: Int?
    /// `--html FILE`: the media report also written there as one self-contained page.
    public var mediaHTML: String?
    /// `--duration S`: a live stream's playlists read again for S seconds after its first window, each reload held to the
    /// reload rules and its new segments measured (docs/VALIDATION.md).
    public var mediaDuration: Double?
    /// Standard error is a terminal: the live watch says how far it is on one line, cleared at its end.
    public var progressOnTerminal = false
    /// One client for every read of a run (its connections kept alive between them); nil: one per read.
    var client: UpstreamClient?

    public init(
        source: String, json: Bool = false, strict: Bool = false, imports: [String: String] = [:], width: Int = 100, timeout: Double = 10
    ) {
        self.timeout = timeout
        self.source = source
        self.json = json
        self.strict = strict
        self.imports = imports
        self.width = width
    }
}

/// What `hlstui inspect` prints and its exit status (0 clean, 1 playlist errors, 2 could not read).
public struct InspectOutcome: Sendable {
    public var stdout: String
    public var stderr: String
    public var status: Int32
}

/// Runs `hlstui inspect`: load, parse, report.
public enum Inspect {
    public static func run(_ req: InspectRequest) async -> InspectOutcome {
        if InspectMP4.applies(req.source) { return await InspectMP4.run(req) }
        let text: String
        do {
            text = try await PlaylistSource.load(req.source, timeout: req.timeout, upstream: req.upstream)
        } catch {
            return InspectOutcome(stdout: "", stderr: "hlstui inspect: \(error.description)\n", status: 2)
        }
        if req.media { return await InspectMedia.run(req, text: text) }
        return report(text: text, req, assetLists: await assetLists(text, req))
    }

    /// Each interstitial's X-ASSET-LIST fetched as a player asks it (`_HLS_primary_id`), its JSON read (RFC 8216bis
    /// Appendix D.2); none for a file.
    static func assetLists(_ text: String, _ req: InspectRequest) async -> [String: Result<AssetList, AssetListError>] {
        guard PlaylistSource.isURL(req.source),
            let m = PlaylistParser.parseLenient(text, options: ParseOptions(url: req.source)).playlist.media
        else { return [:] }
        var out: [String: Result<AssetList, AssetListError>] = [:]
        for l in Interstitial.schedule(m).compactMap(\.assetList) where out[l] == nil {
            let url = VirtualPlaylists.resolve(l, against: req.source)
            do throws(SourceError) {
                let asked = ContinuousClock.now
                let body = try await PlaylistSource.fetch(
                    AssetList.request(url, primaryID: "hlstui-inspect", startOffset: nil), timeout: req.timeout, upstream: req.upstream)
                let seconds = Pane.seconds(ContinuousClock.now - asked)
                out[l] = AssetList.parse([UInt8](body), from: url).map { list in
                    var l = list
                    l.answeredIn = seconds
                    return l
                }
            } catch {
                out[l] = .failure(AssetListError(error.description))
            }
        }
        return out
    }

    /// The report for already-loaded text (pure; used by tests and benchmarks).
    public static func report(
        text: String, _ req: InspectRequest, assetLists: [String: Result<AssetList, AssetListError>] = [:]
    ) -> InspectOutcome {
        let options = ParseOptions(
            strict: req.strict, importedVariables: req.imports,
            url: PlaylistSource.isURL(req.source) ? req.source : nil)
        let result: ParseResult
        do {
            result = try PlaylistParser.parse(text, options: options)
        } catch {
            let d = error.diagnostic
            if req.json {
                let doc = JSONValueOut.strictFailure(d, source: req.source)
                return InspectOutcome(stdout: doc + "\n", stderr: "", status: 1)
            }
            return InspectOutcome(
                stdout: "", stderr: "\(req.source):\(d.line.map { "\($0):" } ?? "") \(d.severity.rawValue): \(d.message) (\(d.rule))\n",
                status: 1)
        }
        // An asset list that cannot be read fails its interstitial for every viewer: as an error.
        let listFailed = assetLists.values.contains { if case .failure = $0 { true } else { false } }
        let status: Int32 = result.hasErrors || listFailed ? 1 : 0
        if req.json {
            return InspectOutcome(
                stdout: InspectJSON.document(result, source: req.source, assetLists: assetLists).prettyText + "\n", stderr: "",
                status: status)
        }
        return InspectOutcome(
            stdout: InspectText.report(result, source: req.source, width: req.width, assetLists: assetLists), stderr: "", status: status)
    }
}

import JSONValue

enum JSONValueOut {
    static func strictFailure(_ d: Diagnostic, source: String) -> String {
        JSONValue.object([("source", .string(source)), ("strict", .bool(true)), ("diagnostics", .array([InspectJSON.diagnostic(d)]))])
            .prettyText
    }
}
