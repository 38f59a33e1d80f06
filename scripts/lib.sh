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

# install_jaeger builds Jaeger v2 (an OpenTelemetry Collector distribution,
# the integration tests' trace collector) into $bin from its own module,
# internal/tools/jaeger, so the main module's go.mod does not take its
# dependency tree; unless the build of that go.sum is there already.
install_jaeger() {
  local dir=$root/internal/tools/jaeger want
  want=$(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-16)
  if [ ! -x "$bin/jaeger" ] || [ "$(cat "$bin/jaeger.version" 2>/dev/null)" != "$want" ]; then
    local start=$SECONDS
    echo "building jaeger ($(grep -m1 'github.com/jaegertracing/jaeger ' "$dir/go.mod" | awk '{print $2}'))"
    (cd "$dir" && go build -trimpath -o "$bin/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger)
    echo "$want" > "$bin/jaeger.version"
    echo "built jaeger in $((SECONDS - start))s"
  else
    echo "jaeger: cached"
  fi
}
