#!/usr/bin/env bash
# End-to-end demo: Elasticsearch, the otelcol-es collector, and a load generator.
#
#   scripts/demo.sh        (or: make demo)
#
# 1. Starts a local Elasticsearch node with scripts/es.sh, unless ES_ENDPOINT names one
#    (then ES_API_KEY, or ES_USER and ES_PASSWORD, and optionally ES_CA_CERT are used).
# 2. Builds the collector (scripts/build-collector.sh) and the load generator.
# 3. Runs the collector with examples/demo.yaml and --feature-gates=service.profilesSupport,
#    sends logs, traces (with span events), metrics and profiles over OTLP/HTTP, waits until
#    Elasticsearch has all of them, and prints the data streams, their document counts and one
#    document of each kind.
# 4. Stops the collector and, when this script started it, Elasticsearch, also on failure
#    or Ctrl-C.
#
# Settings (environment):
#   DEMO_LOGS (2000), DEMO_SPANS (500), DEMO_METRICS (1000 data points),
#   DEMO_PROFILES (200 samples)          what the load generator sends
#   DEMO_DATASET (demo)                  data_stream.dataset of the generated logs, traces
#                                        and metrics (profiles go to the profiling-* data streams)
#   OTLP_GRPC_ENDPOINT, OTLP_HTTP_ENDPOINT
#                                        receiver addresses (default 127.0.0.1:4317/4318, or
#                                        free ports when those are taken)
#   KEEP_ES=1                            leave a node that this script started running
#   ES_STATE_DIR                         passed to scripts/es.sh (default <repo>/.es)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$SCRIPT_DIR")"
BIN_DIR="$REPO_DIR/.bin"
COLLECTOR="$BIN_DIR/otelcol-es"
LOADGEN="$BIN_DIR/loadgen"
CONFIG="$REPO_DIR/examples/demo.yaml"
TEMPLATES_DIR="$REPO_DIR/integrationtest/internal/estest/templates"
RUN_DIR="$BIN_DIR/demo"
COLLECTOR_LOG="$RUN_DIR/collector.log"
LOADGEN_OUT="$RUN_DIR/loadgen.out"

DEMO_LOGS="${DEMO_LOGS:-2000}"
DEMO_SPANS="${DEMO_SPANS:-500}"
DEMO_METRICS="${DEMO_METRICS:-1000}"
DEMO_PROFILES="${DEMO_PROFILES:-200}"
DEMO_DATASET="${DEMO_DATASET:-demo}"
ARRIVAL_TIMEOUT="${ARRIVAL_TIMEOUT:-120}"

STARTED_ES=0
COLLECTOR_PID=""
STEP=0
STEPS=7
T_START="$(date +%s)"

# ---------------------------------------------------------------- output

if [[ -t 1 ]]; then BOLD=$'\033[1m' RED=$'\033[31m' OFF=$'\033[0m'; else BOLD="" RED="" OFF=""; fi

step() {
	STEP=$((STEP + 1))
	printf '\n%s==> [%d/%d] %s%s\n' "$BOLD" "$STEP" "$STEPS" "$*" "$OFF"
}
info() { printf '    %s\n' "$*"; }
PROG=demo DIE_START=$'\n'"$RED" DIE_END="$OFF"
. "$SCRIPT_DIR/lib.sh"

# ---------------------------------------------------------------- cleanup

