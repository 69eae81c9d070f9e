# shellcheck shell=bash
# The cluster commands of scripts/es.sh: several nodes of the same server archive on loopback,
# one cluster name, each node with its own ports, config, data and log folders under
# $ES_STATE_DIR/cluster/node-I, the same CA, certificates and elastic password as the single
# node, security and HTTPS on. The single node and the cluster never share a port, a data folder
# or an unpacked archive, so both can exist side by side (though the tests run one at a time).
# Sourced by scripts/es.sh; docs/cluster.md describes the commands, docs/dev/cluster-runs.md the
# measured numbers.

ES_CLUSTER_HEAP="${ES_CLUSTER_HEAP:-384m}"
ES_CLUSTER_START_TIMEOUT="${ES_CLUSTER_START_TIMEOUT:-300}"
CLUSTER_NAME="otelcol-es-cluster"
CLUSTER_DIR="$ES_STATE_DIR/cluster"
CLUSTER_HOME="$CLUSTER_DIR/elasticsearch-$ES_VERSION"
CLUSTER_NODES_FILE="$CLUSTER_DIR/nodes" # one line per node: index http-port transport-port
CLUSTER_ENV_FILE="$CLUSTER_DIR/env"

node_dir() { printf '%s/node-%s' "$CLUSTER_DIR" "$1"; }

# node_ports I: prints "HTTP TRANSPORT" of node I from the nodes file.
node_ports() {
	[[ -s "$CLUSTER_NODES_FILE" ]] || return 1
	awk -v i="$1" '$1 == i { print $2, $3; found = 1 } END { exit !found }' "$CLUSTER_NODES_FILE"
}

node_indexes() {
	[[ -s "$CLUSTER_NODES_FILE" ]] || return 0
	awk '{ print $1 }' "$CLUSTER_NODES_FILE"
}

