#!/usr/bin/env python3
"""Fleet benchmark: CPU and memory per headless session, with and without video decoding, against one `hlstui monitor`
process per stream, and the scrape time of a fleet of 50 sessions against a fleet of one (same run, same origin).

Usage: fleet_bench.py HLSTUI N SECONDS   — prints one JSON object.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from benchproc import cpu_seconds, free_port, rss_mib


def wait_http(url, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.read()
        except Exception:
            time.sleep(0.2)
    raise SystemExit(f"fleet bench: {url} did not answer in {timeout} s")


def measure(pids, seconds, warmup):
    """CPU share of one core (all processes together) over `seconds` after `warmup`, and summed RSS at the end."""
    time.sleep(warmup)
    c0 = sum(cpu_seconds(p) for p in pids)
    t0 = time.time()
    peak = 0.0
    while time.time() - t0 < seconds:
        time.sleep(1)
        peak = max(peak, sum(rss_mib(p) for p in pids))
    c1 = sum(cpu_seconds(p) for p in pids)
    return {"cpuPct": 100 * (c1 - c0) / (time.time() - t0), "rssMiB": peak}


def fleet_file(base, n, video, port):
    lines = [f"metrics: 127.0.0.1:{port}", "streams:"]
    for i in range(n):
        lines += [f"  - name: s{i}", f"    url: {base}/live-ts/master.m3u8", f"    video: {'true' if video else 'false'}"]
    return "\n".join(lines) + "\n"


def run_fleet(hlstui, base, n, video, seconds, warmup, scrapes=0):
    port = free_port()
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(fleet_file(base, n, video, port))
    p = subprocess.Popen([hlstui, "fleet", f.name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}/metrics")
        r = measure([p.pid], seconds, warmup)
        body = wait_http(f"http://127.0.0.1:{port}/metrics")
        r["playing"] = sum(1 for line in body.decode().splitlines() if line.startswith("hlstui_playing{") and line.endswith(" 1.0"))
        if scrapes:
            times = []
            for _ in range(scrapes):
                t = time.perf_counter()
                body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read()
                times.append(1000 * (time.perf_counter() - t))
            times.sort()
            r["scrapeMedianMs"] = statistics.median(times)
            r["scrapeP95Ms"] = times[int(0.95 * (len(times) - 1))]
            r["scrapeKiB"] = len(body) / 1024
            r["series"] = sum(1 for line in body.decode().splitlines() if line and not line.startswith("#"))
        return r
    finally:
        p.terminate()
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
        os.unlink(f.name)


def run_monitors(hlstui, base, n, seconds, warmup):
    ps = [subprocess.Popen([hlstui, "monitor", f"{base}/live-ts/master.m3u8", "--video", "none", "--ao", "null"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(n)]
    try:
        return measure([p.pid for p in ps], seconds, warmup)
    finally:
        for p in ps:
            p.terminate()
        for p in ps:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def main():
    hlstui, n, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    port = free_port()
    origin = subprocess.Popen([hlstui, "origin", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/live-ts/master.m3u8")
        time.sleep(12)  # a window of live segments to start on
        warm = 10
        out = {"n": n, "seconds": seconds, "cores": os.cpu_count()}
        out["fleetVideo"] = run_fleet(hlstui, base, n, True, seconds, warm)
        out["fleetNoVideo"] = run_fleet(hlstui, base, n, False, seconds, warm)
        out["monitors"] = run_monitors(hlstui, base, n, seconds, warm)
        out["fleetOne"] = run_fleet(hlstui, base, 1, False, 5, warm, scrapes=50)
        out["fleetFifty"] = run_fleet(hlstui, base, 50, False, 10, 20, scrapes=50)
        print(json.dumps(out))
    finally:
        origin.terminate()
        origin.wait(timeout=10)


if __name__ == "__main__":
    main()
