#!/usr/bin/env python3
"""Live cameras side by side: how fast hlstui's PDT sync locks 2, 3 and 4 panes and how close their decoded video frames
stay after, beside the same panes started at once without PDT alignment (--no-sync); then two panes for a long soak with
one encoder clock drifting against its PDT.

Usage: sync_bench.py HLSTUI_BINARY MEDIA_CACHE [STARTS] [START_SECONDS] [SOAK_SECONDS]; prints one JSON object.
Runs one at a time (two cores: players running side by side would measure the scheduler).
SYNC_EVENTS=DIR keeps each run's JSON Lines there (run-N.jsonl, in order) to read afterwards; SYNC_FROM=DIR reads such a
directory's runs in place of running them (the same figures and table again, from kept events).
"""
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile

from monitor_events import frame_offsets, pct

hlstui, cache = sys.argv[1], sys.argv[2]
starts = int(sys.argv[3]) if len(sys.argv) > 3 else 10
start_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 30.0
soak_seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 600.0
baseline_starts = max(1, starts // 5)


runs = itertools.count(1)


def monitor(urls, duration, extra=()):
    """One `hlstui monitor` run; its events."""
    if os.environ.get("SYNC_FROM"):
        with open(f"{os.environ['SYNC_FROM']}/run-{next(runs)}.jsonl") as kept:
            return [json.loads(l) for l in kept.read().splitlines() if l.startswith("{")]
    keep = os.environ.get("SYNC_EVENTS")
    with (open(f"{keep}/run-{next(runs)}.jsonl", "w+") if keep else tempfile.TemporaryFile("w+")) as out:
        p = subprocess.Popen([hlstui, "monitor", *urls, "--video", "none", "--duration", str(duration), *extra],
                             stdout=out, stderr=subprocess.DEVNULL, text=True)
        p.wait(timeout=duration + 120)
        out.seek(0)
        return [json.loads(l) for l in out.read().splitlines() if l.startswith("{")]


def analyse(events, panes, synced, settle=10.0):
    """Lock time, and the panes' offsets from the reference on their decoded video frames after it (unsynced: after `settle`)."""
    syncs = [e for e in events if e["event"] == "sync"]
    lock = next((e["t"] for e in syncs if e.get("locked")), None) if synced else None
    known = next((e["t"] for e in syncs if all(p is not None for p in e.get("pdts", []))), None) if synced else None
    start = lock if synced else settle
    offsets = frame_offsets(events, panes, start) if start is not None else []
    audio = frame_offsets(events, panes, start, field="audioLatency") if start is not None else []
    # The same with the ticks where a player restarts at a camera's loop point (a timestamp reset) counted too.
    with_restarts = frame_offsets(events, panes, start, states=("playing", "restarting")) if start is not None else []
    stalls = sum(1 for e in events if e["event"] == "stall" and e.get("end") is not None)
    actions = [e["action"] for e in syncs if e.get("action")]
    return {"lock": lock, "pdtsKnown": known, "offsets": offsets, "audio": audio, "withRestarts": with_restarts, "stalls": stalls, "actions": actions}


def summary(runs):
    locks = [r["lock"] for r in runs if r["lock"] is not None]
    after = [r["lock"] - r["pdtsKnown"] for r in runs if r["lock"] is not None and r["pdtsKnown"] is not None]
    offs = [o for r in runs for o in r["offsets"]]
    all_offs = [o for r in runs for o in r["withRestarts"]]
    audio = [o for r in runs for o in r["audio"]]
    return {"starts": len(runs), "locked": len(locks), "lockP50": pct(locks, 0.5), "lockP95": pct(locks, 0.95),
            "lockMax": max(locks) if locks else None, "afterPdtsP95": pct(after, 0.95),
            "p50": pct(offs, 0.5), "p95": pct(offs, 0.95), "max": max(offs) if offs else None, "n": len(offs),
            "audioP50": pct(audio, 0.5), "audioP95": pct(audio, 0.95), "audioMax": max(audio) if audio else None,
            "p95WithRestarts": pct(all_offs, 0.95), "maxWithRestarts": max(all_offs) if all_offs else None,
            "restartShare": (len(all_offs) - len(offs)) / len(all_offs) if all_offs else None,
            "stalls": sum(r["stalls"] for r in runs),
            "actions": sorted({a for r in runs for a in r["actions"]})}


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
a, b, c = (f"{base}/cam-{x}/cam-{x}/index.m3u8" for x in "abc")
# D: 6 s more latency than A by itself, 4 s more here (a 10 s spread). With D, A lists 15 segments (30 s): its default 16 s
# does not reach back to D's newest playable moment (D's edge less two 6 s segments), and only a hold is left, which the
# last row measures.
d = f"{base}/cam-d/cam-d/index.m3u8?delay=4"
configs = [("2", [a, b], starts), ("3", [a, b, c], starts), ("4", [a + "?window=15", b, c, d], starts),
           ("4, A lists 16 s", [a, b, c, d], max(1, starts // 3))]
try:
    out = {"starts": starts, "startSeconds": start_seconds, "soakSeconds": soak_seconds, "panes": {}}
    for name, urls, k in configs:
        n = len(urls)
        synced = [analyse(monitor(urls, start_seconds), n, True) for _ in range(k)]
        unsynced = [analyse(monitor(urls, start_seconds, ["--no-sync"]), n, False) for _ in range(baseline_starts)] if k == starts else []
        out["panes"][name] = {"hlstui": summary(synced), "unsynced": summary(unsynced) if unsynced else None}
        print(f"{name}: {json.dumps(out['panes'][name]['hlstui'])}", file=sys.stderr)
    if soak_seconds > 0:
        # The same camera twice, the second one's media running 0.05 % fast against its PDT (500 ppm).
        drift = [a, a + "?drift=500"]
        out["drift"] = summary([analyse(monitor(drift, soak_seconds), 2, True)])
finally:
    origin.send_signal(signal.SIGKILL)
    origin.wait()
print(json.dumps(out))
