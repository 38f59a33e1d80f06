#!/usr/bin/env bash
# scripts/fleet-bench.sh — measure a fleet of N skills as a new user would
# (issue 22): publishing, a cold replica, `skillstore list`, an idle replica.
#
#   scripts/fleet-bench.sh N [file|s3|both]
#
# Not part of CI (like scripts/bench.sh); run it on a quiet machine. It:
#   - builds skillstore (from the working tree, or at git revision
#     $SKILLSTORE_REV, e.g. the commit before a change) and the two helpers,
#     internal/skillgen/cmd/genfleet and internal/fleetbench;
#   - generates N bench-style skills once (a ~4 KB SKILL.md, references/
#     guide.md ~600 B, scripts/run.sh ~200 B: 3N files, ~4.8 KB a skill),
#     cached in $FLEET_DIR (default /tmp/skillstore-fleet-N); the "10
#     changed" step rewrites 10 SKILL.md files there, so later runs start
#     from a tree that differs from a fresh one in those 10 files;
#   - for each destination — file:// (a temporary folder) and s3 (versitygw
#     on 127.0.0.1, a free port, a temporary root, its access log on, keep-alive
#     connections as S3 keeps them; built
#     into .cache/bin as scripts/test.sh builds it, same version) — runs
#     under /usr/bin/time -v (wall time, peak RSS): publish to an empty
#     destination; publish again, nothing changed; publish after genfleet
#     -touch 10 (10 SKILL.md bodies rewritten, sizes changed);
#   - then starts `skillstore serve --source URL` over stdio and, from its
#     start, sends initialize, tools/call list_skills, tools/call get_skill
#     (skill N/2) and skills/list (first page), each once the previous one
#     is answered, recording the time of each answer and the process's
#     VmHWM (internal/fleetbench); then times `skillstore list --source
#     URL`; and, on s3 only, keeps a replica started with --refresh 10s
#     idle for 32 s after its first answers;
#   - on s3, counts the requests versitygw logged during each step, by
#     operation (GetObject, PutObject…): for the cold replica, from its
#     start to its last answer (get_skill's read included);
#   - prints one Markdown table on stdout; progress, with each publish's
#     summary and each replica's first requests in order, goes to stderr.
#
# Environment: FLEET_DIR (the cached tree), SKILLSTORE_REV (a revision of
# skillstore to measure instead of the working tree; the helpers are
# always the working tree's), TMPDIR (where the destinations go, removed
# on exit: about twice the tree's size on disk, which is 2.5 GB at
# 100,000 skills). Needs go, git and /usr/bin/time (Debian package
# "time"), and the Go module proxy once to build versitygw.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

