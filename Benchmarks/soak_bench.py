#!/usr/bin/env python3
"""Four live panes for a long while: hlstui's memory, descriptors and threads beside four plain mpv processes on the same
streams, the PDT lock's offset early and late, and the stalls.

Usage: soak_bench.py HLSTUI_BINARY MEDIA_CACHE SECONDS; prints one JSON object. Samples /proc every 10 s.
SOAK_EVENTS=FILE keeps hlstui's JSON Lines there (every request, sync step and skip of the run) to read afterwards.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from monitor_events import frame_offsets, pct

hlstui, cache, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
warmup = min(300.0, seconds / 3)


def status(pid):
    """RSS in MB, descriptors and threads of a process (None when it has gone)."""
    try:
        fields = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status") if ":" in l)
        rss = int(fields["VmRSS"].split()[0]) / 1024
        return rss, len(os.listdir(f"/proc/{pid}/fd")), int(fields["Threads"])
    except (FileNotFoundError, ProcessLookupError, KeyError):
        return None


def slope(points):
    """Least-squares growth per hour of (t, value) points."""
    if len(points) < 2:
        return None
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    return sum((t - mt) * (v - mv) for t, v in points) / var * 3600 if var else None


def summary(samples):
    """Growth after the warm-up, and descriptors and threads at its start and their maximum after."""
    late = [(t, s) for t, s in samples if t >= warmup]
    if not late:
        return None
    return {"rssStart": late[0][1][0], "rssEnd": late[-1][1][0], "rssPerHour": slope([(t, s[0]) for t, s in late]),
            "fdsStart": late[0][1][1], "fdsEnd": late[-1][1][1], "fdsMax": max(s[1] for _, s in late),
            "threadsStart": late[0][1][2], "threadsEnd": late[-1][1][2], "threadsMax": max(s[2] for _, s in late)}


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
urls = [f"{base}/cam-{x}/cam-{x}/index.m3u8" for x in "abcd"]
procs = []
try:
    out = open(os.environ["SOAK_EVENTS"], "w+") if os.environ.get("SOAK_EVENTS") else tempfile.TemporaryFile("w+")
    h = subprocess.Popen([hlstui, "monitor", *urls, "--video", "none", "--duration", str(seconds)],
                         stdout=out, stderr=subprocess.DEVNULL, text=True)
    procs.append(h)
    mpvs = [subprocess.Popen(["mpv", "--no-config", "--vo=null", "--ao=null", "--really-quiet", u],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for u in urls]
    procs += mpvs
    began = time.monotonic()
    ours, theirs = [], []
    while h.poll() is None:
        t = time.monotonic() - began
        s = status(h.pid)
        if s:
            ours.append((t, s))
        each = [status(m.pid) for m in mpvs]
        if all(each):
            theirs.append((t, (sum(e[0] for e in each), sum(e[1] for e in each), sum(e[2] for e in each))))
        time.sleep(10)
    h.wait()
    out.seek(0)
    events = [json.loads(l) for l in out.read().splitlines() if l.startswith("{")]
    lock = next((e["t"] for e in events if e["event"] == "sync" and e.get("locked")), None)
    window = min(600.0, seconds / 3)
    early = frame_offsets(events, 4, lock, lock + window) if lock is not None else []
    late = frame_offsets(events, 4, seconds - window) if lock is not None else []
    result = {
        "seconds": seconds, "warmup": warmup, "window": window, "lock": lock,
        "hlstui": summary(ours), "mpv": summary(theirs),
        "syncEarly": {"p50": pct(early, 0.5), "p95": pct(early, 0.95), "n": len(early)},
        "syncLate": {"p50": pct(late, 0.5), "p95": pct(late, 0.95), "n": len(late)},
        "stalls": sum(1 for e in events if e["event"] == "stall" and e.get("end") is not None),
        "summary": next((e.get("summary") for e in events if e["event"] == "end"), None),
    }
finally:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait()
    origin.send_signal(signal.SIGKILL)
    origin.wait()
print(json.dumps(result))
