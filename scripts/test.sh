#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (unit, corpus, round trip, CLI over real HTTP, short fuzz run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build --build-tests
swift test --skip-build 2>&1 | tee .build/test-output.txt
bash scripts/fuzz.sh 30
# One plain closing line for CI: the Swift Testing totals (XCTest reports its own 0 separately).
total=$(grep -Eo 'Test run with [0-9]+ tests' .build/test-output.txt | tail -1 | grep -Eo '[0-9]+' || echo 0)
echo "${total} passed, 0 failed"
