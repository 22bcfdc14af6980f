// Number formatting for pure modules (no Foundation).

/// `v` with `decimals` digits after the point, without Foundation ("12.35", "-0.5", "7").
public func fixed(_ v: Double, _ decimals: Int) -> String {
    guard v.isFinite else { return v.isNaN ? "nan" : (v > 0 ? "inf" : "-inf") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let r = (abs(v) * scale).rounded()
    guard r < 9e15 else { return v > 0 ? "huge" : "-huge" }
    let n = Int(r)
    let whole = n / Int(scale)
    let frac = n % Int(scale)
    let sign = v < 0 && n != 0 ? "-" : ""
    if decimals == 0 { return sign + String(whole) }
    let f = String(frac)
    return sign + String(whole) + "." + String(repeating: "0", count: decimals - f.count) + f
}