usage() { echo "usage: scripts/fleet-bench.sh N [file|s3|both]" >&2; exit 2; }
n=${1:-}
case $n in '' | *[!0-9]* | 0*) usage ;; esac
case ${2:-both} in file) dests=(file) ;; s3) dests=(s3) ;; both) dests=(file s3) ;; *) usage ;; esac
fleet=${FLEET_DIR:-/tmp/skillstore-fleet-$n}
[ -x /usr/bin/time ] || { echo "fleet-bench needs /usr/bin/time: apt-get install time" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/skillstore-fleet-bench-XXXXXX")
vgw_pid=""
cleanup() {
  if [ -n "$vgw_pid" ]; then
    kill "$vgw_pid" 2>/dev/null || true
    wait "$vgw_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '== %s\n' "$*" >&2; }

# hide replaces the temporary folders in text with their names.
hide() { sed -e "s|$work|\$WORK|g" -e "s|$root|.|g"; }

# --- tools ----------------------------------------------------------------
bin=$root/.cache/bin
mkdir -p "$bin" "$work/bin"
# install_go_tool is scripts/test.sh's: the same cache, so either script
# reuses what the other built.
install_go_tool() { # name module@version
  if [ ! -x "$bin/$1" ] || [ "$(cat "$bin/$1.version" 2>/dev/null)" != "$2" ]; then
    step "building $2"
    GOBIN=$bin go install "$2"
    echo "$2" >"$bin/$1.version"
  fi
}
if [[ " ${dests[*]} " == *" s3 "* ]]; then
  vgw_module=$(grep -o 'github.com/versity/versitygw/cmd/versitygw@v[0-9.]*' scripts/test.sh | head -1)
  install_go_tool versitygw "$vgw_module"
fi

if [ -n "${SKILLSTORE_REV:-}" ]; then
  commit=$(git rev-parse --verify --quiet "$SKILLSTORE_REV^{commit}") || { echo "not a revision: $SKILLSTORE_REV" >&2; exit 2; }
  mkdir "$work/src"
  git archive "$commit" | tar -x -C "$work/src"
  (cd "$work/src" && go build -trimpath -o "$work/bin/skillstore" ./cmd/skillstore)
  measured="$(git log -1 --format='%h %s' "$commit" | cut -c1-80)"
else
  go build -trimpath -o "$work/bin/skillstore" ./cmd/skillstore
  dirty=$(git status --porcelain --untracked-files=no | wc -l)
  measured="working tree at $(git log -1 --format='%h %s' HEAD | cut -c1-70), $dirty tracked files changed"
fi
go build -trimpath -o "$work/bin/genfleet" ./internal/skillgen/cmd/genfleet
go build -trimpath -o "$work/bin/fleetbench" ./internal/fleetbench
skillstore=$work/bin/skillstore
genfleet=$work/bin/genfleet
fleetbench=$work/bin/fleetbench

# --- the fleet ------------------------------------------------------------
tree=$fleet/skills
if [ "$(head -1 "$fleet/complete" 2>/dev/null)" != "$n" ]; then
  step "generating $n skills"
  rm -rf "$tree" "$fleet/complete"
  mkdir -p "$fleet"
  summary=$("$genfleet" -n "$n" -out "$tree")
  printf '%s\n%s\n' "$n" "$summary" >"$fleet/complete"
fi
step "fleet: $(sed -n 2p "$fleet/complete")"
skill=$("$genfleet" -name $((n / 2)))

# --- measuring --------------------------------------------------------------
declare -A cell # cell[DEST,ROW]: the table's cells

# timed DEST ROW CMD… runs CMD under /usr/bin/time -v and sets the cell to
# "WALL s, RSS MiB"; a failure ends the script with CMD's output.
timed() {
  local dest=$1 row=$2
  shift 2
  local out=$work/out.$dest.$row
  if ! /usr/bin/time -v -o "$out.time" "$@" >"$out" 2>&1; then
    echo "fleet-bench: $dest $row failed:" >&2
    tail -20 "$out" | hide >&2
    exit 1
  fi
  local wall kib
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.1f", s}' "$out.time")
  kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out.time")
  cell[$dest,$row]="$wall s, $((kib / 1024)) MiB"
  step "$dest $row: ${cell[$dest,$row]}: $(tail -1 "$out" | hide | cut -c1-200)"
}

# counted DEST ROW CMD… is timed, and on s3 adds the requests logged meanwhile.
counted() {
  local dest=$1 row=$2 since=0
  if [ "$dest" = s3 ]; then since=$(stat -c %s "$vgw_log"); fi
  timed "$@"
  if [ "$dest" = s3 ]; then
    cell[$dest,$row]+="; $("$fleetbench" requests -log "$vgw_log" -since "$since")"
  fi
}

# replica DEST URL runs a cold replica and fills its cells.
replica() {
  local dest=$1 url=$2 log=()
  if [ "$dest" = s3 ]; then log=(-log "$vgw_log"); fi
  local out=$work/replica.$dest
  if ! "$fleetbench" replica -skill "$skill" "${log[@]}" -- "$skillstore" serve --source "$url" >"$out" 2>&1; then
    echo "fleet-bench: $dest cold replica failed:" >&2
    hide <"$out" >&2
    exit 1
  fi
  local key value
  while read -r key value; do
    case $key in
      peak_rss_kib) cell[$dest,cold_rss]="$((value / 1024)) MiB" ;;
      requests) cell[$dest,cold_requests]=$value ;;
      requests_seq) ;;
      *) cell[$dest,cold_$key]="$value s" ;;
    esac
  done <"$out"
  step "$dest cold replica: $(tr '\n' ' ' <"$out" | hide)"
}

