#!/usr/bin/env bash
# scripts/bench-ab.sh — compare two builds of skillstore in one benchmark run.
#
#   scripts/bench-ab.sh [REV [REV2]]
#
# Builds the skillstore command at git revision REV ("before", default
# HEAD~1) and at the working tree, uncommitted changes included, or at REV2
# ("after"), each from its own copy (git archive into a temporary folder; the
# checkout is never touched), then runs the MCP benchmarks of
# cmd/skillstore/bench_test.go (stdio, HTTP, start-up) with both binaries
# through SKILLSTORE_BENCH_BINARIES: every case runs on one binary, then on
# the other, and its name ends in /bin=before or /bin=after. The benchmark
# code is always the working tree's. Method: BENCHMARKS.md.
#
# Environment:
#   BENCHTIME  time per benchmark case (default 2s)
#   COUNT      rounds (default 1): each round is one run of every case on
#              both binaries, the order of the two swapped every other round
#   BENCH      benchmarks to run (default '^Benchmark(Stdio|HTTP|Startup)$')
#   OUT        file the results go to (default .cache/bench/ab-DATE.txt),
#              in the format benchstat reads: benchstat -col /bin OUT
set -euo pipefail
cd "$(dirname "$0")/.."

before_rev=${1:-HEAD~1}
after_rev=${2:-}
benchtime=${BENCHTIME:-2s}
count=${COUNT:-1}
bench=${BENCH:-'^Benchmark(Stdio|HTTP|Startup)$'}
out=${OUT:-.cache/bench/ab-$(date +%Y%m%d-%H%M%S).txt}
case $count in '' | *[!0-9]* | 0)
  echo "COUNT must be a positive number of rounds" >&2
  exit 2
  ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/skillstore-ab-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# describe REV prints a revision's short hash and subject.
describe() { git log -1 --format='%h %s' "$1" | cut -c1-100; }

# build_rev NAME REV builds the skillstore command at REV into $tmp/NAME.
build_rev() {
  local commit
  commit=$(git rev-parse --verify --quiet "$2^{commit}") || { echo "not a revision: $2" >&2; exit 2; }
  mkdir "$tmp/src-$1"
  git archive "$commit" | tar -x -C "$tmp/src-$1"
  (cd "$tmp/src-$1" && go build -trimpath -o "$tmp/$1" ./cmd/skillstore)
  echo "== $1: $(describe "$commit")"
}

echo "== building"
build_rev before "$before_rev"
if [ -n "$after_rev" ]; then
  build_rev after "$after_rev"
else
  go build -trimpath -o "$tmp/after" ./cmd/skillstore
  dirty=$(git status --porcelain --untracked-files=no | wc -l)
  echo "== after: the working tree: $(describe HEAD), $dirty tracked files changed"
fi
go test -c -o "$tmp/skillstore.test" ./cmd/skillstore

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), Linux $(uname -r), $(go version | cut -d' ' -f3)"
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== binaries: before $(stat -c %s "$tmp/before") B, after $(stat -c %s "$tmp/after") B"
echo "== BENCHTIME=$benchtime COUNT=$count BENCH=$bench"

mkdir -p "$(dirname "$out")"
: >"$out"
for round in $(seq 1 "$count"); do
  if [ $((round % 2)) = 1 ]; then
    bins="before=$tmp/before,after=$tmp/after"
  else
    bins="after=$tmp/after,before=$tmp/before"
  fi
  echo "== round $round of $count: ${bins//$tmp\//}"
  # The test binary runs in its package's folder, where TestMain builds the
  # default binary (unused here, as the two above are named).
  (cd cmd/skillstore && SKILLSTORE_BENCH_BINARIES=$bins "$tmp/skillstore.test" \
    -test.run '^$' -test.bench "$bench" -test.benchmem -test.benchtime "$benchtime" \
    -test.count 1 -test.timeout 120m) | tee -a "$out"
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== results: $out"
if command -v benchstat >/dev/null; then
  benchstat -col /bin "$out"
else
  echo "== compare with: benchstat -col /bin $out (go install golang.org/x/perf/cmd/benchstat@latest)"
fi
