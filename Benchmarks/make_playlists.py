#!/usr/bin/env python3
"""Writes the parse benchmark's inputs: a 50,000-segment live/DVR media playlist and a 40-variant multivariant playlist."""
import datetime
import sys

out = sys.argv[1]
start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)

lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:1000000",
         "#EXT-X-DISCONTINUITY-SEQUENCE:12", "#EXT-X-INDEPENDENT-SEGMENTS",
         '#EXT-X-MAP:URI="init-v1.mp4"']
for i in range(50000):
    if i % 500 == 0:
        lines.append(f'#EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.com/k/{i // 500}",IV=0x{i:032X}')
    if i % 10000 == 0 and i:
        lines.append("#EXT-X-DISCONTINUITY")
    t = start + datetime.timedelta(seconds=2.002 * i)
    lines.append("#EXT-X-PROGRAM-DATE-TIME:" + t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z")
    if i % 1000 == 999:
        lines.append("#EXT-X-GAP")
    lines.append("#EXTINF:2.002,")
    lines.append(f"https://cdn.example.com/live/v1/seg-{1000000 + i}.m4s?token=abcdef0123456789")
open(f"{out}/media-50000.m3u8", "w").write("\n".join(lines) + "\n")

m = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
for lang in ["en", "de", "fr", "es", "it", "ja"]:
    m.append(f'#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="{lang}",LANGUAGE="{lang}",AUTOSELECT=YES,CHANNELS="2",URI="audio/{lang}.m3u8"')
    m.append(f'#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="{lang}",LANGUAGE="{lang}",AUTOSELECT=YES,URI="subs/{lang}.m3u8"')
heights = [144, 234, 270, 360, 432, 540, 720, 900, 1080, 1440]
for codec in ["avc1.64001f", "hvc1.2.4.L123.B0", "av01.0.08M.08", "dvh1.05.06"]:
    for h in heights:
        w = h * 16 // 9
        bw = h * 4000
        m.append(f'#EXT-X-STREAM-INF:BANDWIDTH={bw},AVERAGE-BANDWIDTH={bw * 8 // 10},CODECS="{codec},mp4a.40.2",'
                 f'RESOLUTION={w}x{h},FRAME-RATE=29.970,HDCP-LEVEL=NONE,VIDEO-RANGE=SDR,AUDIO="aac",SUBTITLES="subs",CLOSED-CAPTIONS=NONE')
        m.append(f"video/{codec.split('.')[0]}/{h}p.m3u8")
for h in heights:
    m.append(f'#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH={h * 400},CODECS="avc1.64001f",RESOLUTION={h * 16 // 9}x{h},URI="iframe/{h}p.m3u8"')
open(f"{out}/multivariant-40.m3u8", "w").write("\n".join(m) + "\n")
