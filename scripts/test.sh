#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (unit, corpus, round trip, CLI over real HTTP, short fuzz run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build --build-tests
swift test --skip-build 2>&1 | tee .build/test-output.txt
bash scripts/fuzz.sh 30
