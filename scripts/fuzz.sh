#!/usr/bin/env bash
# Fuzzes with libFuzzer: the playlist lexer, attribute lists, parser, writer, lint, delta updates and reload rules, and
# the content steering and asset-list JSON readers (Fuzz/FuzzPlaylist.swift); then every media parser the network reaches (MPEG-TS, H.264 SPS/VUI, HEVC, Dolby Vision,
# audio codecs, fragmented MP4, ID3, SCTE-35; Fuzz/FuzzMedia.swift).
#   scripts/fuzz.sh [SECONDS]     each target for SECONDS (default 300), from the project's seeds (what CI runs, 30 s)
#   scripts/fuzz.sh --campaign [PLAYLIST_RUNS [MEDIA_RUNS]]
#                                 each target for a number of executions (default 10^8 and 10^7), its corpus kept
#                                 between campaigns in $HLSTUI_CACHE/fuzz (docs/TESTING.md); prints executions, rate
#                                 and crashes for BENCHMARKS.md
set -euo pipefail
cd "$(dirname "$0")/.."
campaign=0
if [ "${1:-}" = "--campaign" ]; then
  campaign=1
  playlist_runs="${2:-100000000}"
  media_runs="${3:-10000000}"
  cache="${HLSTUI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hlstui}/fuzz"
else
  seconds="${1:-300}"
fi
# How long a target runs: a time, or (a campaign) a number of executions.
budget() { if [ $campaign -eq 1 ]; then echo "-runs=$1"; else echo "-max_total_time=$seconds"; fi; }
# What a target's run did, from libFuzzer's final stats: "<executions> inputs in <s> s (<rate>/s)".
figures() {
  local runs secs
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$1" | grep -o '[0-9]*$' || echo "?")
  secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$1" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "?")
  if [ "$secs" != "?" ] && [ "$secs" -gt 0 ] && [ "$runs" != "?" ]; then echo "$runs inputs in $secs s ($((runs / secs))/s)"; else echo "$runs inputs"; fi
}
out=.build/fuzz
corpus="$out/corpus"
[ $campaign -eq 1 ] && corpus="$cache/playlist-corpus"
mkdir -p "$out" "$corpus"
# Seed with the project's fixtures and, when present, the shared corpus.
cp -n Fuzz/corpus/* "$corpus/" 2>/dev/null || true
if [ -d ../shared/corpus/public ]; then cp -n ../shared/corpus/public/*.m3u8 "$corpus/" 2>/dev/null || true; fi
# The steering manifest's and asset list's JSON readers (LoaderCore) are built into the same module, their `import HLS` taken off.
# They resolve URIs with `VirtualPlaylists.resolve`, taken from its file as it is.
for f in SteeringJSON AssetListJSON; do sed '/^import HLS$/d' "Sources/LoaderCore/$f.swift" > "$out/$f.swift"; done
{ echo "import Foundation"; echo "enum VirtualPlaylists {"; awk '/public static func resolve\(/,/^    }$/' Sources/LoaderCore/VirtualPlaylists.swift; echo "}"; } \
  > "$out/Resolve.swift"
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name HLS \
  Sources/HLS/*.swift "$out"/{SteeringJSON,AssetListJSON,Resolve}.swift Fuzz/FuzzPlaylist.swift -o "$out/fuzz-playlist" 2> "$out/build.log" \
  || { cat "$out/build.log"; echo "fuzz: build FAILED"; exit 1; }
"$out/fuzz-playlist" "$corpus" "$(budget "${playlist_runs:-0}")" -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$out/" \
  -max_len=65536 -print_final_stats=1 2> "$out/fuzz.log" || { tail -40 "$out/fuzz.log"; echo "fuzz: FAILED (crash, hang or leak above)"; exit 1; }
echo "fuzz (playlist): $(figures "$out/fuzz.log"), no crash, no hang"

# The media parsers: MediaFormats with its one dependency (ExtrasBase64, from the package's checkout) built beside it.
media=.build/fuzz-media
media_corpus="$media/corpus"
[ $campaign -eq 1 ] && media_corpus="$cache/media-corpus"
mkdir -p "$media" "$media_corpus"
cp -n Fuzz/media-corpus/* "$media_corpus/" 2>/dev/null || true
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
"$media/fuzz-media" "$media_corpus" "$(budget "${media_runs:-0}")" -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$media/" \
  -max_len=262144 -print_final_stats=1 2> "$media/fuzz.log" || { tail -40 "$media/fuzz.log"; echo "fuzz: media FAILED (crash, hang or leak above)"; exit 1; }
echo "fuzz (media): $(figures "$media/fuzz.log"), no crash, no hang"
[ $campaign -eq 1 ] && echo "fuzz campaign: corpus kept in $cache ($(ls "$corpus" | wc -l) playlist inputs, $(ls "$media_corpus" | wc -l) media inputs)"
exit 0
