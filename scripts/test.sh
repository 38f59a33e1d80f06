#!/usr/bin/env bash
# scripts/test.sh — run every check skillstore has, on a fresh machine.
# Installs what the tests need, runs gofmt, go vet and the race-enabled
# tests, and stops every server it started.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== go modules"
go mod download

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== go test -race"
go test -race -count=1 ./...
