#!/usr/bin/env bash
# Checks the README's "Your own collector" as a newcomer would follow it: the ocb manifest and
# the configuration are taken from README.md itself (the yaml blocks after the markers
# <!-- newcomer: builder-config.yaml --> and <!-- newcomer: config.yaml -->), written into a
# temporary folder outside the repository beside a link named elasticsearchexporter that stands
# for the clone, built with ocb, and the configuration is loaded with the collector's validate
# command.
#
#   scripts/newcomer.sh     (make integration runs it)
#
# ocb is the one scripts/build-collector.sh installs (OCB_ONLY=1). KEEP=1 keeps the folder.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$SCRIPT_DIR")"
README="$REPO_DIR/README.md"
GO="${GO:-go}"

PROG=newcomer
. "$SCRIPT_DIR/lib.sh"

# block NAME: prints the yaml block that follows the marker <!-- newcomer: NAME --> in README.md.
block() {
	awk -v marker="<!-- newcomer: $1 -->" '
		$0 == marker { found = 1; next }
		found == 1 && /^```yaml$/ { found = 2; next }
		found == 2 && /^```$/ { exit }
		found == 2 { print }
		found == 1 && NF > 0 { exit }
	' "$README"
}

T0="$(date +%s)"
work="$(mktemp -d "${TMPDIR:-/tmp}/otelcol-newcomer.XXXXXX")"
cleanup() {
	if [[ "${KEEP:-0}" == 1 ]]; then
		log "kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

for name in builder-config.yaml config.yaml; do
	block "$name" >"$work/$name"
	[[ -s "$work/$name" ]] || die "README.md has no yaml block after <!-- newcomer: $name -->" \
		"keep the marker on the line before the block's opening fence"
done
grep -q '=> \.\./elasticsearchexporter$' "$work/builder-config.yaml" ||
	die "the README's manifest does not replace the module with ../elasticsearchexporter, the clone this check stands in for" \
		"keep the replaces: line pointing at the clone beside the manifest"
# The clone of the README's first step.
ln -s "$REPO_DIR" "$work/elasticsearchexporter"

OCB="$(GO="$GO" OCB_ONLY=1 "$SCRIPT_DIR/build-collector.sh")"
# Outside a VCS checkout stamping has nothing to read; keep the caller's flags otherwise.
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
log "building the README's manifest with ocb in $work"
t="$(date +%s)"
if ! (cd "$work" && "$OCB" --config=builder-config.yaml) >"$work/ocb.log" 2>&1; then
	tail -n 40 "$work/ocb.log" >&2
	KEEP=1
	die "ocb could not build the README's manifest (log: $work/ocb.log)" \
		"fix the manifest block in README.md, or the module it replaces"
fi
bin="$work/otelcol-custom/otelcol-custom"
[[ -x "$bin" ]] || die "ocb left no binary at $bin" "the manifest's dist::name and dist::output_path must stay otelcol-custom and ./otelcol-custom, as the README's commands use them"
log "built in $(($(date +%s) - t))s"

# The README's own command, with a made-up key: validate loads the configuration, builds the
# pipelines and connects to nothing.
if ! out="$(cd "$work" && ES_API_KEY=bmV3Y29tZXI6Y2hlY2s= otelcol-custom/otelcol-custom validate --config=config.yaml 2>&1)"; then
	printf '%s\n' "$out" >&2
	die "the collector refused the README's configuration" "fix the configuration block in README.md"
fi
log "the README's configuration is valid; total $(($(date +%s) - T0))s"
