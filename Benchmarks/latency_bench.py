#!/usr/bin/env python3
"""Two hlstui processes that never talk, each `monitor --latency S` on the same live camera, the second launched 3 s after
the first: how fast each locks on the wall clock less S, how close each one's decoded frames stay to that target and how
close the two processes' frames stay to each other — beside the same two processes without --latency (each starts where a
player starts, three target durations from the live edge).

Usage: latency_bench.py HLSTUI_BINARY MEDIA_CACHE [STARTS] [SECONDS] [LATENCY] [PATH]; prints one JSON object. PATH is the
origin's stream (default cam-a/cam-a/index.m3u8; ll-ts-fast/master.m3u8 for low latency).
"""
import json
import signal
import subprocess
import sys
import tempfile
import time

from monitor_events import pct, seconds

hlstui, cache = sys.argv[1], sys.argv[2]
starts = int(sys.argv[3]) if len(sys.argv) > 3 else 10
length = float(sys.argv[4]) if len(sys.argv) > 4 else 30.0
latency = float(sys.argv[5]) if len(sys.argv) > 5 else 10.0
path = sys.argv[6] if len(sys.argv) > 6 else "cam-a/cam-a/index.m3u8"
baseline_starts = max(1, starts // 5)
stagger = 3.0


def pair(url, extra):
    """Two monitors, the second `stagger` s after the first, both ending together; each one's events."""
    outs, procs = [], []
    for i in range(2):
        out = tempfile.TemporaryFile("w+")
        duration = length + (stagger if i == 0 else 0)
        procs.append(subprocess.Popen([hlstui, "monitor", url, "--video", "none", "--duration", str(duration), *extra],
                                      stdout=out, stderr=subprocess.DEVNULL, text=True))
        outs.append(out)
        if i == 0:
            time.sleep(stagger)
    events = []
    for p, out in zip(procs, outs):
        p.wait(timeout=length + 120)
        out.seek(0)
        events.append([json.loads(l) for l in out.read().splitlines() if l.startswith("{")])
        out.close()
    return events


def leads(events, field="frameLatency"):
    """(wall clock read, PDT of the decoded frame − the wall clock when it is shown) of each plain tick while the pane
    plays: −`frameLatency`, to the microsecond (docs/SYNC.md, measuring); `field="audioLatency"`: the same of the audio."""
    out = []
    for e in events:
        if e["event"] == "player" and e.get("trigger") is None and e.get("state") == "playing":
            lat, read = e.get(field), seconds(e.get("readAt"))
            if lat is not None and read is not None:
                out.append((read, -lat))
    return out


def nearest(a, b, start):
    """|a's lead − b's| for each of a's readings from `start` and b's nearest within 150 ms, in ms."""
    out = []
    for w, l in a:
        if w < start:
            continue
        near = min(b, key=lambda x: abs(x[0] - w), default=None)
        if near and abs(near[0] - w) < 0.15:
            out.append(abs(l - near[1]) * 1000)
    return out


def lock(events, launched):
    """Seconds from the launch to the first locked sync event, and the wall clock then."""
    for e in events:
        if e["event"] == "sync" and e.get("locked"):
            wall = next((seconds(p.get("readAt")) for p in events if p["event"] == "player" and p["t"] == e["t"]), None)
            return e["t"] + launched, wall
    return None, None


def analyse(events, synced):
    a, b = leads(events[0]), leads(events[1])
    # The second process was launched `stagger` s after the first: lock times from each one's own launch.
    locks = [lock(events[0], 0)[0], lock(events[1], 0)[0]] if synced else [None, None]
    walls = [lock(e, 0)[1] for e in events] if synced else [None, None]
    start = (max(walls) if None not in walls else None) if synced else (b[0][0] + 10 if b else None)
    apart, audio, errors = [], [], []
    if start is not None:
        apart = nearest(a, b, start)
        audio = nearest(leads(events[0], "audioLatency"), leads(events[1], "audioLatency"), start)
        errors = [abs(l + latency) * 1000 for w, l in a + b if w >= start]
    stalls = sum(1 for ev in events for e in ev if e["event"] == "stall" and e.get("end") is not None)
    return {"locks": [x for x in locks if x is not None], "locked": sum(1 for x in locks if x is not None), "apart": apart, "audio": audio,
            "errors": errors, "stalls": stalls}


def summary(runs):
    locks = [x for r in runs for x in r["locks"]]
    apart = [x for r in runs for x in r["apart"]]
    errors = [x for r in runs for x in r["errors"]]
    audio = [x for r in runs for x in r["audio"]]
    return {"starts": len(runs), "processes": 2 * len(runs), "locked": sum(r["locked"] for r in runs),
            "lockP50": pct(locks, 0.5), "lockP95": pct(locks, 0.95), "lockMax": max(locks) if locks else None,
            "apartP50": pct(apart, 0.5), "apartP95": pct(apart, 0.95), "apartMax": max(apart) if apart else None, "n": len(apart),
            "audioP50": pct(audio, 0.5), "audioP95": pct(audio, 0.95),
            "errorP50": pct(errors, 0.5), "errorP95": pct(errors, 0.95), "stalls": sum(r["stalls"] for r in runs)}


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
url = f"{base}/{path}"
try:
    synced = [analyse(pair(url, ["--latency", str(latency)]), True) for _ in range(starts)]
    plain = [analyse(pair(url, []), False) for _ in range(baseline_starts)]
    out = {"starts": starts, "seconds": length, "latency": latency, "stagger": stagger, "path": path,
           "hlstui": summary(synced), "plain": summary(plain)}
finally:
    origin.send_signal(signal.SIGKILL)
    origin.wait()
print(json.dumps(out))
