#!/usr/bin/env bash
# Runs the integration module (integrationtest/) against a real Elasticsearch node and the
# otelcol-es collector binary.
#
#   scripts/integration.sh     (or: make integration)
#
# Uses the node named by ES_ENDPOINT (with ES_USER/ES_PASSWORD or ES_API_KEY, and ES_CA_CERT)
# when set. Otherwise it starts one with scripts/es.sh and stops it again at the end, unless a
# node started earlier by scripts/es.sh was already running (then that one is used and left
# running). It starts the forward proxies of scripts/proxy.sh the same way. Tests fail, rather
# than skip, when a prerequisite is missing (ES_REQUIRED=1).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$SCRIPT_DIR")"
GO="${GO:-go}"
cd "$REPO_DIR"

started=""
proxy_started=""
cleanup() {
	if [ -n "$proxy_started" ]; then
		"$REPO_DIR/scripts/proxy.sh" stop || true
	fi
	if [ -n "$started" ]; then
		"$REPO_DIR/scripts/es.sh" stop || true
	fi
}
trap cleanup EXIT

if [ -z "${ES_ENDPOINT:-}" ]; then
	if ! scripts/es.sh env >/dev/null 2>&1; then
		started=1
	fi
	scripts/es.sh start
	set -a
	# shellcheck disable=SC1091
	. "${ES_STATE_DIR:-$REPO_DIR/.es}/env"
	set +a
fi

# The forward proxies of integrationtest/proxy_test.go (scripts/proxy.sh), between the tests
# and the node; stopped at the end unless they were running already.
if ! scripts/proxy.sh env >/dev/null 2>&1; then
	proxy_started=1
fi
scripts/proxy.sh start
set -a
# shellcheck disable=SC1091
. "${PROXY_STATE_DIR:-$REPO_DIR/.proxy}/env"
set +a

export ES_REQUIRED=1
export OTELCOL_BIN="${OTELCOL_BIN:-$REPO_DIR/.bin/otelcol-es}"
echo "integration: Elasticsearch at $ES_ENDPOINT, collector $OTELCOL_BIN"
cd integrationtest
"$GO" test -count=1 -race -timeout 20m ./...
