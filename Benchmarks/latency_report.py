"""The table of a `latency_bench.py` result, shared by `scripts/bench.sh latency` and `latency-ll`."""


def ms(v):
    return "–" if v is None else f"{v:.1f} ms"


def s(v):
    return "–" if v is None else f"{v:.1f} s"


def table(r):
    """The rows of hlstui with `--latency` and of the same two processes without it, with the ratio of their p95s."""
    h, p = r["hlstui"], r["plain"]
    ratio = f"{p['apartP95'] / h['apartP95']:.0f}×" if h["apartP95"] and p["apartP95"] else "–"
    return [
        "| run | processes locked | lock p50 | lock p95 (max) | apart p50 | apart p95 (max) | audio apart p50 | p95 | against the target p50 | p95 | stalls |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        f"| hlstui --latency {r['latency']:g} | {h['locked']}/{h['processes']} | {s(h['lockP50'])} | {s(h['lockP95'])} ({s(h['lockMax'])}) | "
        f"{ms(h['apartP50'])} | **{ms(h['apartP95'])}** ({ms(h['apartMax'])}) | {ms(h['audioP50'])} | **{ms(h['audioP95'])}** | "
        f"{ms(h['errorP50'])} | {ms(h['errorP95'])} | {h['stalls']} |",
        f"| without --latency | – | – | – | {ms(p['apartP50'])} | {ms(p['apartP95'])} ({ratio} hlstui's p95) | {ms(p['audioP50'])} | "
        f"{ms(p['audioP95'])} | {ms(p['errorP50'])} | "
        f"{ms(p['errorP95'])} | {p['stalls']} |",
    ]
