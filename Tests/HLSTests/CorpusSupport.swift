import Foundation
import HLS

/// Finds `shared/corpus/public` beside the checkout (or at $HLSTUI_CORPUS).
enum Corpus {
    static var directory: URL? {
        if let env = ProcessInfo.processInfo.environment["HLSTUI_CORPUS"] { return URL(fileURLWithPath: env) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let dir = root.deletingLastPathComponent().appendingPathComponent("shared/corpus/public")
        return FileManager.default.fileExists(atPath: dir.path) ? dir : nil
    }

    /// True under CI, where a missing corpus is a failure rather than a skip.
    static var required: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    static var files: [URL] {
        guard let dir = directory,
            let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path)
        else { return [] }
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
