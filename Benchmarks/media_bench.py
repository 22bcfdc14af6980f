#!/usr/bin/env python3
"""`hlstui inspect --media` on a two-hour VOD ladder — the embedded origin's ladder with its segments listed REPEAT times
over (`?repeat=N`, docs/ORIGIN.md) — against `ffprobe -show_frames` run per segment on a sample of the same segments, in
the same run, from the same origin on 127.0.0.1: wall time and CPU per segment, and whether both read the same facts
(each sampled segment's first video timestamp, whether it opens with a key frame, how long its video lasts). Prints JSON.

Usage: media_bench.py HLSTUI MEDIA_CACHE [REPEAT] [PROBES]
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request

hlstui, cache = sys.argv[1], sys.argv[2]
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 360
probes = int(sys.argv[4]) if len(sys.argv) > 4 else 40

origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
work = tempfile.mkdtemp(prefix="hlstui-media-bench-")


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def get(url):
    with urllib.request.urlopen(url) as r:
        return r.read()


def ffprobe(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_frames", "-show_entries",
                        "frame=key_frame,pts_time,pkt_duration_time", "-of", "json", path],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
    frames = [f for f in json.loads(r.stdout).get("frames", []) if "pts_time" in f]
    pts = [float(f["pts_time"]) for f in frames]
    last = max(range(len(frames)), key=lambda i: pts[i])
    return {"start": min(pts), "key": frames[0]["key_frame"] == 1,
            "duration": pts[last] - min(pts) + float(frames[last].get("pkt_duration_time", 0))}


cases = []
try:
    for name, scenario in [("MPEG-TS", "vod-ts"), ("fMP4", "vod-fmp4")]:
        url = f"{base}/{scenario}/master.m3u8?repeat={repeat}"
        c0, t0 = cpu(), time.monotonic()
        r = subprocess.run([hlstui, "inspect", "--media", "--json", url], stdout=subprocess.PIPE, text=True)
        wall, used = time.monotonic() - t0, cpu() - c0
        doc = json.loads(r.stdout)
        measures = doc["variants"] + doc["audio"]
        segments = sum(v["measured"] for v in measures)
        megabytes = sum(v["average"] * 2.0 * v["measured"] / 8 for v in measures) / 1e6
        # ffprobe on a sample of the first rung's segments, each as a file of its own (an fMP4 segment after its init
        # section): its process start-up counts, as it does for anyone probing segment by segment.
        rung = doc["variants"][0]
        playlist = get(f"{base}/{scenario}/v144/index.m3u8?repeat={repeat}").decode()
        uris = [l for l in playlist.splitlines() if l and not l.startswith("#")]
        init = get(f"{base}/{scenario}/v144/init.mp4") if scenario.endswith("fmp4") else b""
        picks = [i * (len(uris) - 1) // max(1, probes - 1) for i in range(probes)]
        agree, probe_wall, probe_cpu = 0, 0.0, 0.0
        for i in picks:
            path = os.path.join(work, f"seg{i}")
            with open(path, "wb") as f:
                f.write(init + get(f"{base}/{scenario}/v144/{uris[i]}"))
            c1, t1 = cpu(), time.monotonic()
            facts = ffprobe(path)
            probe_wall += time.monotonic() - t1
            probe_cpu += cpu() - c1
            mine = rung["segments"][i]
            same = (mine["videoStart"] is not None and abs(mine["videoStart"] - facts["start"]) < 0.002
                    and mine["independent"] == facts["key"]
                    and mine["videoDuration"] is not None and abs(mine["videoDuration"] - facts["duration"]) < 0.034)
            agree += 1 if same else 0
        cases.append({"name": name, "segments": segments, "megabytes": megabytes, "wall": wall, "cpu": used,
                      "status": r.returncode, "findings": len(doc["findings"]), "probes": len(picks), "agree": agree,
                      "probeWall": probe_wall / len(picks), "probeCPU": probe_cpu / len(picks)})
finally:
    origin.terminate()
    origin.wait()
print(json.dumps({"repeat": repeat, "hours": repeat * 20 / 3600, "cores": os.cpu_count(), "cases": cases}))
