"""Reading `hlstui monitor` events for the benchmarks: percentiles and the panes' offsets on their decoded video frames."""
import datetime


def seconds(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() if s else None


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else None


def frame_offsets(events, panes, start, end=float("inf"), states=("playing",), field="frameLatency"):
    """Each pane's offset from the reference on its decoded video frames, in ms, over the ticks in [start, end): one pane's
    `frameLatency` (the wall clock when the frame at its playhead is shown − that frame's PDT, to the microsecond) minus the
    reference's, from the samples of one tick, while every pane is in one of `states` (by default playing: not while mpv
    restarts its playback at a timestamp jump, where its picture stands for a few tenths of a second whatever the control
    does). `field="audioLatency"`: the same of the audio heard (docs/SYNC.md, measuring)."""
    ref, by_t = 0, {}
    for e in events:
        if e["event"] == "sync":
            ref = e.get("reference", ref)
        if e["event"] == "player" and e.get("trigger") is None:
            by_t.setdefault(e["t"], [ref, {}])[1][e["pane"]] = e
    out = []
    for t, (r, samples) in sorted(by_t.items()):
        if t < start or t >= end or len(samples) < panes or any(s.get("state") not in states for s in samples.values()):
            continue
        lead = {p: -s[field] for p, s in samples.items() if s.get(field) is not None}
        if len(lead) == panes and r in lead:
            out += [abs(v - lead[r]) * 1000 for p, v in lead.items() if p != r]
    return out


def still(samples, start, end):
    """Longest run (seconds) in which time-pos did not advance between `start` and `end`."""
    longest, since, last = 0.0, None, None
    for t, pos in samples:
        if t < start or t > end or pos is None:
            continue
        if last is not None and pos <= last + 1e-6:
            since = since if since is not None else prev
            longest = max(longest, t - since)
        else:
            since = None
        last, prev = pos, t
    return longest
