#!/usr/bin/env bash
# Fuzzes with libFuzzer for N seconds each (default 300): the playlist lexer, attribute lists, parser and writer; then every
# media parser the network reaches (MPEG-TS, H.264 SPS/VUI, HEVC, Dolby Vision, audio codecs, fragmented MP4, ID3, SCTE-35;
# Fuzz/FuzzMedia.swift).
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
"$out/fuzz-playlist" "$out/corpus" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$out/" \
  -max_len=65536 -print_final_stats=1 2> "$out/fuzz.log" || { tail -40 "$out/fuzz.log"; echo "fuzz: FAILED (crash, hang or leak above)"; exit 1; }
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$' || echo "?")
echo "fuzz: ${seconds}s, ${runs} inputs, no crash, no hang"

# The media parsers: MediaFormats with its one dependency (ExtrasBase64, from the package's checkout) built beside it.
media=.build/fuzz-media
mkdir -p "$media/corpus"
cp -n Fuzz/media-corpus/* "$media/corpus/" 2>/dev/null || true
b64=.build/checkouts/swift-extras-base64/Sources/ExtrasBase64
[ -d "$b64" ] || swift package resolve > /dev/null
# Its package's own settings (its Package.swift), which a bare swiftc needs given.
b64flags=(-enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
  -enable-upcoming-feature MemberImportVisibility -enable-upcoming-feature InferIsolatedConformances
  -enable-upcoming-feature NonisolatedNonsendingByDefault -enable-upcoming-feature ImmutableWeakCaptures
  -enable-experimental-feature SuppressedAssociatedTypesWithDefaults -enable-experimental-feature Lifetimes
  -enable-upcoming-feature LifetimeDependence)
swiftc -O -sanitize=fuzzer,address -parse-as-library -emit-library -static -emit-module -module-name ExtrasBase64 "${b64flags[@]}" \
  -emit-module-path "$media/ExtrasBase64.swiftmodule" "$b64"/*.swift -o "$media/libExtrasBase64.a" 2> "$media/build.log" \
  && swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name MediaFormats -I "$media" \
    Sources/MediaFormats/*.swift Fuzz/FuzzMedia.swift "$media/libExtrasBase64.a" -o "$media/fuzz-media" 2>> "$media/build.log" \
  || { cat "$media/build.log"; echo "fuzz: media build FAILED"; exit 1; }
"$media/fuzz-media" "$media/corpus" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$media/" \
  -max_len=262144 -print_final_stats=1 2> "$media/fuzz.log" || { tail -40 "$media/fuzz.log"; echo "fuzz: media FAILED (crash, hang or leak above)"; exit 1; }
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$media/fuzz.log" | grep -o '[0-9]*$' || echo "?")
echo "fuzz (media): ${seconds}s, ${runs} inputs, no crash, no hang"
