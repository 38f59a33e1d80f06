#!/bin/sh
# lint-commit-msg.sh [FILE] - check a commit message (FILE or stdin) against
# the Conventional Commits format. Prints one line per problem.
# Exit status: 0 when the message passes, 1 otherwise.
set -eu
if [ "${1:-}" = "--help" ]; then
  echo "usage: lint-commit-msg.sh [message-file]   (reads stdin without a file)" >&2
  exit 0
fi
msg=$(cat "${1:-/dev/stdin}" | grep -v '^#')
summary=$(printf '%s\n' "$msg" | head -n 1)
second=$(printf '%s\n' "$msg" | sed -n 2p)
status=0
types='feat|fix|perf|refactor|docs|test|build|ci|chore|revert'
if ! printf '%s' "$summary" | grep -Eq "^($types)(\([a-z0-9._/-]+\))?!?: [^ ]"; then
  echo "summary: must look like 'type(scope): summary' with type one of ${types}" >&2; status=1
fi
if [ "${#summary}" -gt 72 ]; then echo "summary: ${#summary} characters; keep it to 72" >&2; status=1; fi
case "$summary" in *.) echo "summary: drop the final period" >&2; status=1;; esac
if [ -n "$second" ]; then echo "line 2: leave a blank line between summary and body" >&2; status=1; fi
long=$(printf '%s\n' "$msg" | awk 'NR>2 && length($0)>100 && !/^https?:/ {print NR}' | head -n 3)
if [ -n "$long" ]; then echo "body: lines $(echo $long) are longer than 100 characters; wrap at 72" >&2; status=1; fi
[ "$status" -eq 0 ] && echo "ok"
exit "$status"