stop_collector() {
	[[ -n "$COLLECTOR_PID" ]] || return 0
	if kill -0 "$COLLECTOR_PID" 2>/dev/null; then
		kill -TERM "$COLLECTOR_PID" 2>/dev/null || true
		local i
		for ((i = 0; i < 60; i++)); do
			kill -0 "$COLLECTOR_PID" 2>/dev/null || break
			sleep 0.5
		done
		if kill -0 "$COLLECTOR_PID" 2>/dev/null; then
			printf 'demo: the collector (pid %s) did not stop within 30s; killing it\n' "$COLLECTOR_PID" >&2
			kill -KILL "$COLLECTOR_PID" 2>/dev/null || true
		fi
	fi
	local rc=0
	wait "$COLLECTOR_PID" 2>/dev/null || rc=$?
	COLLECTOR_PID=""
	return "$rc"
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [[ -n "$COLLECTOR_PID" ]]; then
		printf '\ndemo: stopping the collector\n' >&2
		stop_collector || true
		if [[ "$rc" != 0 && -s "$COLLECTOR_LOG" ]]; then
			printf -- '--- last 30 lines of %s ---\n' "$COLLECTOR_LOG" >&2
			tail -n 30 "$COLLECTOR_LOG" >&2
		fi
	fi
	if [[ "$STARTED_ES" == 1 ]]; then
		if [[ "${KEEP_ES:-0}" == 1 ]]; then
			printf 'demo: leaving Elasticsearch running (KEEP_ES=1); stop it with scripts/es.sh stop\n' >&2
		else
			printf 'demo: stopping the Elasticsearch node it started\n' >&2
			"$SCRIPT_DIR/es.sh" stop || true
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- helpers

require_tool() {
	command -v "$1" >/dev/null 2>&1 || die "'$1' is not installed" "$2"
}

# es_curl PATH [curl args...]: a request to Elasticsearch with the demo's credentials.
es_curl() {
	local path="$1"
	shift
	local args=(-sS --max-time 30)
	[[ -n "${ES_CA_CERT:-}" ]] && args+=(--cacert "$ES_CA_CERT")
	if [[ -n "${ES_API_KEY:-}" ]]; then
		args+=(-H "Authorization: ApiKey $ES_API_KEY")
	elif [[ -n "${ES_USER:-}" ]]; then
		args+=(-u "$ES_USER:${ES_PASSWORD:-}")
	fi
	curl "${args[@]}" "$@" "$ES_ENDPOINT$path"
}

# es_code PATH [curl args...]: prints only the HTTP status.
es_code() {
	local path="$1"
	shift
	es_curl "$path" -o /dev/null -w '%{http_code}' "$@" || printf '000'
}

# count INDEX [QUERY]: number of documents matching a query-string query, or of all documents
# without one. Not `q=*`: a query string without a field searches index.query.default_field,
# which the metrics data streams' template sets to ["message"], a field metric documents lack,
# so `q=*` counts none of them.
count() {
	local out query=()
	[[ -n "${2:-}" ]] && query=(--data-urlencode "q=$2")
	out="$(es_curl "/_cat/count/$1?h=count" -G "${query[@]}" 2>/dev/null)" || out=""
	out="$(printf '%s' "$out" | tr -dc '0-9')"
	printf '%s' "${out:-0}"
}

port_in_use() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

free_port() {
	local port i
	for ((i = 0; i < 200; i++)); do
		port=$((20000 + RANDOM % 40000))
		if ! port_in_use "$port"; then
			printf '%s' "$port"
			return 0
		fi
	done
	die "no free TCP port found on 127.0.0.1" "set OTLP_GRPC_ENDPOINT and OTLP_HTTP_ENDPOINT to free addresses"
}

# pick_endpoint VAR DEFAULT_PORT: keeps VAR when set, else 127.0.0.1:DEFAULT_PORT when free,
# else a free port.
pick_endpoint() {
	local var="$1" port="$2"
	if [[ -n "${!var:-}" ]]; then
		return 0
	fi
	if port_in_use "$port"; then
		port="$(free_port)"
	fi
	printf -v "$var" '127.0.0.1:%s' "$port"
	export "${var?}"
}

# pretty: pretty-prints the _source of the first hit of a search answer on stdin.
pretty() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json, sys
hits = json.load(sys.stdin).get("hits", {}).get("hits", [])
print(json.dumps(hits[0]["_source"], indent=2, ensure_ascii=False) if hits else "(no document)")' |
			sed 's/^/    /'
	else
		sed 's/^/    /'
	fi
}

# sample TITLE INDEX QUERY [SORT]: prints the first document that matches a query-string query.
sample() {
	local title="$1" index="$2" query="$3" sort="${4:-}"
	printf '\n    %s%s%s (%s)\n' "$BOLD" "$title" "$OFF" "$index"
	es_curl "/$index/_search?size=1&pretty&filter_path=hits.hits._source${sort:+&sort=$sort}" -G --data-urlencode "q=$query" | pretty
}

# ---------------------------------------------------------------- 1. Elasticsearch

require_tool curl "install curl ('apt-get install curl')"
require_tool go "install Go 1.26 or newer (https://go.dev/dl/)"

