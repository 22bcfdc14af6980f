"""Plain mpv for the benchmarks' baselines: started on a URL with a JSON IPC socket, its messages read as they come."""
import json
import os
import socket
import subprocess
import tempfile
import time


def start(url, options):
    """Starts `mpv --no-config OPTIONS URL` with an IPC socket; returns the process and the connected socket (10 ms reads)."""
    sock = tempfile.mktemp(prefix="hlstui-bench-", suffix=".sock")
    p = subprocess.Popen(["mpv", "--no-config", *options, f"--input-ipc-server={sock}", url],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.settimeout(0.01)
    return p, s


def messages(s, buf):
    """Reads what arrived on `s` (waiting at most its timeout); returns the whole JSON messages and the unfinished rest."""
    try:
        buf += s.recv(65536)
    except socket.timeout:
        pass
    out = []
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        out.append(json.loads(line))
    return out, buf


def time_pos(url, options, duration, at=None, action=None, wall=False):
    """Plays `url` in plain mpv for `duration` seconds, reading time-pos at 20 Hz; `action` runs `at` seconds in. Returns
    (seconds since start, time-pos) pairs; with `wall`, (wall-clock seconds of the reading, time-pos)."""
    import signal
    import threading
    p, s = start(url, options)
    begin = time.monotonic()
    if action is not None:
        threading.Timer(at, action).start()
    samples, buf = [], b""
    while time.monotonic() - begin < duration:
        s.sendall(b'{"command": ["get_property", "time-pos"]}\n')
        time.sleep(0.05)
        msgs, buf = messages(s, buf)
        read = time.time() if wall else time.monotonic() - begin
        samples += [(read, m["data"]) for m in msgs if "data" in m and m.get("error") == "success"]
    p.send_signal(signal.SIGKILL)
    p.wait()
    return samples