# cluster_node_pid I: the server pid of node I when it runs (its pid file, checked against
# the process's temporary folder, which is the node's own and is on the JVM's command line).
cluster_node_pid() {
	local dir pid
	dir="$(node_dir "$1")"
	[[ -s "$dir/es.pid" ]] || return 1
	pid="$(tr -dc '0-9' <"$dir/es.pid")"
	[[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
	{ tr '\0' '\n' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qxF -- "-Djava.io.tmpdir=$dir/tmp" || return 1
	printf '%s' "$pid"
}

check_index() {
	[[ "${1:-}" =~ ^[1-9][0-9]*$ ]] || die "'${1:-}' is not a node index" "name a node by its index: 1, 2, 3..."
	node_ports "$1" >/dev/null || die "node $1 is not part of the cluster (nodes: $(node_indexes | tr '\n' ' '))" \
		"start the cluster with '$0 cluster-start' or add a node with '$0 node-add'"
}

seed_hosts() {
	awk '{ printf "%s127.0.0.1:%s", (NR > 1 ? "," : ""), $3 }' "$CLUSTER_NODES_FILE"
}

cluster_endpoints() {
	awk '{ printf "%shttps://127.0.0.1:%s", (NR > 1 ? "," : ""), $2 }' "$CLUSTER_NODES_FILE"
}

# cluster_prepare: JDK, archive, unpacked copy, run user, certificates and keystore, shared by
# every node (each node gets a copy of the config folder at its launch).
cluster_prepare() {
	[[ "$ES_STATE_DIR" != *[[:space:]]* ]] ||
		die "ES_STATE_DIR contains whitespace: '$ES_STATE_DIR'" "use a path without spaces (the env file holds unquoted paths)"
	[[ "$ES_CLUSTER_HEAP" =~ ^[0-9]+[mg]$ ]] || die "ES_CLUSTER_HEAP='$ES_CLUSTER_HEAP' is not a heap size" "use e.g. ES_CLUSTER_HEAP=384m"
	require_tool curl "install curl ('apt-get install curl'); it polls the nodes' health"
	pick_java
	mkdir -p "$CLUSTER_DIR"
	fetch_archive
	ES_HOME="$CLUSTER_HOME"
	unpack_archive
	ensure_run_user
	ensure_certs
	if [[ "$(id -u)" == 0 ]]; then
		chown "$ES_RUN_USER:" "$ES_STATE_DIR" "$CLUSTER_DIR"
		chown -R "$ES_RUN_USER:" "$CLUSTER_HOME"
	fi
	ensure_keystore
}

# launch_node I BOOTSTRAP: starts node I in the background (its launcher pid in
# NODE_LAUNCHER[I]); BOOTSTRAP names the initial master nodes of a new cluster, or is empty.
declare -A NODE_LAUNCHER=()
launch_node() {
	local i="$1" bootstrap="$2" dir http transport
	dir="$(node_dir "$i")"
	read -r http transport < <(node_ports "$i")
	mkdir -p "$dir/data" "$dir/logs" "$dir/tmp"
	rm -rf "$dir/config"
	cp -r "$CLUSTER_HOME/config" "$dir/config"
	rm -f "$dir/es.pid"
	: >"$dir/launcher.out"
	if [[ "$(id -u)" == 0 ]]; then
		chown -R "$ES_RUN_USER:" "$dir"
	fi
	local settings=(
		"-Ecluster.name=$CLUSTER_NAME"
		"-Enode.name=node-$i"
		"-Enetwork.host=127.0.0.1"
		"-Ehttp.port=$http"
		"-Etransport.port=$transport"
		"-Ediscovery.seed_hosts=$(seed_hosts)"
		"-Epath.data=$dir/data"
		"-Epath.logs=$dir/logs"
		"${NODE_SETTINGS[@]}"
	)
	[[ -n "$bootstrap" ]] && settings+=("-Ecluster.initial_master_nodes=$bootstrap")
	log "starting node-$i (http 127.0.0.1:$http, transport $transport, heap $ES_CLUSTER_HEAP)"
	(cd "$dir/logs" && exec >>"$dir/launcher.out" 2>&1 && as_es_user env -u JAVA_TOOL_OPTIONS \
		ES_PATH_CONF="$dir/config" ES_JAVA_HOME="$JAVA_DIR" \
		ES_JAVA_OPTS="-Xms$ES_CLUSTER_HEAP -Xmx$ES_CLUSTER_HEAP" ES_TMPDIR="$dir/tmp" \
		"$CLUSTER_HOME/bin/elasticsearch" -d -p "$dir/es.pid" "${settings[@]}") &
	NODE_LAUNCHER[$i]=$!
}

node_log_tail() {
	local dir
	dir="$(node_dir "$1")"
	print_tails 40 "$dir/launcher.out" "$dir/logs/$CLUSTER_NAME.log"
}

# node_health I QUERY: asks node I itself for the cluster health with QUERY.
node_health() {
	local http
	read -r http _ < <(node_ports "$1")
	es_curl "https://127.0.0.1:$http" "$CERT_DIR/ca.crt" "$PASSWORD" "/_cluster/health?$2" -o /dev/null 2>/dev/null
}

# wait_nodes_joined T0 QUERY I...: waits until each node I answers the cluster health with
# QUERY (so it has joined a cluster with an elected master), failing with the node's log when a
# launcher fails or ES_CLUSTER_START_TIMEOUT passes.
wait_nodes_joined() {
	local t0="$1" query="$2" i rc pending
	shift 2
	local -A done_=()
	while :; do
		pending=0
		for i in "$@"; do
			[[ -n "${done_[$i]:-}" ]] && continue
			if node_health "$i" "$query&timeout=2s"; then
				done_[$i]=1
				log "node-$i answers ($(($(date +%s) - t0))s after launch)"
				continue
			fi
			pending=1
			if ! kill -0 "${NODE_LAUNCHER[$i]}" 2>/dev/null; then
				rc=0
				wait "${NODE_LAUNCHER[$i]}" 2>/dev/null || rc=$?
				if [[ "$rc" != 0 ]]; then
					node_log_tail "$i"
					die "node-$i: bin/elasticsearch exited with status $rc during startup (its log is above)" \
						"read the log above; stop what is left with '$0 cluster-stop'"
				fi
			fi
		done
		((pending)) || return 0
		if (($(date +%s) - t0 >= ES_CLUSTER_START_TIMEOUT)); then
			for i in "$@"; do [[ -n "${done_[$i]:-}" ]] || node_log_tail "$i"; done
			die "nodes did not join within ${ES_CLUSTER_START_TIMEOUT}s (the logs are above)" \
				"stop what is left with '$0 cluster-stop'; a slow machine may need ES_CLUSTER_START_TIMEOUT=600"
		fi
		sleep 1
	done
}

write_cluster_env() {
	local n
	n="$(wc -l <"$CLUSTER_NODES_FILE")"
	(
		umask 077
		cat >"$CLUSTER_ENV_FILE.tmp" <<EOF
ES_CLUSTER_ENDPOINTS=$(cluster_endpoints)
ES_CLUSTER_NODES=$n
ES_CLUSTER_USER=elastic
ES_CLUSTER_PASSWORD=$PASSWORD
ES_CLUSTER_CA_CERT=$CERT_DIR/ca.crt
ES_CLUSTER_VERSION=$ES_VERSION
ES_CLUSTER_STATE_DIR=$ES_STATE_DIR
EOF
	)
	mv "$CLUSTER_ENV_FILE.tmp" "$CLUSTER_ENV_FILE"
}

cluster_running() {
	local i
	for i in $(node_indexes); do
		cluster_node_pid "$i" >/dev/null && return 0
	done
	return 1
}

# cluster_start_exit: on a failed cluster-start, stops the nodes it launched.
CLUSTER_STARTED_OK=0
cluster_start_exit() {
	local rc=$?
	if [[ "$CLUSTER_STARTED_OK" != 1 ]]; then
		log "cluster-start failed; stopping the nodes it launched"
		local i
		for i in "${!NODE_LAUNCHER[@]}"; do
			pkill -TERM -P "${NODE_LAUNCHER[$i]}" 2>/dev/null || true
			kill -TERM "${NODE_LAUNCHER[$i]}" 2>/dev/null || true
		done
		cmd_cluster_stop || true
		# A server started before its pid file was written has no pid file to be found by.
		local round pid
		for round in 1 2; do
			for i in "${!NODE_LAUNCHER[@]}"; do
				for pid in $(node_server_pids "$i"); do
					kill_pid "$pid" 30 || true
				done
			done
			((round == 2)) || sleep 2
		done
	fi
	exit "$rc"
}

# node_server_pids I: pids of the processes whose command line names node I's temporary
# folder (its server JVM), found without the pid file.
node_server_pids() { pids_with_arg "-Djava.io.tmpdir=$(node_dir "$1")/tmp"; }

cmd_cluster_start() {
	local n="${1:-3}" i
	[[ "$n" =~ ^[1-9][0-9]?$ ]] || die "'$n' is not a number of nodes" "usage: $0 cluster-start [N], N from 1 to 99"
	if cluster_running; then
		die "the cluster is already running (nodes: $(node_indexes | tr '\n' ' '))" \
			"stop it with '$0 cluster-stop' first (cluster-start begins with empty data)"
	fi
	cluster_prepare
	trap 'exit 130' INT TERM
	# A new cluster each time: empty data folders, new ports.
	rm -rf "$CLUSTER_DIR"/node-*
	: >"$CLUSTER_NODES_FILE"
	local used=() http transport bootstrap=""
	for ((i = 1; i <= n; i++)); do
		http="$(free_port)" || die "no free TCP port on 127.0.0.1" "free some ports (see 'ss -ltn')"
		transport="$(free_port "$http")" || die "no free TCP port on 127.0.0.1" "free some ports (see 'ss -ltn')"
		if [[ " ${used[*]} " == *" $http "* || " ${used[*]} " == *" $transport "* ]]; then
			((i--))
			continue
		fi
		used+=("$http" "$transport")
		printf '%s %s %s\n' "$i" "$http" "$transport" >>"$CLUSTER_NODES_FILE"
		bootstrap+="${bootstrap:+,}node-$i"
	done
	local t0
	t0="$(date +%s)"
	trap cluster_start_exit EXIT
	for ((i = 1; i <= n; i++)); do
		launch_node "$i" "$bootstrap"
	done
	# shellcheck disable=SC2046 # the indexes are numbers
	wait_nodes_joined "$t0" "wait_for_nodes=$n&wait_for_status=green" $(node_indexes)
	write_cluster_env
	CLUSTER_STARTED_OK=1
	log "cluster of $n nodes green $(($(date +%s) - t0))s after launch; env file: $CLUSTER_ENV_FILE"
	cmd_cluster_mem >&2
	cat "$CLUSTER_ENV_FILE"
}

# stop_node_pid I SIGNAL WAIT: signals node I's server and waits for it to exit.
stop_node_pid() {
	local i="$1" pid
	pid="$(cluster_node_pid "$i")" || {
		log "node-$i is not running"
		return 0
	}
	if [[ "$2" == KILL ]]; then
		kill -KILL "$pid" 2>/dev/null || true
		local k
		for ((k = 0; k < 40; k++)); do
			[[ -d "/proc/$pid" ]] || break
			sleep 0.25
		done
	else
		kill_pid "$pid" "$3" || die "pid $pid of node-$i did not exit even after SIGKILL" "check 'ps -o pid,stat,cmd -p $pid'"
	fi
	log "node-$i (pid $pid) stopped with SIG$2"
}

cmd_cluster_stop() {
	local i pids=()
	for i in $(node_indexes); do
		stop_node_pid "$i" TERM 60 &
		pids+=($!)
	done
	local rc=0 p
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	rm -f "$CLUSTER_ENV_FILE"
	return "$rc"
}

cmd_cluster_env() {
	if cluster_running && [[ -s "$CLUSTER_ENV_FILE" ]]; then
		cat "$CLUSTER_ENV_FILE"
		return 0
	fi
	die "no cluster is running for $ES_STATE_DIR" "start one with '$0 cluster-start'"
}

cmd_cluster_mem() {
	local i pid rss
	for i in $(node_indexes); do
		if pid="$(cluster_node_pid "$i")"; then
			rss="$(awk '/^VmRSS:/ { printf "%d MiB", $2 / 1024 }' "/proc/$pid/status")"
			printf 'node-%s pid %s rss %s\n' "$i" "$pid" "$rss"
		else
			printf 'node-%s not running\n' "$i"
		fi
	done
}

cmd_node_kill() {
	check_index "${1:-}"
	stop_node_pid "$1" KILL 0
}

cmd_node_stop() {
	check_index "${1:-}"
	stop_node_pid "$1" TERM 60
}

# start_existing_node I: starts node I (known to the nodes file) and waits until it has joined.
start_existing_node() {
	local i="$1" t0
	if cluster_node_pid "$i" >/dev/null; then
		log "node-$i is already running"
		return 0
	fi
	PASSWORD="$(cat "$PASSWORD_FILE")"
	pick_java
	t0="$(date +%s)"
	launch_node "$i" ""
	wait_nodes_joined "$t0" "wait_for_nodes=ge(1)&local=false" "$i"
	log "node-$i joined $(($(date +%s) - t0))s after launch"
}

cmd_node_start() {
	check_index "${1:-}"
	[[ -s "$PASSWORD_FILE" && -x "$CLUSTER_HOME/bin/elasticsearch" ]] ||
		die "the cluster was never started in $ES_STATE_DIR" "start it with '$0 cluster-start'"
	start_existing_node "$1"
}

cmd_node_add() {
	cluster_running || die "no cluster is running for $ES_STATE_DIR" "start one with '$0 cluster-start'"
	local i http transport
	i=$(($(node_indexes | sort -n | tail -n 1) + 1))
	http="$(free_port)" || die "no free TCP port on 127.0.0.1" "free some ports (see 'ss -ltn')"
	transport="$(free_port "$http")" || die "no free TCP port on 127.0.0.1" "free some ports (see 'ss -ltn')"
	printf '%s %s %s\n' "$i" "$http" "$transport" >>"$CLUSTER_NODES_FILE"
	start_existing_node "$i"
	PASSWORD="$(cat "$PASSWORD_FILE")"
	write_cluster_env
	printf 'https://127.0.0.1:%s\n' "$http"
}
