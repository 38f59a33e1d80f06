#!/usr/bin/env bash
# scripts/bench.sh — run skillstore's benchmarks, and compare it in the same
# run with @modelcontextprotocol/server-filesystem (installed here from npm)
# through the same client. Figures and method: BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=.cache/bench
mkdir -p "$cache"
if [ ! -x "$cache/node_modules/.bin/mcp-server-filesystem" ]; then
  echo "== installing @modelcontextprotocol/server-filesystem"
  (cd "$cache" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent @modelcontextprotocol/server-filesystem@2026.8.31)
fi
export SKILLSTORE_BENCH_SERVER_FILESYSTEM="$PWD/$cache/node_modules/.bin/mcp-server-filesystem"
benchtime=${BENCHTIME:-2s}
count=${COUNT:-1}     # COUNT=3 repeats each benchmark, for ranges on a noisy machine
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(go version | cut -d' ' -f3)"
go test -run '^$' -bench . -benchmem -benchtime "$benchtime" -count "$count" -timeout 60m ./search/ ./store/ ./backends/ ./mcpserver/ ./cmd/skillstore/ | grep -E '^(Benchmark|ok|FAIL)'
