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
#
# Then it runs the tests of ES8_TESTS once more against the newest served 8.x node
# (scripts/es.sh with ES_VERSION=8, in its own state dir <repo>/.es-VERSION, or ES8_STATE_DIR),
# started and stopped the same way. That pass is left out when ES_ENDPOINT names a node, or with
# ES8_PASS=0.
#
# Last, the realms pass: the tests of integrationtest/realms_test.go against the realms node
# (scripts/es.sh with ES_REALMS=1: trial licence, PKI and JWT realms, state in <repo>/.es-realms),
# started and stopped the same way. Left out when ES_ENDPOINT names a node, or with REALMS_PASS=0.
#
# First of all, scripts/prereqs.sh names every program these passes need that is missing
# (python3 and tinyproxy for the proxy tests, openssl and basenc for the realms pass...).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$SCRIPT_DIR")"
GO="${GO:-go}"
cd "$REPO_DIR"
scripts/prereqs.sh

# The tests that the 8.x pass runs: those whose outcome depends on the server's version
# (include_source_on_error from 8.18, the version check and its start-up lines,
# require_data_stream, the time series data stream's answers, the snappy request bodies the node
# decodes or not) and a round trip of logs, metrics
# and traces in the otel and ecs mapping modes, through the exporter and through the collector.
ES8_TESTS='^(TestLogsRoundTrip|TestSpansAndSpanEventsRoundTrip|TestRoutingCreatesDataStreams|TestDuplicateIDIsCountedNotIndexed|TestMappingConflictRejectsOnlyThatDocument|TestVersionCheckAndMissingTemplateWarning|TestMetrics.*|TestTSDB.*|TestCollectorEndToEnd|TestCollectorMappingModesPerRequest|TestSnappy.*)$'

# realms runs scripts/es.sh for the realms node.
realms() { ES_REALMS=1 ES_STATE_DIR="${REALMS_STATE_DIR:-}" "$REPO_DIR/scripts/es.sh" "$@"; }

# es8 runs scripts/es.sh for the 8.x node.
es8() { ES_VERSION=8 ES_STATE_DIR="${ES8_STATE_DIR:-}" "$REPO_DIR/scripts/es.sh" "$@"; }

started=""
proxy_started=""
es8_started=""
realms_started=""
cleanup() {
	if [ -n "$proxy_started" ]; then
		"$REPO_DIR/scripts/proxy.sh" stop || true
	fi
	if [ -n "$started" ]; then
		"$REPO_DIR/scripts/es.sh" stop || true
	fi
	if [ -n "$es8_started" ]; then
		es8 stop || true
	fi
	if [ -n "$realms_started" ]; then
		realms stop || true
	fi
}
trap cleanup EXIT

es8_pass="${ES8_PASS:-1}"
realms_pass="${REALMS_PASS:-1}"
[ -z "${ES_ENDPOINT:-}" ] || es8_pass=0
[ -z "${ES_ENDPOINT:-}" ] || realms_pass=0
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
cd "$REPO_DIR"

# The 9.x node is not needed any more: stopping it first leaves the memory to the next node.
if [ -n "$started" ] && { [ "$es8_pass" != 0 ] || [ "$realms_pass" != 0 ]; }; then
	scripts/es.sh stop
	started=""
fi

if [ "$es8_pass" != 0 ]; then
	if ! es8 env >/dev/null 2>&1; then
		es8_started=1
	fi
	es8 start
	# In a subshell, so that the 8.x node's env (ES_VERSION among it) stays out of the realms pass.
	(
		set -a
		# shellcheck disable=SC1090
		. <(es8 env)
		set +a
		echo "integration: the version-dependent tests against Elasticsearch $ES_VERSION at $ES_ENDPOINT"
		cd integrationtest && "$GO" test -count=1 -race -timeout 10m -run "$ES8_TESTS" .
	)
	if [ -n "$es8_started" ]; then
		es8 stop
		es8_started=""
	fi
fi

[ "$realms_pass" != 0 ] || exit 0
if ! realms env >/dev/null 2>&1; then
	realms_started=1
fi
realms start
realms_env="$(mktemp)"
realms env >"$realms_env"
echo "integration: the realms tests (PKI, JWT) against the realms node"
# ES_ENDPOINT is unset so that the tests read the realms node's env file, ES_REALMS and all.
(cd integrationtest && env -u ES_ENDPOINT ES_ENV_FILE="$realms_env" "$GO" test -count=1 -race -timeout 10m -run '^TestRealms' .)
rm -f "$realms_env"