step "Elasticsearch"
if [[ -n "${ES_ENDPOINT:-}" ]]; then
	info "using ES_ENDPOINT=$ES_ENDPOINT"
	ES_USER="${ES_USER:-}" ES_PASSWORD="${ES_PASSWORD:-}" ES_API_KEY="${ES_API_KEY:-}" ES_CA_CERT="${ES_CA_CERT:-}"
	[[ -n "$ES_API_KEY" || -n "$ES_USER" ]] || info "no ES_API_KEY or ES_USER given: sending requests without authentication"
else
	ES_STATE_DIR="${ES_STATE_DIR:-$REPO_DIR/.es}"
	export ES_STATE_DIR
	if "$SCRIPT_DIR/es.sh" env >/dev/null 2>&1; then
		info "reusing the node that scripts/es.sh started before (it stays running)"
	else
		info "starting a local node with scripts/es.sh start (the first start downloads the server, ~1 minute)"
		STARTED_ES=1
	fi
	"$SCRIPT_DIR/es.sh" start >/dev/null ||
		die "scripts/es.sh start failed (its messages are above)" \
			"or point the demo at a running cluster: ES_ENDPOINT=https://host:9200 ES_API_KEY=... $0"
	env_file="$ES_STATE_DIR/env"
	[[ -r "$env_file" ]] || die "scripts/es.sh did not write $env_file" "run scripts/es.sh start by hand and read its output"
	for key in ES_ENDPOINT ES_USER ES_PASSWORD ES_API_KEY ES_CA_CERT; do
		printf -v "$key" '%s' "$(sed -n "s/^$key=//p" "$env_file" | tail -n 1)"
	done
	# The local node has both; basic auth is the one that always works on it.
	ES_API_KEY=""
fi
export ES_ENDPOINT ES_USER ES_PASSWORD ES_API_KEY ES_CA_CERT
[[ -n "$ES_API_KEY" ]] && ES_USER="" ES_PASSWORD=""

health="$(es_curl "/_cluster/health" -f 2>&1)" ||
	die "Elasticsearch at $ES_ENDPOINT does not answer: $health" \
		"check ES_ENDPOINT, the credentials (ES_API_KEY or ES_USER/ES_PASSWORD) and ES_CA_CERT"
# GET / is not served by every distribution; the nodes API is.
version="$(es_curl "/_nodes/_local?filter_path=nodes.*.version" 2>/dev/null |
	sed -n 's/.*"version" *: *"\([^"]*\)".*/\1/p' | head -n 1)" || version=""
info "Elasticsearch ${version:-?} at $ES_ENDPOINT ($([[ -n "$ES_API_KEY" ]] && echo "API key" || echo "user ${ES_USER:-none}"))"

# ---------------------------------------------------------------- 2. templates

step "Index templates for logs-*.otel-*, traces-*.otel-*, metrics-*.otel-* and the otel-mode profiling data streams"
for pair in "logs-otel@template:otelcol-es-logs-otel:logs-otel.json" "traces-otel@template:otelcol-es-traces-otel:traces-otel.json" \
	"metrics-otel@template:otelcol-es-metrics-otel:metrics-otel.json" \
	"profiling-events-otel@template:otelcol-es-profiling-events-otel:profiling-events-otel.json" \
	"profiling-stacktraces-otel@template:otelcol-es-profiling-stacktraces-otel:profiling-stacktraces-otel.json" \
	"profiling-stackframes-otel@template:otelcol-es-profiling-stackframes-otel:profiling-stackframes-otel.json" \
	"profiling-executables-otel@template:otelcol-es-profiling-executables-otel:profiling-executables-otel.json" \
	"profiling-hosts-otel@template:otelcol-es-profiling-hosts-otel:profiling-hosts-otel.json"; do
	IFS=: read -r builtin name file <<<"$pair"
	code="$(es_code "/_index_template/$builtin")"
	if [[ "$code" == 200 ]]; then
		info "$builtin is built in; using it"
		continue
	fi
	# The test distribution of Elasticsearch lacks the built-in OTel templates; without a
	# data stream template the exporter's documents (sent with require_data_stream) are refused.
	code="$(es_code "/_index_template/$name" -X PUT -H 'Content-Type: application/json' --data-binary "@$TEMPLATES_DIR/$file")"
	[[ "$code" == 200 ]] || die "PUT _index_template/$name answered HTTP $code" "check that the user may manage index templates"
	info "$builtin is not installed on this node; put the stand-in $name ($file)"
