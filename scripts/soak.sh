#!/usr/bin/env bash
# scripts/soak.sh — a long mixed HTTP load against a freshly built skillstore,
# with its cache under pressure: zero errors, RSS within the cache budget plus
# a margin, goroutines back to baseline, a clean stop (scripts/soak/main.go).
# Flags pass through, e.g. scripts/soak.sh -requests 500000 -c 32.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache
go build -o .cache/skillstore-soak ./cmd/skillstore
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(go version | cut -d' ' -f3)"
exec go run ./scripts/soak -bin .cache/skillstore-soak "$@"
