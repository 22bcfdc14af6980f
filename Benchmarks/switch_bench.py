#!/usr/bin/env python3
"""Rung switches: time from the action to the first frame of the new rung, and frozen time per switch, for each mechanism,
beside plain mpv's own vid/aid switch on the same stream, in one run.

Usage: switch_bench.py HLSTUI_BINARY MEDIA_CACHE; prints one JSON object.
"""
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import mpv_ipc

hlstui, cache = sys.argv[1], sys.argv[2]
HEIGHTS = {0: 144, 1: 240, 2: 360}


def freezes(samples, start, end):
    """Seconds the picture stood still between `start` and `end`: runs of unchanged time-pos longer than two frames, minus one frame."""
    total, run_start, last_pos = 0.0, None, None
    for t, pos in samples:
        if t < start or t > end:
            continue
        if pos is not None and pos == last_pos:
            run_start = run_start if run_start is not None else prev_t
        else:
            if run_start is not None and prev_t - run_start > 0.067:
                total += prev_t - run_start + 0.02 - 0.033
            run_start = None
        last_pos, prev_t = pos, t
    return total


def skipped(samples, start, end):
    """Seconds of content jumped over between `start` and `end`: how much further time-pos moved than the clock between two samples,
    where that is over 0.1 s, except the step out of a live loop's timestamp reset (time-pos restarts, reads 0 for a moment, then the new
    loop's first timestamp: nothing is skipped)."""
    # A time-pos of 0 is no position (mpv reads it while it opens a stream, or after FFmpeg ended an fMP4 stream it seeked in).
    pts = [(t, p) for t, p in samples if start <= t <= end and p is not None and p > 0.05]
    steps = list(zip(pts, pts[1:]))
    return sum((b - a) - (tb - ta) for i, ((ta, a), (tb, b)) in enumerate(steps)
               if (b - a) - (tb - ta) > 0.1 and not (i > 0 and steps[i - 1][1][1] < steps[i - 1][0][1]))


def measure(samples, actions, horizon):
    """For each (t, height) action: seconds to the first sample at that height, and frozen seconds around the switch."""
    out = []
    for i, (t0, h) in enumerate(actions):
        first = next((t for t, _, hh in samples if t > t0 and hh == h), None)
        end = actions[i + 1][0] if i + 1 < len(actions) else horizon
        lat = (first - t0) if first is not None and first < end else None
        window_end = (first + 0.5) if lat is not None else end
        tp = [(t, p) for t, p, _ in samples]
        out.append({"latency": lat, "frozen": freezes(tp, t0 - 0.05, window_end), "skipped": skipped(tp, t0 - 0.05, window_end)})
    return out


def hlstui_run(url, mode, actions, duration, extra=()):
    cmds = "".join(f"{t} pin {r}\n" for t, r in actions)
    with tempfile.NamedTemporaryFile("w", suffix=".cmds", delete=False) as f:
        f.write(cmds)
    p = subprocess.run([hlstui, "monitor", url, "--video", "none", "--rate", "50", "--switch", mode, "--duration", str(duration),
                        "--commands", f.name, *extra], capture_output=True, text=True, timeout=duration + 60)
    os.unlink(f.name)
    events = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    samples = [(e["t"], e.get("timePos"), e.get("height")) for e in events if e["event"] == "player" and e.get("state") == "playing"]
    mech = [e["mechanism"] for e in events if e["event"] == "variant" and e["reason"] == "manual"]
    stalls = [e for e in events if e["event"] == "stall"]
    acts = [(float(t), HEIGHTS[r]) for t, r in actions]
    return {"switches": measure(samples, acts, duration), "mechanism": sorted(set(mech)), "stalls": len(stalls),
            "reported": sum(1 for e in events if e["event"] == "skip"), "events": events}