done

# ---------------------------------------------------------------- 3. build

step "Build the collector and the load generator"
"$SCRIPT_DIR/build-collector.sh" || die "building the collector failed (see above)"
t="$(date +%s)"
(cd "$REPO_DIR/integrationtest" && go build -o "$LOADGEN" ./cmd/loadgen) ||
	die "building the load generator failed (see above)"
info "built $LOADGEN in $(($(date +%s) - t))s"

# ---------------------------------------------------------------- 4. collector

step "Start the collector"
pick_endpoint OTLP_GRPC_ENDPOINT 4317
pick_endpoint OTLP_HTTP_ENDPOINT 4318
mkdir -p "$RUN_DIR"
# The profiles pipeline needs the feature gate: profiles are in development in the collector.
GATES=--feature-gates=service.profilesSupport
"$COLLECTOR" validate --config="$CONFIG" "$GATES" >"$COLLECTOR_LOG" 2>&1 ||
	die "the collector refuses $CONFIG: $(tail -n 5 "$COLLECTOR_LOG")" "fix the configuration"
"$COLLECTOR" --config="$CONFIG" "$GATES" >"$COLLECTOR_LOG" 2>&1 &
COLLECTOR_PID=$!
info "$COLLECTOR --config=examples/demo.yaml $GATES (pid $COLLECTOR_PID, log $COLLECTOR_LOG)"
info "OTLP gRPC on $OTLP_GRPC_ENDPOINT, OTLP/HTTP on $OTLP_HTTP_ENDPOINT"
deadline=$(($(date +%s) + 60))
until port_in_use "${OTLP_HTTP_ENDPOINT##*:}"; do
	kill -0 "$COLLECTOR_PID" 2>/dev/null || die "the collector exited during startup (log below)"
	(($(date +%s) < deadline)) || die "the collector did not listen on $OTLP_HTTP_ENDPOINT within 60s"
	sleep 0.2
