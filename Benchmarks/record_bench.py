#!/usr/bin/env python3
"""Recording and replay as a user runs them: `hlstui monitor` with and without `--record` (CPU over the same live stream,
alternating), then a faulty VOD session recorded and replayed N times with the origin stopped (same request/status
sequence?), and the replay's time to first frame beside the recorded run's.

Usage: record_bench.py HLSTUI_BINARY MEDIA_CACHE [SECONDS] [REPLAYS]; prints one JSON object.
"""
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

hlstui, cache = sys.argv[1], sys.argv[2]
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
replays = int(sys.argv[4]) if len(sys.argv) > 4 else 10
tick = os.sysconf("SC_CLK_TCK")
scratch = tempfile.mkdtemp(prefix="hlstui-record-bench-")


def cpu_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick


def monitor(args, duration):
    """Runs `hlstui monitor` (or replay) to its end; returns (events, CPU seconds of hlstui, wall seconds). Each event gets
    `sinceLaunch`: seconds from the process's launch to its wall time."""
    t0 = time.monotonic()
    launched = time.time()
    p = subprocess.Popen([hlstui, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    cpu = 0.0
    lines = []
    # CPU is read from /proc just before the process exits: sampled while it runs.
    import threading
    out = []
    reader = threading.Thread(target=lambda: out.extend(p.stdout.readlines()))
    reader.start()
    while p.poll() is None:
        try:
            cpu = cpu_of(p.pid)
        except OSError:
            pass
        time.sleep(0.1)
    reader.join()
    events = [json.loads(l) for l in out if l.startswith("{")]
    for e in events:
        if "wall" in e:
            e["sinceLaunch"] = datetime.datetime.fromisoformat(e["wall"].replace("Z", "+00:00")).timestamp() - launched
    return events, cpu, time.monotonic() - t0


def control(base, path):
    with urllib.request.urlopen(base + path) as r:
        return r.read()


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
result = {"seconds": seconds, "replays": replays}
try:
    # 1. CPU of a live session with and without --record: 8 pairs, the two of a pair run at the same time on the same stream
    #    (the same segments, the same moments, the same load beside them; launched in alternating order), so what differs
    #    between them is the recording — run one after the other, the same session's CPU varies by ±12 % between runs.
    import threading
    plain, recorded, ratios = [], [], []
    for i in range(8):
        got = {}
        def run(rec):
            args = ["monitor", f"{base}/live-ts/master.m3u8", "--video", "none", "--duration", str(seconds)]
            if rec:
                args += ["--record", os.path.join(scratch, f"live{i}.sqlite")]
            got[rec] = monitor(args, seconds)[1]
        order = (False, True) if i % 2 == 0 else (True, False)
        threads = [threading.Thread(target=run, args=(rec,)) for rec in order]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        plain.append(got[False])
        recorded.append(got[True])
        ratios.append(got[True] / got[False])
    result["cpuPlain"] = statistics.median(plain)
    result["cpuRecord"] = statistics.median(recorded)
    result["cpuRatio"] = statistics.median(ratios)
    result["cpuRatios"] = ratios
    result["recordBytes"] = statistics.median(os.path.getsize(os.path.join(scratch, f"live{i}.sqlite")) for i in range(8))
    # What the recorder's own writing cost, measured inside hlstui on its thread's CPU clock (meta.writerCPUSeconds): free of
    # the session-to-session noise of the process totals above.
    import sqlite3
    writer = []
    for i in range(8):
        db = sqlite3.connect(os.path.join(scratch, f"live{i}.sqlite"))
        row = db.execute("SELECT value FROM meta WHERE key = 'writerCPUSeconds'").fetchone()
        db.close()
        if row:
            writer.append(float(row[0]))
    result["writerCPU"] = statistics.median(writer) if writer else None
    result["cpuPlainAll"] = plain
    result["cpuRecordAll"] = recorded

    # 2. A faulty session: 500 twice, 404 once, a truncated body, a stalled body (the read times out after 10 s).
    control(base, "/control/clear")
    for q in ["kind=status&status=500&msn=1&count=2", "kind=status&status=404&msn=3&count=1", "kind=truncate&msn=5&count=1",
              "kind=stall&msn=7&count=1"]:
        control(base, f"/control/fault?target=segment&scenario=vod-ts&rendition=v144&{q}")
    file = os.path.join(scratch, "faulty.sqlite")
    events, _, _ = monitor(["monitor", f"{base}/vod-ts/master.m3u8", "--pin", "0", "--video", "none", "--duration", "24",
                            "--record", file], 24)

    def sequence(evs):
        out = []
        for e in evs:
            if e.get("event") == "request" and e.get("kind") == "segment":
                line = f"{e['url']} {e['status']} retries {e['retries']} {e.get('error') or '-'}"
                # The replay's origin has another address: only the paths are compared.
                out.append(re.sub(r"http://127\.0\.0\.1:\d+(/h\d+)?", "", line))
        return out

    def first_frame(evs):
        """Seconds from the launch to the first sample (4 Hz, and at every state change) that shows the player playing."""
        return next((e["sinceLaunch"] for e in evs if e.get("event") == "player" and e.get("state") == "playing"), None)

    want = sequence(events)
    result["recordedRequests"] = len(want)
    result["recordedFaults"] = sum(1 for s in want if not s.endswith(" retries 0 -"))
    result["recordedFirstFrame"] = first_frame(events)
    origin.send_signal(signal.SIGKILL)
    origin.wait()
    same, starts, diffs = 0, [], []
    for _ in range(replays):
        evs, _, _ = monitor(["replay", file, "--json", "--video", "none"], 24)
        got = sequence(evs)
        if got == want:
            same += 1
        else:
            diffs.append({"replayed": got, "recorded": want})
        if first_frame(evs) is not None:
            starts.append(first_frame(evs))
    result["replaySame"] = same
    result["replayFirstFrameP50"] = statistics.median(starts) if starts else None
    result["replayFirstFrameMax"] = max(starts) if starts else None
    result["diffs"] = diffs[:2]
finally:
    if origin.poll() is None:
        origin.send_signal(signal.SIGKILL)
        origin.wait()
    shutil.rmtree(scratch, ignore_errors=True)
print(json.dumps(result))
