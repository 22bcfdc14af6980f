#!/usr/bin/env python3
"""CPU, memory and keypress latency: hlstui (monitor and dashboard) vs plain mpv on the same stream, in one run.

Usage: session_bench.py HLSTUI_BINARY MEDIA_CACHE [SECONDS]; prints one JSON object.
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid

hlstui, cache = sys.argv[1], sys.argv[2]
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
tick = os.sysconf("SC_CLK_TCK")


def proc_stats(pid):
    """CPU seconds (user+system) and peak RSS (MiB) of a running process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / tick
        with open(f"/proc/{pid}/status") as f:
            hwm = next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
        return cpu, hwm / 1024
    except (OSError, StopIteration, IndexError, ValueError):
        return None


def watch(pid, duration):
    """Samples a process for `duration` seconds; returns the last (cpu seconds, peak MiB) and the seconds watched."""
    start = time.monotonic()
    last = None
    while time.monotonic() - start < duration:
        s = proc_stats(pid)
        if s is None:
            break
        last = s
        time.sleep(0.25)
    return last, time.monotonic() - start


def tmux(sock, *args):
    return subprocess.run(["tmux", "-L", sock, "-f", "/dev/null", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout


def tmux_child(sock, name):
    pane = int(tmux(sock, "display", "-p", "-t", "t", "#{pane_pid}").strip())
    for _ in range(100):
        try:
            if open(f"/proc/{pane}/comm").read().startswith(name):
                return pane
            for c in open(f"/proc/{pane}/task/{pane}/children").read().split():
                if open(f"/proc/{c}/comm").read().startswith(name):
                    return int(c)
        except OSError:
            pass
        time.sleep(0.05)
    return None


origin = subprocess.Popen([hlstui, "origin", "--port", "0", "--quiet", "--cache", cache], stdout=subprocess.PIPE, text=True)
base = origin.stdout.readline().split()[3]
url = f"{base}/live-ts/master.m3u8"
env = dict(os.environ, LANG="C.UTF-8", TERM="xterm-256color")
out = {"seconds": seconds}

try:
    # Plain mpv alone on the same stream.
    mpv = subprocess.Popen(["mpv", "--no-config", "--vo=null", "--ao=null", "--demuxer=lavf", "--really-quiet", url], stdin=subprocess.DEVNULL)
    (cpu, rss), took = watch(mpv.pid, seconds)
    mpv.send_signal(signal.SIGKILL)
    mpv.wait()
    out["mpv"] = {"cpuPct": 100 * cpu / took, "peakMiB": rss}

    # hlstui monitor: the session without a screen (libmpv in process, Loader, JSON Lines to /dev/null).
    mon = subprocess.Popen([hlstui, "monitor", url, "--video", "none", "--ao", "null", "--duration", str(seconds + 5)],
                           stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    (cpu, rss), took = watch(mon.pid, seconds)
    mon.send_signal(signal.SIGKILL)
    mon.wait()
    out["monitor"] = {"cpuPct": 100 * cpu / took, "peakMiB": rss}

    # hlstui dashboard in a real terminal (tmux, 80x24): drawing at 4 Hz plus key polling.
    sock = "hlstui-bench-" + uuid.uuid4().hex[:8]
    tmux(sock, "new-session", "-d", "-s", "t", "-x", "80", "-y", "24", f"env LANG=C.UTF-8 TERM=xterm-256color {hlstui} {url} --video none --ao null")
    pid = tmux_child(sock, "hlstui")
    (cpu, rss), took = watch(pid, seconds)
    out["dashboard"] = {"cpuPct": 100 * cpu / took, "peakMiB": rss}

    # Keypress to screen: '?' until the help box is on the tmux screen, and back; baseline: a key echoed by `cat` in the same kind of pane.
    def until(pred, timeout=5):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if pred(tmux(sock, "capture-pane", "-p", "-t", "t")):
                return time.monotonic() - t0
        return float("nan")

    lat = []
    for _ in range(20):
        tmux(sock, "send-keys", "-t", "t", "?")
        t0 = time.monotonic()
        # The help box's title: "keys (? to close)", or "keys (? to close, ↑↓ PgUp PgDn scroll)" when it is taller than the
        # screen (at 80x24).
        until(lambda s: "keys (? to close" in s)
        lat.append(time.monotonic() - t0)
        tmux(sock, "send-keys", "-t", "t", "?")
        until(lambda s: "keys (? to close" not in s)
        time.sleep(0.1)
    tmux(sock, "kill-server")
    sock2 = "hlstui-bench-" + uuid.uuid4().hex[:8]
    tmux(sock2, "new-session", "-d", "-s", "t", "-x", "80", "-y", "24", "cat")
    time.sleep(0.3)
    base_lat = []
    for i in range(20):
        tmux(sock2, "send-keys", "-t", "t", "x")
        t0 = time.monotonic()
        t = 0
        while time.monotonic() - t0 < 5:
            if tmux(sock2, "capture-pane", "-p", "-t", "t").count("x") > i:
                break
        base_lat.append(time.monotonic() - t0)
        time.sleep(0.1)
    tmux(sock2, "kill-server")
    out["keypressMs"] = {"hlstuiMedian": 1000 * statistics.median(lat), "hlstuiP90": 1000 * sorted(lat)[int(0.9 * len(lat))],
                         "catMedian": 1000 * statistics.median(base_lat), "catP90": 1000 * sorted(base_lat)[int(0.9 * len(base_lat))]}
finally:
    origin.send_signal(signal.SIGKILL)
    origin.wait()

print(json.dumps(out))