# idle URL keeps an s3 replica idle for 32 s at --refresh 10s.
idle() {
  local out=$work/idle
  if ! "$fleetbench" replica -skill "$skill" -log "$vgw_log" -idle 32s -- "$skillstore" serve --source "$1" --refresh 10s >"$out" 2>&1; then
    echo "fleet-bench: idle replica failed:" >&2
    hide <"$out" >&2
    exit 1
  fi
  cell[s3,idle]=$(awk '$1 == "idle_requests" {$1 = ""; sub(/^ /, ""); print}' "$out")
  step "s3 idle replica: $(awk '$1 == "idle_requests_seq"' "$out")"
}

# start_versitygw starts versitygw on a free port of 127.0.0.1 with an
# empty bucket "fleet", and sets vgw_url and the AWS_* variables.
start_versitygw() {
  local port tries=0
  export AWS_ACCESS_KEY_ID=fleet-bench AWS_REGION=us-east-1
  AWS_SECRET_ACCESS_KEY=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  export AWS_SECRET_ACCESS_KEY
  mkdir -p "$work/vgw/fleet"
  vgw_log=$work/vgw-access.log
  while :; do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      # --keep-alive: S3 keeps connections open; versitygw closes each one
      # after its answer unless told otherwise, and a publish of 300,000
      # files then dials 300,000 connections.
      "$bin/versitygw" --access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" --port "127.0.0.1:$port" \
        --keep-alive --access-log "$vgw_log" --quiet posix "$work/vgw" >"$work/vgw.out" 2>&1 &
      vgw_pid=$!
      local deadline=$((SECONDS + 30))
      while kill -0 "$vgw_pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
          vgw_url="s3://fleet?region=us-east-1&use_path_style=true&endpoint=http://127.0.0.1:$port&prefix=skills/"
          step "versitygw on 127.0.0.1:$port"
          return
        fi
        sleep 0.1
      done
      kill "$vgw_pid" 2>/dev/null || true
      wait "$vgw_pid" 2>/dev/null || true
      vgw_pid=""
    fi
    tries=$((tries + 1))
    if [ $tries -ge 5 ]; then
      echo "fleet-bench: versitygw did not start:" >&2
      hide <"$work/vgw.out" >&2
      exit 1
    fi
  done
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for dest in "${dests[@]}"; do
  if [ "$dest" = file ]; then
    url=file://$work/file-dest/team
    mkdir -p "$work/file-dest"
  else
    start_versitygw
    url=$vgw_url
  fi
  counted "$dest" publish_first "$skillstore" publish "$tree" "$url"
  counted "$dest" publish_unchanged "$skillstore" publish "$tree" "$url"
  "$genfleet" -n "$n" -out "$tree" -touch 10 >/dev/null
  counted "$dest" publish_changed "$skillstore" publish "$tree" "$url"
  replica "$dest" "$url"
  counted "$dest" list "$skillstore" list --source "$url"
  if [ "$dest" = s3 ]; then idle "$url"; fi
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- the table --------------------------------------------------------------
declare -A title=([file]="file://" [s3]="versitygw (S3)")
rows=(publish_first publish_unchanged publish_changed cold_initialize cold_list_skills cold_get_skill cold_skills_list cold_rss cold_requests list idle)
declare -A label=(
  [publish_first]="publish, first (wall, peak RSS; requests)"
  [publish_unchanged]="publish again, nothing changed"
  [publish_changed]="publish again, 10 skills changed"
  [cold_initialize]="cold serve: initialize answered"
  [cold_list_skills]="cold serve: list_skills answered"
  [cold_get_skill]="cold serve: get_skill answered"
  [cold_skills_list]="cold serve: skills/list (first page) answered"
  [cold_rss]="cold serve: peak RSS (VmHWM)"
  [cold_requests]="cold serve: requests, start to last answer (get_skill's read included)"
  [list]="skillstore list (wall, peak RSS; requests)"
  [idle]="idle replica, --refresh 10s: requests in the 32 s after its first answers"
)
echo
echo "### $n skills ($(sed -n 2p "$fleet/complete" | sed 's/ in [0-9.]*s$//; s/^wrote [0-9]* skills, //'))"
echo
echo "skillstore: $measured. Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d); load average $load_before before, $load_after after."
echo
header="| |"
rule="|---|"
for dest in "${dests[@]}"; do
  header+=" ${title[$dest]} |"
  rule+="---|"
done
echo "$header"
echo "$rule"
for row in "${rows[@]}"; do
  line="| ${label[$row]} |"
  for dest in "${dests[@]}"; do line+=" ${cell[$dest,$row]:-—} |"; done
  echo "$line"
done
