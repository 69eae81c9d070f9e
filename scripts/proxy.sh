#!/usr/bin/env bash
# Runs two forward proxies (tinyproxy, from Debian's tinyproxy-bin package) on loopback
# between the exporter and the local Elasticsearch node, for the integration tests
# (integrationtest/proxy_test.go, docs/real-elasticsearch.md):
#
#   the proxy            allows CONNECT to the node's port only
#   the refusing proxy   allows CONNECT to no port the node uses: it answers 403 to a
#                        CONNECT to the node
#
#   scripts/proxy.sh start   install tinyproxy when missing, write the configs, start both (or reuse them)
#   scripts/proxy.sh stop    stop both
#   scripts/proxy.sh env     print the env file of the running proxies
#
# The node's port is read from ES_ENDPOINT, else from the env file of scripts/es.sh.
# State (configs, pid files, logs, env file) is in PROXY_STATE_DIR, default <repo>/.proxy.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$SCRIPT_DIR")"
PROXY_STATE_DIR="${PROXY_STATE_DIR:-$REPO_DIR/.proxy}"
[[ "$PROXY_STATE_DIR" == /* ]] || PROXY_STATE_DIR="$PWD/$PROXY_STATE_DIR"
PROXY_STATE_DIR="${PROXY_STATE_DIR%/}"
ES_ENV_FILE="${ES_STATE_DIR:-$REPO_DIR/.es}/env"
ENV_FILE="$PROXY_STATE_DIR/env"
START_TIMEOUT=20
# The user the proxies run as when this script runs as root.
PROXY_RUN_USER=nobody

PROG=proxy.sh
. "$SCRIPT_DIR/lib.sh"

# ensure_tinyproxy: installs Debian's tinyproxy-bin (the executable only: no service is
# started) when tinyproxy is missing.
ensure_tinyproxy() {
	command -v tinyproxy >/dev/null 2>&1 && return 0
	command -v apt-get >/dev/null 2>&1 ||
		die "tinyproxy is not installed and apt-get is missing" "install tinyproxy with the system's package manager"
	local sudo=()
	if [[ "$(id -u)" != 0 ]]; then
		command -v sudo >/dev/null 2>&1 ||
			die "tinyproxy is not installed, and installing it needs root" "run 'apt-get install tinyproxy-bin' as root"
		sudo=(sudo)
	fi
	log "installing tinyproxy-bin with apt-get"
	local out
	if ! out="$("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tinyproxy-bin 2>&1)"; then
		log "apt-get install failed; updating the package lists and trying again"
		"${sudo[@]}" apt-get update -qq >/dev/null 2>&1 || true
		out="$("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tinyproxy-bin 2>&1)" || {
			printf '%s\n' "$out" | tail -n 20 >&2
			die "apt-get install tinyproxy-bin failed (its last output is above)" \
				"check that Debian's package repositories are reachable ('apt-get update')"
		}
	fi
	command -v tinyproxy >/dev/null 2>&1 || die "tinyproxy-bin was installed but tinyproxy is not on PATH" "check 'dpkg -L tinyproxy-bin'"
}

# node_port: the port of the node, from ES_ENDPOINT or the env file of scripts/es.sh.
node_port() {
	local endpoint="${ES_ENDPOINT:-}"
	if [[ -z "$endpoint" && -r "$ES_ENV_FILE" ]]; then
		endpoint="$(sed -n 's/^ES_ENDPOINT=//p' "$ES_ENV_FILE" | tail -n 1)"
	fi
	[[ -n "$endpoint" ]] || die "no Elasticsearch node is known (ES_ENDPOINT is empty and $ES_ENV_FILE is missing)" \
		"start one with 'scripts/es.sh start', or set ES_ENDPOINT"
	local hostport="${endpoint#*://}"
	hostport="${hostport%%/*}"
	local port="${hostport##*:}"
	if [[ "$port" == "$hostport" || ! "$port" =~ ^[0-9]+$ ]]; then
		case "$endpoint" in
		https://*) port=443 ;;
		*) port=80 ;;
		esac
	fi
	printf '%s' "$port"
}

free_port() {
	python3 -c 'import socket
s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# pid_is_proxy PID CONF: true when PID is alive and is tinyproxy run with CONF.
pid_is_proxy() {
	local pid="$1" conf="$2"
	[[ "$pid" =~ ^[0-9]+$ && -r "/proc/$pid/cmdline" ]] || return 1
	{ tr '\0' '\n' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qxF -- "$conf"
}

read_pid() {
	[[ -s "$1" ]] || return 1
	tr -dc '0-9' <"$1"
}

# running NAME: true when the proxy NAME of the state dir runs.
running() {
	local pid
	pid="$(read_pid "$PROXY_STATE_DIR/$1.pid")" || return 1
	pid_is_proxy "$pid" "$PROXY_STATE_DIR/$1.conf"
}

# write_config NAME PORT CONNECT_PORT: the config of proxy NAME, listening on 127.0.0.1:PORT,
# allowing clients from loopback and CONNECT to CONNECT_PORT only.
write_config() {
	local name="$1" port="$2" connect_port="$3" user=""
	if [[ "$(id -u)" == 0 ]]; then
		user="User $PROXY_RUN_USER
Group $(id -gn "$PROXY_RUN_USER")"
	fi
	cat >"$PROXY_STATE_DIR/$name.conf" <<EOF
# Written by scripts/proxy.sh start; rewritten at each start.
Port $port
Listen 127.0.0.1
Timeout 60
MaxClients 50
LogFile "$PROXY_STATE_DIR/$name.log"
LogLevel Info
Allow 127.0.0.1
ConnectPort $connect_port
DisableViaHeader Yes
$user
EOF
}

# launch NAME PORT: starts proxy NAME in the foreground mode of tinyproxy (-d), in its own
# session, and waits until it accepts connections.
launch() {
	local name="$1" port="$2" conf="$PROXY_STATE_DIR/$1.conf" log_file="$PROXY_STATE_DIR/$1.log"
	: >"$log_file"
	# Run as root, tinyproxy opens its log file after it switched to the user of the config.
	if [[ "$(id -u)" == 0 ]]; then chown "$PROXY_RUN_USER" "$log_file"; fi
	setsid tinyproxy -d -c "$conf" >>"$PROXY_STATE_DIR/$name.out" 2>&1 </dev/null &
	local pid=$! i
	printf '%s\n' "$pid" >"$PROXY_STATE_DIR/$name.pid"
	for ((i = 0; i < START_TIMEOUT * 10; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			tail -n 20 "$PROXY_STATE_DIR/$name.out" "$log_file" >&2 || true
			die "tinyproxy ($name) exited during start (its output is above)" \
				"check $conf; as root the proxy runs as '$PROXY_RUN_USER', who must be able to enter $PROXY_STATE_DIR"
		fi
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			log "$name proxy runs (pid $pid) on 127.0.0.1:$port; log: $log_file"
			return 0
		fi
		sleep 0.1
	done
	die "tinyproxy ($name) does not accept connections on 127.0.0.1:$port after ${START_TIMEOUT}s" "see $log_file"
}

stop_one() {
	local name="$1" pid i
	if pid="$(read_pid "$PROXY_STATE_DIR/$name.pid")" && pid_is_proxy "$pid" "$PROXY_STATE_DIR/$name.conf"; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			[[ -d "/proc/$pid" ]] || break
			sleep 0.1
		done
		if [[ -d "/proc/$pid" ]]; then kill -KILL "$pid" 2>/dev/null || true; fi
		log "stopped the $name proxy (pid $pid)"
	fi
	rm -f "$PROXY_STATE_DIR/$name.pid"
}

cmd_start() {
	local port
	port="$(node_port)"
	if running open && running refusing && [[ -s "$ENV_FILE" ]] &&
		grep -qxF "PROXY_CONNECT_PORT=$port" "$ENV_FILE"; then
		log "proxies already running; reusing them"
		cat "$ENV_FILE"
		return 0
	fi
	stop_one open
	stop_one refusing
	ensure_tinyproxy
	command -v python3 >/dev/null 2>&1 || die "python3 is missing; it picks free ports" "install python3"
	mkdir -p "$PROXY_STATE_DIR"
	if [[ "$(id -u)" == 0 ]]; then chmod 755 "$PROXY_STATE_DIR"; fi
	local open_port refusing_port refused_port
	open_port="$(free_port)"
	refusing_port="$(free_port)"
	# The refusing proxy allows CONNECT to one port only, one that is not the node's.
	refused_port=$((port == 443 ? 8443 : 443))
	write_config open "$open_port" "$port"
	write_config refusing "$refusing_port" "$refused_port"
	launch open "$open_port"
	launch refusing "$refusing_port"
	cat >"$ENV_FILE.tmp" <<EOF
PROXY_URL=http://127.0.0.1:$open_port
PROXY_LOG=$PROXY_STATE_DIR/open.log
PROXY_REFUSING_URL=http://127.0.0.1:$refusing_port
PROXY_REFUSING_LOG=$PROXY_STATE_DIR/refusing.log
PROXY_CONNECT_PORT=$port
EOF
	mv "$ENV_FILE.tmp" "$ENV_FILE"
	cat "$ENV_FILE"
}

cmd_stop() {
	stop_one open
	stop_one refusing
	rm -f "$ENV_FILE"
}

cmd_env() {
	if running open && running refusing && [[ -s "$ENV_FILE" ]]; then
		cat "$ENV_FILE"
		return 0
	fi
	die "the proxies of $PROXY_STATE_DIR do not run" "start them with '$0 start'"
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
env) cmd_env ;;
*)
	echo "usage: $0 start|stop|env   (PROXY_STATE_DIR, default <repo>/.proxy)" >&2
	exit 2
	;;
esac
