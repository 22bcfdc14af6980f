/// An absolute date-time as EXT-X-PROGRAM-DATE-TIME and EXT-X-DATERANGE carry it (ISO 8601), in microseconds since 1970 UTC.
public struct DateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    public init(seconds: Double) { microseconds = DateTime.saturating(seconds * 1_000_000) }

    /// A Double count of microseconds as Int64, clamped instead of trapping (durations in hostile playlists can be anything).
    static func saturating(_ micros: Double) -> Int64 {
        guard micros.isFinite else { return micros > 0 ? limit : (micros < 0 ? -limit : 0) }
        if micros >= Double(limit) { return limit }
        if micros <= -Double(limit) { return -limit }
        return Int64(micros.rounded())
    }

    /// The largest magnitude kept (about 285,000 years), leaving headroom so date arithmetic never overflows.
    static let limit: Int64 = 9_000_000_000_000_000_000

    /// Seconds since 1970 UTC.
    public var seconds: Double { Double(microseconds) / 1_000_000 }

    /// Milliseconds since 1970 UTC, rounded toward negative infinity.
    public var milliseconds: Int64 { microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000 }

    public static func < (a: DateTime, b: DateTime) -> Bool { a.microseconds < b.microseconds }

    /// This date plus `s` seconds.
    public func adding(seconds s: Double) -> DateTime {
        let (sum, overflow) = microseconds.addingReportingOverflow(DateTime.saturating(s * 1_000_000))
        return DateTime(
            microseconds: overflow ? (s > 0 ? DateTime.limit : -DateTime.limit) : max(-DateTime.limit, min(DateTime.limit, sum)))
    }

    /// Seconds from `other` to this date (Double arithmetic, so extreme dates never overflow).
    public func seconds(since other: DateTime) -> Double { (Double(microseconds) - Double(other.microseconds)) / 1_000_000 }

    /// Parses ISO 8601 `YYYY-MM-DDThh:mm:ss[.fff][Z|±hh:mm|±hhmm|±hh]`; a missing offset is read as UTC.
    public init?(iso8601 text: some StringProtocol) {
        let parsed =
            text.utf8.withContiguousStorageIfAvailable { DateTime.parse($0) }
            ?? Array(text.utf8).withUnsafeBufferPointer { DateTime.parse($0) }
        guard let parsed else { return nil }
        microseconds = parsed
    }

    /// The microseconds since 1970 that ISO 8601 bytes name, or nil.
    static func parse(_ u: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        func num(_ n: Int) -> Int? {
            guard i + n <= u.count else { return nil }
            var v = 0
            for k in i..<(i + n) {
                let b = u[k]
                guard b >= 0x30 && b <= 0x39 else { return nil }
                v = v * 10 + Int(b - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < u.count, u[i] == c else { return false }
            i += 1
            return true
        }
        guard let y = num(4), expect(0x2D), let mo = num(2), expect(0x2D), let d = num(2) else { return nil }
        guard i < u.count, u[i] == 0x54 || u[i] == 0x74 || u[i] == 0x20 else { return nil }
        i += 1
        guard let h = num(2), expect(0x3A), let mi = num(2) else { return nil }
        var s = 0
        var micros: Int64 = 0
        if expect(0x3A) {
            guard let sec = num(2) else { return nil }
            s = sec
            if i < u.count, u[i] == 0x2E || u[i] == 0x2C {
                i += 1
                var scale: Int64 = 100_000
                var any = false
                while i < u.count, u[i] >= 0x30, u[i] <= 0x39 {
                    micros += Int64(u[i] - 0x30) * scale
                    scale /= 10
                    i += 1
                    any = true
                }
                if !any { return nil }
            }
        }
        guard (1...12).contains(mo), (1...31).contains(d), h <= 24, mi <= 59, s <= 60 else { return nil }
        var offsetSeconds = 0
        if i < u.count {
            if u[i] == 0x5A || u[i] == 0x7A {
                i += 1
            } else if u[i] == 0x2B || u[i] == 0x2D {
                let sign = u[i] == 0x2D ? -1 : 1
                i += 1
                guard let oh = num(2) else { return nil }
                var om = 0
                if expect(0x3A) {
                    guard let m = num(2) else { return nil }
                    om = m
                } else if i < u.count {
                    guard let m = num(2) else { return nil }
                    om = m
                }
                offsetSeconds = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == u.count else { return nil }
        let days = DateTime.daysFromCivil(y, mo, d)
        let total = Int64(days) * 86_400 + Int64(h * 3600 + mi * 60 + s) - Int64(offsetSeconds)
        return total * 1_000_000 + micros
    }

    /// ISO 8601 in UTC with milliseconds (microseconds when they are not whole milliseconds), e.g. `2026-11-22T01:02:03.456Z`.
    public var iso8601: String {
        let totalSeconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
        let micros = Int(microseconds - totalSeconds * 1_000_000)
        let days = Int(totalSeconds >= 0 ? totalSeconds / 86_400 : (totalSeconds - 86_399) / 86_400)
        let secOfDay = Int(totalSeconds - Int64(days) * 86_400)
        let (y, m, d) = DateTime.civilFromDays(days)
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return s.count >= n ? s : String(repeating: "0", count: n - s.count) + s
        }
        let frac = micros % 1000 == 0 ? "." + pad(micros / 1000, 3) : "." + pad(micros, 6)
        return
            "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secOfDay / 3600, 2)):\(pad(secOfDay / 60 % 60, 2)):\(pad(secOfDay % 60, 2))\(frac)Z"
    }

    public var description: String { iso8601 }

    /// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
