# scripts/lib.sh — helpers scripts/test.sh and scripts/release.sh share (sourced).

# install_go_tool NAME MODULE@VERSION builds a Go tool into $bin (set by the
# caller) unless that version is there already, and says how long it took.
install_go_tool() {
  if [ ! -x "$bin/$1" ] || [ "$(cat "$bin/$1.version" 2>/dev/null)" != "$2" ]; then
    local start=$SECONDS
    echo "building $2"
    GOBIN=$bin go install "$2"
    echo "$2" > "$bin/$1.version"
    echo "built $1 in $((SECONDS - start))s"
  else
    echo "$1: cached ($2)"
  fi
}

# The SBOM maker scripts/release.sh runs: cyclonedx-gomod, from the Go module proxy.
CYCLONEDX_GOMOD=github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0
