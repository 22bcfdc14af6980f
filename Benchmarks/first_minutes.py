"""The demo as a newcomer first watches it: `hlstui demo` (what `bash scripts/run.sh` runs) in tmux for a number of
seconds beside busy processes, read off the screen every 10 s. Prints one JSON object: the largest `stalls` and `skips` the
status line showed, every `⚠` line the bottom line showed, whether q quit with status 0 and the terminal given back.

Usage: python3 first_minutes.py HLSTUI SECONDS [BUSY] [DEMO-FLAG]   (DEMO-FLAG: --sync for the two cameras in sync)
"""
import json, os, re, subprocess, sys, time

hlstui, seconds = sys.argv[1], float(sys.argv[2])
busy = int(sys.argv[3]) if len(sys.argv) > 3 else 2
flag = sys.argv[4] if len(sys.argv) > 4 else ""
session = f"hlstui-first-{os.getpid()}"
env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
# Wide enough that the whole status line shows (at 80 columns its end is cut).
subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50",
                f"{hlstui} demo {flag}; echo EXIT=$?; sleep 600"], check=True, env=env)
loops = [subprocess.Popen(["bash", "-c", "while :; do :; done"]) for _ in range(busy)]
stalls = skips = 0
warnings, samples = [], 0
started = time.time()
try:
    while time.time() - started < seconds:
        time.sleep(10)
        screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
        samples += 1
        for line in screen.splitlines():
            # Every pane's counters (side by side on one line with two panes).
            for n in re.findall(r"stalls (\d+)", line): stalls = max(stalls, int(n))
            for n in re.findall(r"skips (\d+)", line): skips = max(skips, int(n))
            s = line.strip()
            if s.startswith("⚠") and s not in warnings: warnings.append(s)
finally:
    for p in loops: p.kill()
subprocess.run(["tmux", "send-keys", "-t", session, "q"])
time.sleep(5)
after = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
subprocess.run(["tmux", "kill-session", "-t", session])
exit_line = next((l for l in after.splitlines() if l.startswith("EXIT=")), None)
print(json.dumps({"demo": f"hlstui demo {flag}".strip(), "seconds": seconds, "busy": busy, "samples": samples, "stalls": stalls, "skips": skips,
                  "warnings": warnings, "exit": exit_line}))
