#!/usr/bin/env python3
"""`hlstui download` against plain parallel HTTP fetches (curl) of the same segments, in the same run, from the same
embedded origin on 127.0.0.1: wall time for the whole set, both writing every segment to disk with the same number of
fetches at once. Rounds alternate which goes first. Prints JSON.

Usage: download_bench.py HLSTUI MEDIA_CACHE [ROUNDS]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

hlstui, cache = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
PARALLEL = 4
CASES = [
    # (name, segment bytes, segments, Mbit/s per connection or None)
    ("loopback, unpaced", 4_000_000, 150, None),
    ("paced, 40 Mbit/s per connection", 1_000_000, 24, 40),
]

origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
work = tempfile.mkdtemp(prefix="hlstui-download-bench-")
env = dict(os.environ, XDG_DATA_HOME=os.path.join(work, "data"))


def hlstui_run(url, n):
    out = os.path.join(work, "dl")
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.monotonic()
    r = subprocess.run([hlstui, "download", url, "--out", out, "--parallel", str(PARALLEL)], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    t = time.monotonic() - t0
    if r.returncode != 0:
        raise SystemExit(f"hlstui download failed: {r.stdout[-400:]}")
    files = [f for f in os.listdir(os.path.join(out, "control")) if f.endswith(".ts")]
    assert len(files) == n, files
    return t


def curl_run(urls):
    out = os.path.join(work, "curl")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    config = os.path.join(work, "curl.cfg")
    with open(config, "w") as f:
        for i, u in enumerate(urls):
            f.write(f'url = "{u}"\noutput = "{out}/{i:06d}.ts"\n')
    t0 = time.monotonic()
    subprocess.run(["curl", "--silent", "--fail", "--parallel", "--parallel-max", str(PARALLEL), "--config", config], check=True,
                   stderr=subprocess.DEVNULL)
    t = time.monotonic() - t0
    assert len(os.listdir(out)) == len(urls)
    return t


result = {"parallel": PARALLEL, "rounds": rounds, "cases": []}
try:
    for name, size, n, mbit in CASES:
        q = f"bytes={size}&segments={n}" + (f"&mbit={mbit}" if mbit else "")
        url = f"{base}/control/bench.m3u8?{q}"
        seg = f"{base}/control/blob.ts?bytes={size}" + (f"&mbit={mbit}" if mbit else "")
        urls = [f"{seg}&i={i}" for i in range(n)]
        hl, cu = [], []
        hlstui_run(url, n)  # warm: the origin's media and the page cache
        for r in range(rounds):
            if r % 2 == 0:
                hl.append(hlstui_run(url, n))
                cu.append(curl_run(urls))
            else:
                cu.append(curl_run(urls))
                hl.append(hlstui_run(url, n))
        total = size * n
        result["cases"].append({
            "name": name, "segments": n, "bytes": total,
            "hlstuiSeconds": statistics.median(hl), "curlSeconds": statistics.median(cu),
            "hlstuiMBps": total / statistics.median(hl) / 1e6, "curlMBps": total / statistics.median(cu) / 1e6,
            "ratio": statistics.median(cu) / statistics.median(hl),
            "hlstuiRuns": hl, "curlRuns": cu,
        })
finally:
    origin.kill()
    origin.wait()
    shutil.rmtree(work, ignore_errors=True)
print(json.dumps(result))