done
grep -q 'Everything is ready' "$COLLECTOR_LOG" || sleep 1
connected="$(grep -m1 'Connected to Elasticsearch' "$COLLECTOR_LOG" || true)"
if [[ -n "$connected" ]]; then
	info "the exporter connected to Elasticsearch $(printf '%s' "$connected" | sed -n 's/.*"version": "\([^"]*\)".*/\1/p')"
else
	info "listening"
fi

# ---------------------------------------------------------------- 5. load

step "Send $DEMO_LOGS log records, $DEMO_SPANS spans (each with one span event), $DEMO_METRICS metric data points and $DEMO_PROFILES profile samples"
RUN_ID="demo$(date +%H%M%S)$((RANDOM % 100))"
if ! "$LOADGEN" -endpoint "http://$OTLP_HTTP_ENDPOINT" -logs "$DEMO_LOGS" -spans "$DEMO_SPANS" -metrics "$DEMO_METRICS" \
	-profiles "$DEMO_PROFILES" -batch 250 -run-id "$RUN_ID" -dataset "$DEMO_DATASET" -service checkout 2>&1 |
	tee "$LOADGEN_OUT" | sed 's/^/    /'; then
	die "the load generator could not deliver everything (its messages are above)"
fi
# The exporter groups data points that share resource, scope, attributes, unit and timestamp
# into one document; the load generator says how many documents its data points make.
METRIC_DOCS="$(sed -n 's/.* metric data points (\([0-9]*\) documents expected).*/\1/p' "$LOADGEN_OUT" | tail -n 1)"
[[ "$METRIC_DOCS" =~ ^[0-9]+$ ]] || die "the load generator did not say how many metric documents to expect (its output is above)"
# Each profile sample is one event; the stack traces, frames and executables it refers to have
# ids derived from their content, the same in every run, so a node that has them from an
# earlier run keeps one of each; the host has the run id among its attributes.
read -r PROF_EVENTS PROF_STACKTRACES PROF_STACKFRAMES PROF_EXECUTABLES PROF_HOSTS < <(sed -n \
	's/.* profile samples (\([0-9]*\) events, \([0-9]*\) stack traces, \([0-9]*\) stack frames, \([0-9]*\) executables, \([0-9]*\) hosts expected).*/\1 \2 \3 \4 \5/p' \
	"$LOADGEN_OUT" | tail -n 1) || true
[[ "${PROF_HOSTS:-}" =~ ^[0-9]+$ ]] || die "the load generator did not say how many profiling documents to expect (its output is above)"

# ---------------------------------------------------------------- 6. wait

step "Wait until Elasticsearch has every document"
LOGS_DS="logs-$DEMO_DATASET.otel-default"
TRACES_DS="traces-$DEMO_DATASET.otel-default"
METRICS_DS="metrics-$DEMO_DATASET.otel-default"
EVENTS_DS="profiling-events-all.otel-default"
STACKTRACES_DS="profiling-stacktraces.otel-default"
STACKFRAMES_DS="profiling-stackframes.otel-default"
EXECUTABLES_DS="profiling-executables.otel-default"
HOSTS_DS="profiling-hosts.otel-default"
PROFILING_DS="$EVENTS_DS,$STACKTRACES_DS,$STACKFRAMES_DS,$EXECUTABLES_DS,$HOSTS_DS"
run_q="resource.attributes.loadgen.run_id:\"$RUN_ID\""
t="$(date +%s)"
deadline=$((t + ARRIVAL_TIMEOUT))
while :; do
	es_curl "/$LOGS_DS,$TRACES_DS,$METRICS_DS,$PROFILING_DS/_refresh?ignore_unavailable=true&allow_no_indices=true" -X POST -o /dev/null || true
	n_logs="$(count "$LOGS_DS" "$run_q AND NOT _exists_:event_name")"
	n_events="$(count "$LOGS_DS" "$run_q AND _exists_:event_name")"
	n_spans="$(count "$TRACES_DS" "$run_q")"
	n_metric_docs="$(count "$METRICS_DS" "$run_q")"
	n_prof_events="$(count "$EVENTS_DS" "$run_q")"
	n_prof_hosts="$(count "$HOSTS_DS" "$run_q")"
	n_stacktraces="$(count "$STACKTRACES_DS")"
	n_stackframes="$(count "$STACKFRAMES_DS")"
	n_executables="$(count "$EXECUTABLES_DS")"
	if ((n_logs >= DEMO_LOGS && n_events >= DEMO_SPANS && n_spans >= DEMO_SPANS && n_metric_docs >= METRIC_DOCS &&
		n_prof_events >= PROF_EVENTS && n_prof_hosts >= PROF_HOSTS && n_stacktraces >= PROF_STACKTRACES &&
		n_stackframes >= PROF_STACKFRAMES && n_executables >= PROF_EXECUTABLES)); then
		break
	fi
	if (($(date +%s) >= deadline)); then
		die "after ${ARRIVAL_TIMEOUT}s Elasticsearch has $n_logs/$DEMO_LOGS log records, $n_events/$DEMO_SPANS span events, $n_spans/$DEMO_SPANS spans, $n_metric_docs/$METRIC_DOCS metric documents, $n_prof_events/$PROF_EVENTS profiling events and $n_prof_hosts/$PROF_HOSTS hosts of run $RUN_ID, and $n_stacktraces/$PROF_STACKTRACES stack traces, $n_stackframes/$PROF_STACKFRAMES stack frames, $n_executables/$PROF_EXECUTABLES executables" \
			"read the collector's log: $COLLECTOR_LOG"
	fi
	kill -0 "$COLLECTOR_PID" 2>/dev/null || die "the collector exited (log below)"
	sleep 1
done
info "run $RUN_ID: $n_logs log records and $n_events span events in $LOGS_DS, $n_spans spans in $TRACES_DS,"
info "  $n_metric_docs metric documents ($DEMO_METRICS data points) in $METRICS_DS,"
info "  $n_prof_events profiling events in $EVENTS_DS and $n_prof_hosts host in $HOSTS_DS ($(($(date +%s) - t))s after sending);"
info "  $n_stacktraces stack traces, $n_stackframes stack frames and $n_executables executables in their data streams (not per run)"
if ((n_logs != DEMO_LOGS || n_events != DEMO_SPANS || n_spans != DEMO_SPANS || n_metric_docs != METRIC_DOCS ||
	n_prof_events != PROF_EVENTS || n_prof_hosts != PROF_HOSTS)); then
	die "more documents than were sent: some were indexed twice" "read the collector's log: $COLLECTOR_LOG"
fi

# ---------------------------------------------------------------- 7. results

step "What Elasticsearch holds"
info "the demo's data streams and the profiling ones (documents of all runs so far):"
for ds in "$LOGS_DS" "$TRACES_DS" "$METRICS_DS" "$EVENTS_DS" "$HOSTS_DS"; do
	printf '      %-36s %8s documents (this run: %s)\n' "$ds" "$(count "$ds")" "$(count "$ds" "$run_q")"
done
for ds in "$STACKTRACES_DS" "$STACKFRAMES_DS" "$EXECUTABLES_DS"; do
	printf '      %-36s %8s documents (not per run: ids from content)\n' "$ds" "$(count "$ds")"
done
info ""
info "all logs, traces, metrics and profiling indices (GET _cat/indices/logs-*,traces-*,metrics-*,profiling-*):"
es_curl "/_cat/indices/logs-*,traces-*,metrics-*,profiling-*?v&h=index,docs.count&s=index" | sed 's/^/      /'

# Record 8 of a run is a failed request: an ERROR log record, a span with status Error, and
# an "exception" span event.
sample "a log record" "$LOGS_DS" "$run_q AND attributes.loadgen.seq:8 AND NOT _exists_:event_name"
sample "a span" "$TRACES_DS" "$run_q AND attributes.loadgen.seq:8"
sample "a span event" "$LOGS_DS" "$run_q AND attributes.loadgen.seq:8 AND _exists_:event_name"
# The first sample of route /api/orders: four metrics, one document.
sample "a metric document" "$METRICS_DS" "$run_q AND attributes.http.route:\"/api/orders\"" "@timestamp:asc"
# The profiling documents: the run's first event, the stack trace it refers to (its _id is the
# event's stacktrace.id), the trace's root frame (the first 32 characters of frame.ids, root
# first, are its id: the file id and the address, base64url), the executable of that frame (its
# file id, the first 22 characters) and the run's host.
sample "a profiling event" "$EVENTS_DS" "$run_q" "@timestamp:asc"
# The node returns the event's source rebuilt from its fields (logsdb), stacktrace.id as an
# object; the pattern takes either form.
stack_id="$(es_curl "/$EVENTS_DS/_search?size=1&sort=@timestamp:asc&_source=stacktrace.id&filter_path=hits.hits._source" \
	-G --data-urlencode "q=$run_q" | sed -n 's/.*"\(stacktrace\.\)\{0,1\}id" *: *"\([^"]*\)".*/\2/p' | head -n 1)"
sample "a stack trace" "$STACKTRACES_DS" "_id:\"$stack_id\""
frame_ids="$(es_curl "/$STACKTRACES_DS/_search?size=1&_source=frame.ids&filter_path=hits.hits._source" \
	-G --data-urlencode "q=_id:\"$stack_id\"" | sed -n 's/.*"\(frame\.\)\{0,1\}ids" *: *"\([^"]*\)".*/\2/p' | head -n 1)"
sample "a stack frame (the stack trace's root)" "$STACKFRAMES_DS" "_id:\"${frame_ids:0:32}\""
sample "an executable (the root frame's)" "$EXECUTABLES_DS" "_id:\"${frame_ids:0:22}\""
sample "a host" "$HOSTS_DS" "$run_q"

printf '\n'
problems="$(grep -cE $'\t(warn|error)\t' "$COLLECTOR_LOG" || true)"
info "the collector logged ${problems:-0} warnings or errors (log: $COLLECTOR_LOG)"
info "stopping the collector"
if stop_collector; then
	info "the collector exited with status 0$(grep -q 'Shutdown complete' "$COLLECTOR_LOG" && echo ' ("Shutdown complete.")')"
else
	die "the collector did not exit cleanly" "read its log: $COLLECTOR_LOG"
fi
printf '\n%sdemo finished in %ss%s\n' "$BOLD" "$(($(date +%s) - T_START))" "$OFF"
