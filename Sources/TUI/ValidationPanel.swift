import HLS
import Session

// The rules the stream broke while it played (`V`, docs/VALIDATION.md). Built from the session and drawn, both pure.

extension DashboardModel {
    /// A count line, then each finding newest first: when, must or should, where, the rule and what it says.
    static func validationLines(_ s: SessionState) -> [String] {
        guard !s.violations.isEmpty else {
            return [
                "no rule broken so far: each reload is held against the last, each segment's first bytes against the one before (docs/VALIDATION.md)"
            ]
        }
        let must = s.violations.filter { $0.finding.severity == .error }.count
        var lines = [
            "\(s.violationCount) found: \(must) must fix, \(s.violations.count - must) should fix"
                + (s.violationCount > s.violations.count ? " (the newest \(s.violations.count) kept)" : "")
        ]
        for v in s.violations.reversed() {
            let f = v.finding
            lines.append(
                "\(fixed(v.t, 1))s  \(f.severity == .error ? "must  " : "should")  \(v.source)  \(f.rule.rawValue)  \(f.message)  (\(f.section))"
            )
        }
        return lines
    }
}

extension Dashboard {
    static func validation(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        lines("Validation", legend: "newest first", m.validation, into: &c, y: &y, rows: rows) {
            $0.contains("  must  ") ? .bad : .normal
        }
    }
}
