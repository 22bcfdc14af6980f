#!/usr/bin/env bash
# Sets up, builds and runs hlstui on its embedded demo stream (Ctrl-C stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build
exec "$(swift build --show-bin-path)/hlstui" demo "$@"
