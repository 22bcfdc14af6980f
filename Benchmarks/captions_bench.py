#!/usr/bin/env python3
"""Closed captions hlstui decodes itself: CPU of `hlstui monitor` showing CEA-708 service 1 (the Loader reads every
segment's caption data, the Session decodes it) against the same stream showing CC1 (the player decodes it, the Loader
reads nothing), alternating in one run on the 360p rung of the origin's VOD TS ladder.

Usage: captions_bench.py HLSTUI_BINARY MEDIA_CACHE [RUNS] [SECONDS]; prints one JSON object.
"""
import json
import os
import statistics
import subprocess
import sys

hlstui, cache = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 16.0

origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]


def run(query, subs):
    """One monitor run: its CPU seconds (user+system, from the kernel's accounting of the finished child) and the captions
    it showed."""
    args = [hlstui, "monitor", "--video", "none", f"{base}/vod-ts/master.m3u8{query}", "--subs", subs, "--pin", "2",
            "--duration", str(seconds)]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    shown = [json.loads(l) for l in out.splitlines() if '"subtitle"' in l]
    return usage.ru_utime + usage.ru_stime, sum(1 for e in shown if e.get("text"))


try:
    own, player = [], []
    for _ in range(runs):
        own.append(run("?cc=all", "English 708"))
        player.append(run("", "English CC"))
    ratios = [a[0] / b[0] for a, b in zip(own, player)]
    print(json.dumps({
        "runs": runs, "seconds": seconds,
        "ownCPU": statistics.median(c for c, _ in own), "playerCPU": statistics.median(c for c, _ in player),
        "ratio": statistics.median(ratios), "ratioMin": min(ratios), "ratioMax": max(ratios),
        "ownShown": min(n for _, n in own), "playerShown": min(n for _, n in player),
    }))
finally:
    origin.kill()
    origin.wait()
