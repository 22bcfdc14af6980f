#!/usr/bin/env python3
"""Picture benchmark: CPU of the dashboard (one pane, live TS at 360p, in tmux at 120x40) with the picture shown at 1, 5
and 10 frames a second in cells, and at 5 as sixel and as kitty images, against the same dashboard without it, each measured
in the same run. (tmux draws neither image protocol: what is measured is hlstui sampling, encoding and sending them.)

Usage: picture_bench.py HLSTUI SECONDS   — prints one JSON object.
"""
import json
import os
import subprocess
import sys
import time
import urllib.request

from benchproc import cpu_seconds, free_port


def hlstui_pid(parent):
    """The hlstui process under the tmux pane's shell."""
    for _ in range(100):
        out = subprocess.run(["pgrep", "-P", str(parent)], capture_output=True, text=True).stdout.split()
        for p in out:
            comm = open(f"/proc/{p}/comm").read().strip()
            if comm.startswith("hlstui"):
                return int(p)
            deeper = hlstui_pid(int(p)) if comm in ("timeout", "env", "sh", "bash") else None
            if deeper:
                return deeper
        time.sleep(0.1)
    return None


def run(hlstui, url, fps, picture, seconds, sock, mode="cells"):
    tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
    cmd = f"env -u NO_COLOR TERM=xterm-256color LANG=C.UTF-8 {hlstui} {url} --video none --ao null --picture-fps {fps} --picture {mode}"
    subprocess.run(tmux + ["new-session", "-d", "-s", "b", "-x", "120", "-y", "40", cmd], check=True)
    try:
        pane = int(subprocess.run(tmux + ["display", "-p", "-t", "b", "#{pane_pid}"], capture_output=True, text=True).stdout)
        pid = hlstui_pid(pane) or pane
        time.sleep(6)  # playing
        if picture:
            subprocess.run(tmux + ["send-keys", "-t", "b", "v"], check=True)
            time.sleep(2)
        c0, t0 = cpu_seconds(pid), time.time()
        time.sleep(seconds)
        return 100 * (cpu_seconds(pid) - c0) / (time.time() - t0)
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)


def main():
    hlstui, seconds = sys.argv[1], float(sys.argv[2])
    port = free_port()
    origin = subprocess.Popen([hlstui, "origin", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/live-ts/v360/index.m3u8"
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen(url, timeout=2).read()
                break
            except Exception:
                time.sleep(0.2)
        time.sleep(8)
        out = {"seconds": seconds, "without": [], "cases": {}}
        for fps, mode in [(1, "cells"), (5, "cells"), (10, "cells"), (5, "sixel"), (5, "kitty")]:
            # Each case beside a run without the picture, alternating, so drift of the machine falls on both; each run in a tmux
            # server of its own (one just killed may still hold its socket).
            name = f"{fps} fps" + ("" if mode == "cells" else f" {mode}")
            tag = f"hlstui-bench-{os.getpid()}-{fps}-{mode}"
            out["without"].append(run(hlstui, url, fps, False, seconds, tag + "-off", mode))
            out["cases"][name] = run(hlstui, url, fps, True, seconds, tag + "-on", mode)
        print(json.dumps(out))
    finally:
        origin.terminate()
        origin.wait(timeout=10)


if __name__ == "__main__":
    main()
