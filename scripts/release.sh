#!/usr/bin/env bash
# scripts/release.sh VERSION [GOOS/GOARCH...] — build skillstore's release files.
#
# Writes to dist/ (or $SKILLSTORE_RELEASE_OUT), for linux, darwin and
# windows on amd64 and arm64 unless targets are given:
#   skillstore_X.Y.Z_OS_ARCH.tar.gz (.zip for windows)  the binary, README.md,
#                                                       BENCHMARKS.md and docs/
#   skillstore_X.Y.Z_OS_ARCH.sbom.cdx.json              its CycloneDX SBOM (cyclonedx-gomod)
#   skillstore_X.Y.Z_checksums.txt                      SHA-256 of each, for sha256sum -c
# Binaries are static, built with -trimpath and the version stamped in
# (skillstore version prints it); archives are dated SOURCE_DATE_EPOCH, else
# the HEAD commit's time, so a commit gives the same bytes on any machine
# with the same Go. Needs only Go; cyclonedx-gomod is built into .cache/bin.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
version=${1:?usage: scripts/release.sh VERSION [GOOS/GOARCH...]   (VERSION like v1.2.3)}
shift
bin=$PWD/.cache/bin
mkdir -p "$bin"
install_go_tool cyclonedx-gomod "$CYCLONEDX_GOMOD"
go run ./internal/release -version "$version" -out "${SKILLSTORE_RELEASE_OUT:-dist}" -sbom "$bin/cyclonedx-gomod" "$@"
