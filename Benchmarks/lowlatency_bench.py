#!/usr/bin/env python3
"""LL-HLS latency: one of the origin's LL streams (`ll-ts` or `ll-fmp4`: 4 s segments of 1 s parts, PART-HOLD-BACK 3 s; the
`-fast` ones: 0.333 s parts, PART-HOLD-BACK 1 s), one
rung, played by `hlstui monitor` and by plain mpv side by side in the same run. The latency is the wall clock minus the moment the frame at the playhead
was published, from the origin's truth, not from either player's own figures: the origin's segment n starts at wall-clock
second 4n (its PDT), and the first PTS of each segment of its loop is read from the segment's own bytes (MPEG-TS: its first
PES; fMP4: its first video frame as FFmpeg's demuxer times it, by ffprobe on the init section and the segment), so a raw
time-pos (`rebase-start-time=no`) read at a wall-clock moment names the segment and the instant it plays — up to whole
loops of the media (20 s), which repeat their timestamps: each run's readings are followed by continuity from the first,
which is taken in the lowest span a player can be in (hlstui from 0 s, a player of whole segments from one segment), so any
doubt goes in plain mpv's favour.

Usage: lowlatency_bench.py HLSTUI_BINARY MEDIA_CACHE SECONDS [SCENARIO]; prints one JSON object.
"""
import datetime
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import mpv_ipc

hlstui, cache, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
SCENARIO = sys.argv[4] if len(sys.argv) > 4 else "ll-ts"
EXT = "ts" if SCENARIO.startswith("ll-ts") else "m4s"
RUNG, SEGMENT, WARMUP = "v360", 4.0, 10.0


def first_pts(data):
    """The first PES PTS in MPEG-TS bytes, seconds."""
    for i in range(0, len(data) - 188 + 1, 188):
        p = data[i:i + 188]
        if p[0] != 0x47 or not p[1] & 0x40:
            continue
        at = 4 + (1 + p[4] if p[3] & 0x20 else 0)
        pes = p[at:]
        if pes[:3] == b"\x00\x00\x01" and pes[7] & 0x80:
            b = pes[9:14]
            return (((b[0] >> 1) & 7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1) / 90000
    return None


def first_video_pts(init, data):
    """The first video frame's time in an fMP4 segment as FFmpeg's mov demuxer gives it (edit list included), seconds."""
    with tempfile.NamedTemporaryFile(suffix=".mp4") as f:
        f.write(init + data)
        f.flush()
        out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=start_time",
                              "-of", "csv=p=0", f.name], capture_output=True, text=True).stdout.strip()
    return float(out)


def part_timing():
    """PART-HOLD-BACK and PART-TARGET, as the stream's playlist states them (RFC 8216bis §4.4.3.7, §4.4.3.8)."""
    import re
    with urllib.request.urlopen(f"{base}/{SCENARIO}/{RUNG}/index.m3u8") as r:
        text = r.read().decode()
    hold = float(re.search(r"PART-HOLD-BACK=([0-9.]+)", text).group(1))
    target = float(re.search(r"#EXT-X-PART-INF:PART-TARGET=([0-9.]+)", text).group(1))
    return hold, target


