#!/usr/bin/env bash
# Fuzzes the playlist lexer, attribute lists, parser and writer with libFuzzer for N seconds (default 300).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-300}"
out=.build/fuzz
mkdir -p "$out/corpus"
# Seed with the project's fixtures and, when present, the shared corpus.
cp -n Fuzz/corpus/* "$out/corpus/" 2>/dev/null || true
if [ -d ../shared/corpus/public ]; then cp -n ../shared/corpus/public/*.m3u8 "$out/corpus/" 2>/dev/null || true; fi
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name HLS \
  Sources/HLS/*.swift Fuzz/FuzzPlaylist.swift -o "$out/fuzz-playlist" 2> "$out/build.log" \
  || { cat "$out/build.log"; echo "fuzz: build FAILED"; exit 1; }
"$out/fuzz-playlist" "$out/corpus" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 2> "$out/fuzz.log" || { tail -40 "$out/fuzz.log"; echo "fuzz: FAILED (crash, hang or leak above)"; exit 1; }
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$' || echo "?")
echo "fuzz: ${seconds}s, ${runs} inputs, no crash, no hang"
