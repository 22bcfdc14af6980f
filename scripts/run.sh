#!/usr/bin/env bash
# Sets up, builds and shows hlstui at work on the bundled example playlists.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build
bin=$(swift build --show-bin-path)/hlstui
"$bin" inspect examples/ladder.m3u8 || true
echo
"$bin" inspect examples/live.m3u8 || true
