#!/usr/bin/env python3
"""Two live cameras side by side: PDT offset between the panes with hlstui's sync, and with two players started at once
without PDT alignment (--no-sync), both running at the same time in one run.

Usage: sync_bench.py HLSTUI_BINARY MEDIA_CACHE [SECONDS]; prints one JSON object.
"""
import datetime
import json
import signal
import subprocess
import sys
import tempfile

hlstui, cache = sys.argv[1], sys.argv[2]
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 600.0


def pdt(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() if s else None


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else None


def analyse(events, use_sync):
    """Offsets in ms from player samples taken in the same tick (and, with sync, the controller's audio-clock offsets)."""
    by_t = {}
    for e in events:
        if e["event"] == "player" and e.get("trigger") is None:
            by_t.setdefault(e["t"], {})[e["pane"]] = e
    sample_offsets, stalls = [], sum(1 for e in events if e["event"] == "stall")
    lock = None
    if use_sync:
        lock = next((e["t"] for e in events if e["event"] == "sync" and e.get("locked")), None)
    start = lock if lock is not None else 10.0
    for t, panes in sorted(by_t.items()):
        a, b = panes.get(0), panes.get(1)
        if t < start or not a or not b or a.get("state") != "playing" or b.get("state") != "playing":
            continue
        pa, pb = pdt(a.get("playheadPDT")), pdt(b.get("playheadPDT"))
        if pa is not None and pb is not None:
            sample_offsets.append(abs(pa - pb) * 1000)
    sync_offsets = [abs(e["offsetMs"]) for e in events if e["event"] == "sync" and e.get("offsetMs") is not None and lock is not None and e["t"] >= lock]
    return {"lockSeconds": lock, "stalls": stalls, "n": len(sample_offsets),
            "video": {"p50": pct(sample_offsets, 0.5), "p95": pct(sample_offsets, 0.95), "max": max(sample_offsets) if sample_offsets else None},
            "audio": {"p50": pct(sync_offsets, 0.5), "p95": pct(sync_offsets, 0.95), "max": max(sync_offsets) if sync_offsets else None} if use_sync else None}


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
urls = [f"{base}/cam-a/cam-a/index.m3u8", f"{base}/cam-b/cam-b/index.m3u8"]
try:
    # Output to files: a pipe left unread while the other run is awaited would fill and block that monitor.
    files = {name: tempfile.TemporaryFile("w+") for name in ["hlstui", "unsynced"]}
    runs = {name: subprocess.Popen([hlstui, "monitor", *urls, "--video", "none", "--duration", str(seconds), *extra],
                                   stdout=files[name], stderr=subprocess.DEVNULL, text=True)
            for name, extra in [("hlstui", []), ("unsynced", ["--no-sync"])]}
    out = {"seconds": seconds}
    for name, p in runs.items():
        p.wait(timeout=seconds + 120)
        files[name].seek(0)
        events = [json.loads(l) for l in files[name].read().splitlines() if l.startswith("{")]
        out[name] = analyse(events, name == "hlstui")
finally:
    origin.send_signal(signal.SIGKILL)
    origin.wait()
print(json.dumps(out))
