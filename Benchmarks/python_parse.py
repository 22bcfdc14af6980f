#!/usr/bin/env python3
"""Times Python's m3u8 package parsing FILE: median of N runs, and memory. Prints one JSON line."""
import json
import resource
import statistics
import sys
import time

import m3u8

path, runs = sys.argv[1], int(sys.argv[2])
text = open(path, encoding="utf-8").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
times = []
for _ in range(runs):
    t = time.perf_counter()
    p = m3u8.loads(text)
    times.append(time.perf_counter() - t)
    count = len(p.segments) + len(p.playlists)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"medianMs": statistics.median(times) * 1000, "minMs": min(times) * 1000,
                  "peakRssKB": after, "growthKB": after - before, "items": count}))
