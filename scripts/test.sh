#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (unit, corpus, round trip, CLI over real HTTP, real libmpv and tmux, short
# fuzz run). HLSTUI_TEST_LOAD=N runs the whole suite with N busy processes beside it, where timing races show: a check of
# its own (docs/TESTING.md), not part of CI's run, which it would take past its 15 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
# The code's format is checked first (.swift-format; `swift format format -i -r Sources Tests Benchmarks Package.swift` fixes it).
if ! swift format lint --strict -r --configuration .swift-format Sources Tests Benchmarks Package.swift; then
  echo "hlstui tests: the code is not formatted as .swift-format says (fix: swift format format -i -r Sources Tests Benchmarks Package.swift)" >&2
  exit 1
fi
# A clean build has no warnings of its own (the dependencies' are theirs). Without debug information: the tests name their
# failures by source line themselves, and a fresh build is a tenth shorter without it (docs/TESTING.md).
mkdir -p .build
swift build --build-tests -debug-info-format none 2>&1 | tee .build/build-output.txt
if grep -E "^$PWD/(Sources|Tests|Benchmarks)/.*warning:" .build/build-output.txt; then
  echo "hlstui tests: the build has warnings" >&2
  exit 1
fi

# Runs "$@" with $1 busy processes (a CPU-bound shell loop each) beside it; they end with it.
with_load() {
  local n=$1 pids=() rc=0
  shift
  for ((i = 0; i < n; i++)); do (while :; do :; done) & pids+=($!); done
  "$@" || rc=$?
  if [ ${#pids[@]} -gt 0 ]; then kill "${pids[@]}" 2>/dev/null || true; wait "${pids[@]}" 2>/dev/null || true; fi
  return $rc
}

status=0
# On failure, what each failed expectation said comes last, where a truncated log still shows it.
failures() { grep -E -A14 'recorded an issue|error: ' "$1" | grep -v -E '^(◇|✔) ' | head -150 || true; }
# The pure tier first (playlists, session policy, drawing, offline rules, recordings: no socket, player or terminal), so a
# broken rule fails in seconds (docs/TESTING.md).
pure='^(HLSTests|SessionTests|TUITests|OfflineTests|RecordingTests|CMCDTests|FleetTests)\.'
with_load "${HLSTUI_TEST_LOAD:-0}" swift test --skip-build --filter "$pure" > .build/test-pure-output.txt 2>&1 || status=$?
grep -E '^(✔|✘) Test run' .build/test-pure-output.txt || true
[ $status -eq 0 ] || { cat .build/test-pure-output.txt; echo "hlstui tests: failed expectations:"; failures .build/test-pure-output.txt; echo "hlstui tests: the pure tier failed (exit $status)" >&2; exit $status; }
# The short fuzz run goes beside the rest of the suite, at the lowest priority: its build and its 30 s take nothing the
# players' real-time runs need, and a minute off the whole run.
nice -n 19 bash scripts/fuzz.sh 30 > .build/fuzz-output.txt 2>&1 &
fuzz=$!
with_load "${HLSTUI_TEST_LOAD:-0}" swift test --skip-build --skip "$pure" > .build/test-output.txt 2>&1 || status=$?
cat .build/test-output.txt
fuzz_status=0
wait $fuzz || fuzz_status=$?
cat .build/fuzz-output.txt
[ $status -eq 0 ] || { echo "hlstui tests: failed expectations:"; failures .build/test-output.txt; echo "hlstui tests: the suite failed (exit $status)" >&2; exit $status; }
[ $fuzz_status -eq 0 ] || { echo "hlstui tests: the fuzz run failed (exit $fuzz_status)" >&2; exit $fuzz_status; }
# One plain closing line for CI: the Swift Testing totals of the whole suite (XCTest reports its own 0 separately).
count() { grep -Eo 'Test run with [0-9]+ tests' "$1" | tail -1 | grep -Eo '[0-9]+' || echo 0; }
total=$(($(count .build/test-pure-output.txt) + $(count .build/test-output.txt)))
echo "${total} passed, 0 failed"
