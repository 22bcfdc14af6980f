#!/usr/bin/env python3
"""Content steering: the origin's `steered` stream (the live TS ladder on two loopback CDNs), the preferred CDN (cdn-b,
127.0.0.2) answering 503 to everything for 12 s, steering TTL 4 s. hlstui beside plain mpv (FFmpeg ignores pathways and
steering; the CDN it plays gets the same outage) in one run:
- from the first failed request on the CDN to the first byte from the other;
- the longest still picture while the outage lasts;
- from the CDN answering again to hlstui's move back to it;
- requests to the penalised CDN while it is penalised (each retest is one; one per TTL expected).

Usage: steering_bench.py HLSTUI_BINARY MEDIA_CACHE [RUNS]; prints one JSON object.
"""
import json
import signal
import subprocess
import sys
import threading
import urllib.parse
import urllib.request

import mpv_ipc
from monitor_events import still

hlstui, cache = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
TTL, AT, OUTAGE, DURATION = 4, 10.0, 12.0, 40


def control(path):
    urllib.request.urlopen(f"{base}/control/{path}").read()


def outage(host):
    control(f"fault?kind=status&status=503&target=any&host={host}&for={OUTAGE:g}")


def host(e):
    return urllib.parse.urlparse(e.get("url", "")).hostname


def hlstui_run():
    control(f"clear")
    control(f"steering?priority=cdn-b,cdn-a&ttl={TTL}&status=200")
    threading.Timer(AT, outage, ["127.0.0.2"]).start()
    p = subprocess.run([hlstui, "monitor", f"{base}/steered/master.m3u8", "--video", "none", "--rate", "20", "--duration", str(DURATION)],
                       capture_output=True, text=True, timeout=DURATION + 60)
    events = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    requests = [e for e in events if e["event"] == "request" and e.get("kind") in ("media", "segment", "init")]
    failed = next(e for e in requests if host(e) == "127.0.0.2" and e.get("status") == 503)
    first_failure = failed["t"] - failed["durationMs"] / 1000
    # The first byte from the other CDN: a request to it answered after the failure began, at its start plus time to first byte.
    other = [e["t"] - e["durationMs"] / 1000 + (e.get("ttfbMs") or 0) / 1000
             for e in requests if host(e) == "127.0.0.1" and e.get("status", 0) // 100 == 2 and e["t"] >= failed["t"]]
    moves = [e for e in events if e["event"] == "pathway"]
    failed_over = next((e["t"] for e in moves if e["cause"] == "failure"), None)
    back = next((e["t"] for e in moves if e["cause"] == "recovered"), None)
    recovered_at = first_failure + OUTAGE  # the fault's `for=` from its first answer
    samples = [(e["t"], e.get("timePos")) for e in events if e["event"] == "player"]
    landed = next((e["t"] for e in requests if host(e) == "127.0.0.1" and e["t"] > (failed_over or 1e9) and e.get("kind") == "segment"), None)
    penalised = [e["t"] for e in requests if host(e) == "127.0.0.2" and landed is not None and landed + 0.5 < e["t"] < (back or 1e9)]
    return {"firstByteElsewhere": (min(other) - first_failure) if other else None,
            "still": still(samples, first_failure, recovered_at + TTL + 2),
            "backAfter": (back - recovered_at) if back is not None else None,
            "penalisedRequests": len(penalised),
            "retestSpacing": min((b - a for a, b in zip(penalised, penalised[1:])), default=None),
            "stalls": sum(1 for e in events if e["event"] == "stall"),
            "targetDuration": 2.0}


def mpv_run():
    """Plain mpv on the same master playlist: it plays one variant and never moves, so the outage is put on both CDNs (it
    reads only one of them)."""
    control("clear")
    samples = mpv_ipc.time_pos(f"{base}/steered/master.m3u8",
                               ["--vo=null", "--ao=null", "--demuxer=lavf", "--cache=yes", "--demuxer-readahead-secs=10", "--cache-secs=10",
                                "--input-terminal=no", "--keep-open=yes", "--hls-bitrate=max"], DURATION, AT, lambda: (outage("127.0.0.1"), outage("127.0.0.2")))
    return {"still": still(samples, AT, AT + OUTAGE + TTL + 2)}


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
try:
    h = [hlstui_run() for _ in range(runs)]
    m = mpv_run()
    print(json.dumps({"hlstui": h, "mpv": m, "ttl": TTL, "outage": OUTAGE}))
finally:
    origin.send_signal(signal.SIGKILL)
    origin.wait()
