#!/usr/bin/env python3
"""Replaces one '## ' section of BENCHMARKS.md (matched by its heading's start) with the text on stdin, keeping the others."""
import os
import sys

marker, path = sys.argv[1], "BENCHMARKS.md"
new = sys.stdin.read().strip()
old = open(path).read() if os.path.exists(path) else "# Benchmarks\n\nRatios against a baseline measured in the same run on the same machine (shared and noisy: compare ratios, not times).\n"
sections = old.split("\n## ")
head, rest = sections[0], ["## " + s for s in sections[1:]]
rest = [s for s in rest if not s.startswith(marker)]
order = [new] + rest if marker.startswith("## Playlist") else rest + [new]
open(path, "w").write(head.rstrip() + "\n\n" + "\n\n".join(s.strip() for s in order) + "\n")
print(new)
