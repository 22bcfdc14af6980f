import HLS
import MediaFormats

/// `inspect --media --html FILE`: one self-contained page a ticket can carry (docs/VALIDATION.md) — the findings table, each
/// variant's figures, and a plot of its segments' bit rates against the BANDWIDTH and AVERAGE-BANDWIDTH it declares. Inline
/// CSS and SVG only: no script, no request when it is opened.
public enum MediaHTML {
    public static func render(
        source: String, generated: String, measures: [VariantMeasure], subtitles: [SubtitleMeasure] = [], iframes: [IFrameMeasure] = [],
        live: LiveWatchSummary? = nil
    ) -> String {
        let findings = MediaChecks.findings(measures, subtitles: subtitles, iframes: iframes, live: live)
        let must = findings.filter(\.must).count
        var h = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>hlstui inspect --media: \(escape(source))</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
            table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
            th{background:#f4f4f4}.must{color:#b00020;font-weight:bold}.should{color:#a06000}.ok{color:#2e7d32}
            code{font-family:ui-monospace,monospace}svg{background:#fafafa;border:1px solid #ddd;margin:0.5em 0}
            </style></head><body>
            <h1>Media against the playlists</h1>
            <p><code>\(escape(source))</code><br>read by hlstui inspect --media, \(escape(generated))</p>

            """
        if let w = live {
            h +=
                "<p>Live: \(formatSeconds(w.seconds)) s watched, \(w.reloads) reloads of \(w.playlists) playlists, \(w.newSegments) new segments measured.</p>\n"
        }
        h += "<h2>Findings</h2>\n"
        if findings.isEmpty {
            h += "<p class=\"ok\">No problems found.</p>\n"
        } else {
            h += "<p>\(findings.count) finding\(findings.count == 1 ? "" : "s"), \(must) must fix.</p>\n"
            h += "<table><tr><th>severity</th><th>rule</th><th>section</th><th>what</th></tr>\n"
            for f in findings {
                h +=
                    "<tr><td class=\"\(f.must ? "must" : "should")\">\(f.must ? "must fix" : "should fix")</td><td><code>\(escape(f.rule))</code></td>"
                    + "<td>\(escape(f.section))</td><td>\(escape(f.message))</td></tr>\n"
            }
            h += "</table>\n"
        }
        h += "<h2>Variants</h2>\n<table><tr><th>variant</th><th>BANDWIDTH</th><th>peak</th><th>AVERAGE-BANDWIDTH</th>"
        h += "<th>average</th><th>CODECS</th><th>video</th><th>segments</th></tr>\n"
        for v in measures {
            var video = v.videoCodec ?? "-"
            if let s = v.sps { video += " \(s.width)x\(s.height)" + (s.frameRate.map { " \(fixed($0, 3)) fps" } ?? "") }
            h += "<tr><td>#\(v.index) \(escape(v.name))</td><td>\(kbps(v.bandwidth.map(Double.init)))</td><td>\(kbps(v.peak))</td>"
            h +=
                "<td>\(kbps(v.averageBandwidth.map(Double.init)))</td><td>\(kbps(v.average))</td><td><code>\(escape(v.codecs ?? "-"))</code></td>"
            h += "<td><code>\(escape(video))</code></td><td>\(v.measured) of \(v.listed)</td></tr>\n"
        }
        h += "</table>\n"
        for v in measures where v.segments.contains(where: { $0.bitRate != nil }) {
            h += "<h3>#\(v.index) \(escape(v.name)): each segment's bit rate</h3>\n" + plot(v) + "\n"
        }
        if !iframes.isEmpty {
            h += "<h2>I-frame playlists</h2>\n<table><tr><th>playlist</th><th>ranges read</th><th>not independent</th></tr>\n"
            for m in iframes {
                h +=
                    "<tr><td>\(escape(m.name))</td><td>\(m.measured) of \(m.listed)</td><td>\(m.dependent.isEmpty ? "none" : m.dependent.map(String.init).joined(separator: ", "))</td></tr>\n"
            }
            h += "</table>\n"
        }
        return h + "</body></html>\n"
    }

    /// Bars for the measured segments (kbit/s, by msn), lines for the declared BANDWIDTH (red), AVERAGE-BANDWIDTH (orange)
    /// and the measured average (grey).
    static func plot(_ v: VariantMeasure) -> String {
        let rates = v.segments.compactMap { s in s.bitRate.map { (msn: s.msn, rate: $0) } }
        let (w, h, left, bottom) = (760.0, 220.0, 96.0, 24.0)
        let top = max(rates.map(\.rate).max() ?? 1, Double(v.bandwidth ?? 0), Double(v.averageBandwidth ?? 0), 1) * 1.1
        func y(_ rate: Double) -> Double { (h - bottom) - rate / top * (h - bottom - 8) }
        let step = (w - left - 8) / Double(max(rates.count, 1))
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" role=\"img\">"
        for (i, r) in rates.enumerated() {
            let x = left + Double(i) * step
            let over = v.bandwidth.map { r.rate > Double($0) } ?? false
            s +=
                "<rect x=\"\(f1(x + 1))\" y=\"\(f1(y(r.rate)))\" width=\"\(f1(max(1, step - 2)))\" height=\"\(f1((h - bottom) - y(r.rate)))\""
            s += " fill=\"\(over ? "#d32f2f" : "#5c85d6")\"><title>msn \(r.msn): \(kbps(r.rate))</title></rect>"
        }
        func line(_ rate: Double, _ color: String, _ label: String, dash: Bool) -> String {
            "<line x1=\"\(Int(left))\" x2=\"\(Int(w - 8))\" y1=\"\(f1(y(rate)))\" y2=\"\(f1(y(rate)))\" stroke=\"\(color)\" stroke-width=\"1.5\""
                + (dash ? " stroke-dasharray=\"6 4\"" : "")
                + "/><text x=\"4\" y=\"\(f1(y(rate) + 4))\" font-size=\"11\" fill=\"\(color)\">\(label)</text>"
        }
        if let bw = v.bandwidth { s += line(Double(bw), "#d32f2f", "BW \(kbps(Double(bw)))", dash: true) }
        if let a = v.averageBandwidth { s += line(Double(a), "#ef6c00", "AVG \(kbps(Double(a)))", dash: true) }
        s += line(v.average, "#757575", "avg \(kbps(v.average))", dash: false)
        let first = rates.first.map { "msn \($0.msn)" } ?? ""
        let last = rates.last.map { "msn \($0.msn)" } ?? ""
        s += "<text x=\"\(Int(left))\" y=\"\(Int(h - 6))\" font-size=\"11\">\(first)</text>"
        s += "<text x=\"\(Int(w - 8))\" y=\"\(Int(h - 6))\" font-size=\"11\" text-anchor=\"end\">\(last)</text></svg>"
        return s
    }

    static func kbps(_ b: Double?) -> String { b.map { "\(Int(($0 / 1000).rounded())) kbit/s" } ?? "-" }
    static func f1(_ v: Double) -> String { fixed(v, 1) }

    /// Text as HTML: `&`, `<`, `>` and quotes escaped.
    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