def mpv_run(url, actions, duration):
    """Plain mpv on the origin URL, switching vid and aid to the target variant's tracks (docs/PLATFORM.md) through JSON IPC."""
    p, s = mpv_ipc.start(url, ["--vo=null", "--ao=null", "--demuxer=lavf", "--rebase-start-time=no", "--cache=yes",
                               "--demuxer-readahead-secs=10", "--cache-secs=10", "--hls-bitrate=min", "--input-terminal=no", "--keep-open=yes"])
    f = s.makefile("rwb", buffering=0)

    def send(cmd):
        f.write((json.dumps({"command": cmd}) + "\n").encode())

    send(["observe_property", 1, "time-pos"])
    send(["observe_property", 2, "video-params/h"])
    start = time.monotonic()
    samples, pos, height, pending, tracks = [], None, None, list(actions), None
    s.settimeout(0.01)
    buf = b""
    while time.monotonic() - start < duration:
        now = time.monotonic() - start
        if pending and now >= pending[0][0]:
            _, rung = pending.pop(0)
            send(["get_property", "track-list"])
            tracks_wanted = rung
        try:
            buf += s.recv(65536)
        except socket.timeout:
            pass
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            m = json.loads(line)
            if m.get("event") == "property-change":
                if m["name"] == "time-pos":
                    pos = m.get("data")
                elif m["name"] == "video-params/h":
                    height = m.get("data")
                samples.append((time.monotonic() - start, pos, height))
            elif isinstance(m.get("data"), list):
                vids = [t for t in m["data"] if t["type"] == "video"]
                auds = [t for t in m["data"] if t["type"] == "audio" and t.get("lang") != "de"]
                v = next((t for t in vids if t.get("demux-h") == HEIGHTS[tracks_wanted]), None)
                if v:
                    k = vids.index(v)
                    send(["set_property", "vid", v["id"]])
                    if k < len(auds):
                        send(["set_property", "aid", auds[k]["id"]])
    p.send_signal(signal.SIGKILL)
    p.wait()
    acts = [(float(t), HEIGHTS[r]) for t, r in actions]
    return {"switches": measure(samples, acts, duration)}


def summary(runs):
    lat = [s["latency"] for r in runs for s in r["switches"] if s["latency"] is not None]
    frozen = [s["frozen"] for r in runs for s in r["switches"]]
    missed = sum(1 for r in runs for s in r["switches"] if s["latency"] is None)
    skip = [s["skipped"] for r in runs for s in r["switches"]]
    return {"latencyMs": 1000 * statistics.median(lat) if lat else None, "latencyMaxMs": 1000 * max(lat) if lat else None,
            "frozenMs": 1000 * statistics.median(frozen) if frozen else None, "frozenMaxMs": 1000 * max(frozen) if frozen else None,
            "skippedMaxMs": 1000 * max(skip) if skip else None, "missed": missed, "n": len(frozen), "stalls": sum(r.get("stalls", 0) for r in runs),
            "reported": sum(r.get("reported", 0) for r in runs)}


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
out = {"cases": []}
try:
    # The first switch at 3 s: the playhead is past the player's first segment (a re-read there waits for the next boundary).
    immediate = [(3, 2), (8, 0), (13, 2)]
    for name in ["vod-ts", "broadcast-vod-ts", "vod-fmp4", "broadcast-vod-fmp4", "live-ts", "broadcast-live-ts", "live-fmp4", "broadcast-live-fmp4"]:
        url = f"{base}/{name}/master.m3u8"
        case = {"stream": name}
        r = hlstui_run(url, "immediate", immediate, 17)
        case["immediate"] = dict(summary([r]), mechanism=r["mechanism"])
        r = hlstui_run(url, "smooth", [(3, 2)], 17)
        case["smooth"] = dict(summary([r]), mechanism=r["mechanism"])
        case["mpv"] = summary([mpv_run(url, immediate, 17)])
        out["cases"].append(case)
    # GAP: v360 pinned; gap-one fills msn 4-5 from v240, gap-all crosses them. Frozen time over the whole run.
    for name in ["gap-one", "gap-all"]:
        p = subprocess.run([hlstui, "monitor", f"{base}/{name}/master.m3u8", "--video", "none", "--rate", "50", "--pin", "2", "--duration", "15"],
                           capture_output=True, text=True, timeout=80)
        ev = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        smp = [(e["t"], e.get("timePos")) for e in ev if e["event"] == "player" and e.get("state") == "playing"]
        out[name] = {"frozenMs": 1000 * freezes(smp, 1, 15), "stalls": sum(1 for e in ev if e["event"] == "stall"),
                     "gaps": [e["action"] for e in ev if e["event"] == "gap"][:2]}
finally:
    origin.send_signal(signal.SIGKILL)
    origin.wait()
print(json.dumps(out))
