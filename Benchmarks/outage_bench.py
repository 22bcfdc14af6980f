#!/usr/bin/env python3
"""Origin outages, hlstui beside plain mpv on the same faults in one run:
- a rung outage (live-ts v360 segments answer 503 for 6 s, pinned to that rung): seconds the picture stood still and content skipped;
- a live outage (every cam-a request answers 503 for 8 s): seconds from the origin's recovery to time-pos advancing again.

Usage: outage_bench.py HLSTUI_BINARY MEDIA_CACHE; prints one JSON object.
"""
import json
import signal
import subprocess
import sys
import threading
import urllib.request

import mpv_ipc
from monitor_events import still

OPTIONS = ["--vo=null", "--ao=null", "--demuxer=lavf", "--cache=yes", "--demuxer-readahead-secs=10", "--cache-secs=10",
           "--input-terminal=no", "--keep-open=yes", "--hls-bitrate=max"]

hlstui, cache = sys.argv[1], sys.argv[2]


def fault(query):
    urllib.request.urlopen(f"{base}/control/fault?{query}").read()


def clear():
    urllib.request.urlopen(f"{base}/control/clear").read()


def skipped(samples, start, end):
    """Seconds of content jumped over: forward steps of time-pos beyond elapsed time by more than 0.25 s."""
    pts = [(t, p) for t, p in samples if start <= t <= end and p is not None]
    return sum(max(0.0, (p2 - p1) - (t2 - t1)) for (t1, p1), (t2, p2) in zip(pts, pts[1:]) if (p2 - p1) - (t2 - t1) > 0.25)


def resumed(samples, after):
    """Seconds from `after` until time-pos advances over two successive samples; None when it never does."""
    pts = [(t, p) for t, p in samples if t >= after and p is not None]
    for (t1, p1), (t2, p2), (t3, p3) in zip(pts, pts[1:], pts[2:]):
        if p2 > p1 + 0.05 and p3 > p2 + 0.05:
            return t1 - after
    return None


def hlstui_run(url, duration, at, query, extra=()):
    threading.Timer(at, fault, [query]).start()
    p = subprocess.run([hlstui, "monitor", url, "--video", "none", "--rate", "20", "--duration", str(duration), *extra],
                       capture_output=True, text=True, timeout=duration + 60)
    events = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    samples = [(e["t"], e.get("timePos")) for e in events if e["event"] == "player"]
    clear()
    return samples, events


def mpv_run(url, duration, at, query):
    """Plain mpv straight on the origin (its own HLS client, FFmpeg's), time-pos observed through JSON IPC."""
    samples = mpv_ipc.time_pos(url, OPTIONS, duration, at, lambda: fault(query))
    clear()
    return samples


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
try:
    out = {}
    # Rung outage on a live ladder (segments are fetched as they appear, so the outage is met): 503 on v360's segments for
    # 6 s from 3 s.
    rq = "kind=status&status=503&target=segment&scenario=live-ts&rendition=v360&for=6"
    hs, he = hlstui_run(f"{base}/live-ts/master.m3u8", 16, 3, rq, ["--pin", "2"])
    ms = mpv_run(f"{base}/live-ts/v360/index.m3u8", 16, 3, rq)
    out["rung"] = {"hlstui": {"still": still(hs, 3, 16), "skipped": skipped(hs, 3, 16),
                              "failovers": sum(1 for e in he if e["event"] == "failover"),
                              "recovered": [e["t"] for e in he if e["event"] == "recovered"]},
                   "mpv": {"still": still(ms, 3, 16), "skipped": skipped(ms, 3, 16)}}
    # Live outage: every cam-a request answers 503 for 8 s from 5 s; the origin recovers at 13 s.
    lq = "kind=status&status=503&target=any&scenario=cam-a&for=8"
    hs, he = hlstui_run(f"{base}/cam-a/cam-a/index.m3u8", 35, 5, lq)
    ms = mpv_run(f"{base}/cam-a/cam-a/index.m3u8", 35, 5, lq)
    out["live"] = {"hlstui": {"resumedAfter": resumed(hs, 13), "stalls": [e for e in he if e["event"] == "stall" and e.get("end") is not None][:1]},
                   "mpv": {"resumedAfter": resumed(ms, 13)}}
    print(json.dumps(out))
finally:
    origin.send_signal(signal.SIGKILL)
    origin.wait()
