#!/usr/bin/env bash
# scripts/fuzz.sh — run every go test fuzz target for FUZZTIME each (default
# 10m), one after another. `go test` (and so CI) already runs each target on
# its seed corpus; this explores beyond it. New failing inputs are written to
# testdata/fuzz/ in the package, where `go test` replays them from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10m}
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "== $pkg $target ($fuzztime)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
  done
done
