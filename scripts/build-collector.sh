#!/usr/bin/env bash
# Builds the otelcol-es collector distribution (distribution/builder-config.yaml)
# with ocb and leaves the binary at <repo>/.bin/otelcol-es.
#
#   scripts/build-collector.sh          build, or do nothing when the binary is up to date
#   FORCE=1 scripts/build-collector.sh  always run ocb
#   VERBOSE=1 ...                       show ocb's output while it runs
#   OCB_ONLY=1 scripts/build-collector.sh  only install ocb; print its path
#
# ocb is installed into <repo>/.bin (GOBIN) at the pinned version. Generated
# sources and ocb's log live in <repo>/.bin/otelcol-es-build.
set -euo pipefail

OCB_VERSION="v0.165.0"
OCB_MODULE="go.opentelemetry.io/collector/cmd/builder"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$SCRIPT_DIR")"
BIN_DIR="$REPO_DIR/.bin"
OCB="$BIN_DIR/builder"
CONFIG="$REPO_DIR/distribution/builder-config.yaml"
BUILD_DIR="$BIN_DIR/otelcol-es-build" # must match dist.output_path in $CONFIG
BUILD_LOG="$BUILD_DIR/ocb.log"
TARGET="$BIN_DIR/otelcol-es"
GO="${GO:-go}"

PROG=build-collector
. "$SCRIPT_DIR/lib.sh"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# ---------------------------------------------------------------- checks

command -v "$GO" >/dev/null 2>&1 ||
	die "Go is not installed ('$GO' not found in PATH)" \
		"install Go 1.26 or newer (https://go.dev/dl/) and put its bin directory in PATH, or set GO=/path/to/go"
go_version="$("$GO" env GOVERSION 2>/dev/null)" || die "'$GO env GOVERSION' failed" "check the Go installation ($GO)"
if [[ "$go_version" =~ ^go1\.([0-9]+) ]] && ((BASH_REMATCH[1] < 26)); then
	die "$go_version is too old: the collector modules need Go 1.26 or newer" "install Go 1.26 or newer"
fi
[[ -r "$CONFIG" ]] || die "missing $CONFIG" "run this script from a complete checkout"

# In a checkout whose .git is not readable, VCS stamping would fail the build.
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

# up_to_date: the binary exists and no input of the build changed after it.
up_to_date() {
	[[ -x "$TARGET" && -x "$BUILD_DIR/otelcol-es" ]] || return 1
	local newer
	newer="$(find "$CONFIG" "$SCRIPT_DIR/build-collector.sh" "$REPO_DIR/go.mod" "$REPO_DIR/go.sum" \
		"$REPO_DIR" \( -path "$REPO_DIR/.*" -o -path "$REPO_DIR/integrationtest" -o -path "$REPO_DIR/tools" \
		-o -path "$REPO_DIR/internal/lab" -o -path "$REPO_DIR/distribution" -o -path "$REPO_DIR/examples" -o -path "$REPO_DIR/testdata" \
		-o -path '*/testdata' \) -prune -o \
		-newer "$TARGET" \( -name '*.go' -o -name 'go.mod' -o -name 'go.sum' -o -name '*.yaml' -o -name '*.sh' \) \
		-print -quit 2>/dev/null)"
	[[ -z "$newer" ]]
}

# ---------------------------------------------------------------- ocb

ocb_ok() {
	[[ -x "$OCB" ]] && "$GO" version -m "$OCB" 2>/dev/null |
		grep -qE "^[[:space:]]+mod[[:space:]]+${OCB_MODULE}[[:space:]]+${OCB_VERSION}([[:space:]]|$)"
}
# install_ocb: installs ocb at the pinned version into $BIN_DIR, unless it is there.
install_ocb() {
	mkdir -p "$BIN_DIR"
	if ocb_ok; then
		log "using ocb $OCB_VERSION ($OCB)"
		return 0
	fi
	log "installing ocb $OCB_MODULE@$OCB_VERSION into $BIN_DIR"
	local t
	t="$(now)"
	GOBIN="$BIN_DIR" "$GO" install "$OCB_MODULE@$OCB_VERSION" ||
		die "'go install $OCB_MODULE@$OCB_VERSION' failed (output above)" \
			"check that the Go module proxy is reachable ('$GO env GOPROXY')"
	ocb_ok || die "$OCB is not ocb $OCB_VERSION after the install" "remove $OCB and run this script again"
	log "ocb installed in $(since "$t")"
}

if [[ "${OCB_ONLY:-0}" == 1 ]]; then
	install_ocb
	printf '%s\n' "$OCB"
	exit 0
fi

T0="$(now)"
if [[ "${FORCE:-0}" != 1 ]] && up_to_date; then
	log "$TARGET is up to date ($(since "$T0")); FORCE=1 rebuilds"
	exit 0
fi
install_ocb

# ---------------------------------------------------------------- build

mkdir -p "$BUILD_DIR"
log "building $TARGET (with an empty Go build cache this compiles the whole collector: about 4 minutes on 2 cores)"
t="$(now)"
rc=0
# ocb resolves dist.output_path against the working directory.
if [[ "${VERBOSE:-0}" == 1 ]]; then
	(cd "$REPO_DIR/distribution" && "$OCB" --config="$CONFIG") 2>&1 | tee "$BUILD_LOG" >&2 || rc=$?
	[[ "$rc" == 0 ]] && rc="${PIPESTATUS[0]}"
else
	(cd "$REPO_DIR/distribution" && "$OCB" --config="$CONFIG") >"$BUILD_LOG" 2>&1 || rc=$?
fi
if [[ "$rc" != 0 || ! -x "$BUILD_DIR/otelcol-es" ]]; then
	if [[ "${VERBOSE:-0}" != 1 ]]; then
		printf -- '--- last 40 lines of %s ---\n' "$BUILD_LOG" >&2
		tail -n 40 "$BUILD_LOG" >&2
	fi
	die "ocb failed after $(since "$t") (exit status $rc); full log: $BUILD_LOG" \
		"a compile error names the file and line; fix it and run this script again" \
		"module download errors: check the Go module proxy ('$GO env GOPROXY')"
fi

# Replace the binary atomically, so a collector that is running keeps its file.
cp "$BUILD_DIR/otelcol-es" "$TARGET.tmp.$$"
mv -f "$TARGET.tmp.$$" "$TARGET"
size="$(du -h "$TARGET" | cut -f1)"
log "built $TARGET ($size) in $(since "$t"), total $(since "$T0")"
