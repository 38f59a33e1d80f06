#!/bin/sh
# check-skill.sh DIR - check a skill folder's SKILL.md against the Agent Skills rules.
# Exit status: 0 when valid, 1 when a rule is broken, 2 on usage errors.
set -eu
if [ "$#" -ne 1 ] || [ "$1" = "--help" ]; then
  echo "usage: check-skill.sh path/to/skill-folder" >&2
  exit 2
fi
dir=${1%/}
folder=$(basename "$dir")
doc="$dir/SKILL.md"
[ -f "$doc" ] || { echo "error: $doc not found" >&2; exit 1; }
[ "$(head -n 1 "$doc" | tr -d '\r')" = "---" ] || { echo "error: SKILL.md must start with '---'" >&2; exit 1; }
front=$(awk 'NR==1{next} /^---\r?$/{exit} {print}' "$doc")
name=$(printf '%s\n' "$front" | sed -n 's/^name:[[:space:]]*//p' | tr -d '\r"'"'" | head -n 1)
desc=$(printf '%s\n' "$front" | sed -n 's/^description:[[:space:]]*//p' | tr -d '\r' | head -n 1)
status=0
if ! printf '%s' "$name" | grep -Eq '^[a-z0-9]+(-[a-z0-9]+)*$'; then
  echo "name: '$name' must use lowercase letters, digits and single hyphens" >&2; status=1
fi
if [ "${#name}" -gt 64 ]; then echo "name: longer than 64 characters" >&2; status=1; fi
if [ "$name" != "$folder" ]; then echo "name: '$name' does not match folder '$folder'" >&2; status=1; fi
if [ -z "$desc" ]; then echo "description: missing" >&2; status=1; fi
if [ "${#desc}" -gt 1024 ]; then echo "description: longer than 1024 characters" >&2; status=1; fi
[ "$status" -eq 0 ] && echo "ok: $folder"
exit "$status"