def truth():
    """The first PTS of each segment of the loop, by its position, and the loop's length: read from the newest complete
    segments until the timestamps repeat (or one segment's and no loop, when they run on)."""
    newest = int(time.time() // SEGMENT) - 1
    firsts = {}
    init = None
    if EXT == "m4s":
        with urllib.request.urlopen(f"{base}/{SCENARIO}/{RUNG}/init.mp4") as r:
            init = r.read()
    for n in range(newest - 11, newest):
        with urllib.request.urlopen(f"{base}/{SCENARIO}/{RUNG}/s{n}.{EXT}") as r:
            data = r.read()
            firsts[n] = first_pts(data) if init is None else first_video_pts(init, data)
    ns = sorted(firsts)
    # Timestamps that run on across the loop (the origin's MPEG-TS: a segment's first PTS one segment after the one before
    # it): one segment's names them all, no loop (None).
    if all(abs(firsts[b] - firsts[a] - SEGMENT) < 0.01 for a, b in zip(ns, ns[1:])):
        return {ns[0]: firsts[ns[0]]}, None
    loop = next(k for k in range(1, len(ns)) if abs(firsts[ns[0] + k] - firsts[ns[0]]) < 0.001)
    return {n % loop: firsts[n] for n in ns[:loop]}, loop


def candidates(pos, wall, firsts, loop):
    """Wall clock minus the publishing moment of raw time `pos` read at `wall`, for every segment whose PTS span holds it:
    the loop repeats its timestamps, so these are one latency and that latency plus or minus whole loops."""
    if loop is None:
        # Running timestamps: segment n starts at wall-clock second 4n, its first PTS SEGMENT after segment n-1's.
        (n0, f0), = firsts.items()
        return [wall - (n0 * SEGMENT + (pos - f0))]
    out = []
    for k, f in firsts.items():
        if f - 0.1 <= pos < f + SEGMENT + 0.1:
            n = int((wall - (pos - f)) // SEGMENT)
            while n % loop != k:
                n -= 1
            out.append(wall - (n * SEGMENT + (pos - f)))
    return out


def unwrap(readings, firsts, loop, start):
    """The latency of each (pos, wall) reading, the loop's ambiguity resolved by continuity: the first reading takes the
    candidate in [start, start + one loop) (where the player starts), each later one the candidate nearest the one before."""
    span = loop * SEGMENT if loop else 0
    out, last = [], None
    for pos, wall in readings:
        c = [x + j * span for x in candidates(pos, wall, firsts, loop) for j in (range(-2, 3) if loop else [0])]
        if not c:
            continue
        if loop is None:
            pick = c[0]
        else:
            pick = min(c, key=lambda x: abs(x - last)) if last is not None else next((x for x in sorted(c) if start <= x < start + span), None)
        if pick is None:
            continue
        out.append(pick)
        last = pick
    return out


def stats(v):
    v = sorted(v)
    return {"p50": v[len(v) // 2], "p95": v[int(0.95 * (len(v) - 1))], "max": v[-1], "samples": len(v)} if v else None


def hlstui_run(firsts, loop):
    # The ladder, v360 pinned; halfway through, a switch at the edge to 144p (the rungs share their timestamps).
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as cmds:
        cmds.write(f"{seconds / 2:g} pin 0\n")
        cmds.flush()
        p = subprocess.run([hlstui, "monitor", f"{base}/{SCENARIO}/master.m3u8", "--pin", "2", "--commands", cmds.name,
                            "--video", "none", "--duration", str(seconds)], capture_output=True, text=True, timeout=seconds + 60)
    events = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    switches = [e["t"] for e in events if e["event"] == "variant" and e.get("reason") == "manual"]
    start = next(e["t"] for e in events if e["event"] == "player")
    readings = [(e["timePos"], wall_seconds(e["readAt"])) for e in events
                if e["event"] == "player" and e.get("state") == "playing" and e.get("timePos") is not None]
    # hlstui starts PART-HOLD-BACK behind the last part.
    series = unwrap(readings, firsts, loop, -0.5)
    skip = sum(1 for e in events if e["event"] == "player" and e.get("state") == "playing" and e.get("timePos") is not None
               and e["t"] - start < WARMUP)
    lat = series[skip:]
    stalls = [e["t"] for e in events if e["event"] == "stall" and e.get("end") is None]
    return {"latency": stats(lat), "stalls": len(stalls),
            "parts": sum(1 for e in events if e["event"] == "request" and e.get("kind") == "part"),
            "switches": len(switches), "switchAt": switches[0] if switches else None,
            "stallsAfterSwitch": sum(1 for t in stalls if switches and 0 <= t - switches[0] <= 10)}


def wall_seconds(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def mpv_run(firsts, loop):
    # Each reading with the wall clock it was read at (the origin's truth is on the wall clock).
    samples = mpv_ipc.time_pos(f"{base}/{SCENARIO}/{RUNG}/index.m3u8",
                               ["--vo=null", "--ao=null", "--demuxer=lavf", "--cache=yes", "--rebase-start-time=no",
                                "--input-terminal=no", "--keep-open=yes"], seconds, wall=True)
    t0 = samples[0][0] if samples else 0
    # A player of whole segments is at least one segment (4 s) behind: its first reading lies in [4, 24).
    series = unwrap([(pos, t) for t, pos in samples], firsts, loop, SEGMENT)
    lat = series[sum(1 for t, _ in samples if t - t0 < WARMUP):]
    # A stall: time-pos standing still for more than half a second, counted once per standstill (a timestamp reset moves it
    # back: that is a move).
    stalls, moved, counted = 0, None, False
    for t, pos in samples:
        if moved is None or abs(pos - moved[1]) > 0.001:
            moved, counted = (t, pos), False
        elif t - moved[0] > 0.5 and not counted:
            stalls, counted = stalls + 1, True
    return {"latency": stats(lat), "stalls": stalls}


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
try:
    firsts, loop = truth()
    hold, part = part_timing()
    # Side by side: the same stream over the same minutes (one player each, on two cores).
    out = {}
    side = threading.Thread(target=lambda: out.update(mpv=mpv_run(firsts, loop)))
    side.start()
    out["hlstui"] = hlstui_run(firsts, loop)
    side.join()
    print(json.dumps({"scenario": SCENARIO, "hlstui": out["hlstui"], "mpv": out["mpv"], "seconds": seconds, "warmup": WARMUP,
                      "partHoldBack": hold, "partTarget": part}))
finally:
    origin.send_signal(signal.SIGKILL)
    origin.wait()
