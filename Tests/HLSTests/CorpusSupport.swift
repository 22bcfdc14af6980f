import Foundation
import HLS

/// hlstui's own playlists (`Tests/HLSTests/Corpus`), always; and the corpus of real playlists `shared/corpus/public` beside the
/// checkout (or at $HLSTUI_CORPUS) when it is there.
enum Corpus {
    /// The committed playlists.
    static let own = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")

    /// The larger corpus of real playlists, when present.
    static var directory: URL? {
        if let env = ProcessInfo.processInfo.environment["HLSTUI_CORPUS"] {
            return FileManager.default.fileExists(atPath: env) ? URL(fileURLWithPath: env) : nil
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let dir = root.deletingLastPathComponent().appendingPathComponent("shared/corpus/public")
        return FileManager.default.fileExists(atPath: dir.path) ? dir : nil
    }

    /// The committed playlists, then the larger corpus's when present.
    static var files: [URL] { playlists(in: own) + (directory.map(playlists(in:)) ?? []) }

    static func playlists(in dir: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".m3u8") }.sorted().map { dir.appendingPathComponent($0) }
    }

    static func text(_ url: URL) -> String {
        let data = (try? Data(contentsOf: url)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Compares one playlist's model with the facts of the independent parser, returning each disagreement as `field: ours vs theirs`.
struct FactComparer {
    var mismatches: [String] = []
    var skip: Set<String>

    mutating func eq(_ field: String, _ ours: Any?, _ theirs: Any?) {
        let head = field.components(separatedBy: "[").first ?? field
        let tail = field.components(separatedBy: ".").last ?? field
        let first = head.components(separatedBy: ".").first ?? head
        if skip.contains(field) || skip.contains(head) || skip.contains(tail) || skip.contains(first) { return }
        if !FactComparer.same(ours, theirs) {
            mismatches.append("\(field): ours \(FactComparer.show(ours)) vs theirs \(FactComparer.show(theirs))")
        }
    }

    static func unwrap(_ v: Any?) -> Any? {
        guard let v else { return nil }
        if v is NSNull { return nil }
        let m = Mirror(reflecting: v)
        if m.displayStyle == .optional { return m.children.first.map { unwrap($0.value) } ?? nil }
        return v
    }

    static func show(_ v: Any?) -> String { unwrap(v).map { "\($0)" } ?? "null" }

    static func same(_ a0: Any?, _ b0: Any?) -> Bool {
        let a = unwrap(a0), b = unwrap(b0)
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        default: break
        }
        // Our value's Swift type decides how theirs (from JSONSerialization) is read.
        if let x = a as? Bool { return x == ((b as? NSNumber)?.boolValue ?? (b as? Bool) ?? !x) }
        if let x = a as? Int {
            if let y = b as? NSNumber { return abs(Double(x) - y.doubleValue) < 1e-6 }
            return false
        }
        if let x = a as? Double {
            if let y = b as? NSNumber { return abs(x - y.doubleValue) < 1e-6 }
            return false
        }
        if let x = a as? String { return x == (b as? String) }
        return "\(a!)" == "\(b!)"
    }
}
