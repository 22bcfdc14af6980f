#!/usr/bin/env python3
"""Start-up on a real link: hlstui's first frame beside plain mpv's on the same stream, in one run.

Every answer of the embedded origin is delayed by 0, 20, 50 and 100 ms (its `slow` fault on every request: a CDN edge's
round trip); over HTTPS too at 50 ms. For each stream and delay the two are started alternately, RUNS times each:
- hlstui monitor: the `firstFrame` event's `at` (the session clock, from hlstui's start to the player's first frame), and
  the time from spawning the process to that line;
- plain mpv (`--no-config`, FFmpeg's own HLS client straight at the origin): from spawning it to its log's "first video
  frame after restart shown".

Usage: startup_bench.py HLSTUI_BINARY MEDIA_CACHE [RUNS]; prints one JSON object.
"""
import json
import signal
import statistics
import subprocess
import sys
import time
import urllib.request

hlstui, cache = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
DELAYS = [0, 20, 50, 100]
STREAMS = [("vod-fmp4", "VOD fMP4"), ("vod-ts", "VOD TS"), ("live-ts", "live TS"), ("ll-fmp4", "LL-HLS fMP4")]


def control(path):
    urllib.request.urlopen(f"{base}/control/{path}").read()


def hlstui_start(url, extra):
    """Seconds from spawn to the firstFrame line, the event's session time, and whether a blocking reload came before it
    (LL-HLS: the player's first read waited for the next segment's first part)."""
    t0 = time.monotonic()
    p = subprocess.Popen([hlstui, "monitor", url, "--video", "none", "--rate", "4", "--duration", "6", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    held = False
    try:
        for line in p.stdout:
            if '"event":"reload"' in line and json.loads(line).get("blockedFor") is not None:
                held = True
            if '"firstFrame"' in line:
                return time.monotonic() - t0, json.loads(line)["at"], held
        return None, None, held
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()


def mpv_start(url):
    """Seconds from spawn to plain mpv's first video frame."""
    t0 = time.monotonic()
    p = subprocess.Popen(["mpv", "--no-config", "--vo=null", "--ao=null", "--input-terminal=no", "--msg-level=all=warn,cplayer=v",
                          url], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in p.stdout:
            if "first video frame after restart shown" in line:
                return time.monotonic() - t0
        return None
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def case(name, url, delay, extra=()):
    control("clear")
    if delay:
        control(f"fault?kind=slow&target=any&ms={delay}")
    spawn, session, plain, held = [], [], [], 0
    for _ in range(runs):
        s, a, h = hlstui_start(url, list(extra))
        spawn.append(s)
        session.append(a)
        held += h
        plain.append(mpv_start(url))
    control("clear")
    done = [x for x in session if x is not None]
    return {"stream": name, "delayMs": delay, "hlstuiSession": median(session), "hlstuiSessionMax": max(done) if done else None,
            "hlstuiHeld": held, "hlstuiSpawn": median(spawn), "mpvSpawn": median(plain), "runs": runs}


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--tls", "--tls-port", "0", "--quiet", "--cache", cache],
                          stdout=subprocess.PIPE, text=True)
first = origin.stdout.readline().split()
base, secure = first[3], first[5]
pin = None
for _ in range(4):
    line = origin.stdout.readline()
    if "--pin-sha256" in line:
        pin = line.split()[-1]
        break
try:
    rows = []
    for key, name in STREAMS:
        for delay in DELAYS:
            rows.append(case(name, f"{base}/{key}/master.m3u8", delay))
    rows.append(case("VOD fMP4 over HTTPS", f"{secure}/vod-fmp4/master.m3u8", 50, ["--pin-sha256", pin] if pin else ["--insecure"]))
    print(json.dumps({"rows": rows}))
finally:
    origin.send_signal(signal.SIGKILL)
    origin.wait()
