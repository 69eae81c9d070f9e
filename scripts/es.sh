#!/usr/bin/env bash
# Runs one local Elasticsearch node (security and HTTPS on) for the
# integration tests and the demo.
#
#   scripts/es.sh start   fetch, unpack, configure and start the node (or reuse a running one)
#   scripts/es.sh stop    stop the node started by start
#   scripts/es.sh env     print the env file of the running node
#   scripts/es.sh logs    print the tail of the server log (-f to follow, N for N lines)
#
# With ES_REALMS=1 the same commands run a separate node (state in <repo>/.es-realms, its own
# ports) under a trial licence with PKI and JWT realms (scripts/es-realms.sh).
#
# and a cluster of several nodes on loopback (scripts/es-cluster.sh, docs/cluster.md):
#
#   scripts/es.sh cluster-start [N]   start N nodes (default 3) with empty data, wait for green
#   scripts/es.sh cluster-stop        stop every node of the cluster
#   scripts/es.sh cluster-env         print the env file of the running cluster
#   scripts/es.sh cluster-mem         print each node's pid and resident memory
#   scripts/es.sh node-kill I         SIGKILL node I
#   scripts/es.sh node-stop I         stop node I (SIGTERM)
#   scripts/es.sh node-start I        start node I again with its data; it rejoins
#   scripts/es.sh node-add            start one more node that joins the running cluster
#
# The server is the integ-test-zip distribution from Maven Central: it has no
# bundled JDK, so a JDK must be on the machine (see ES_JAVA_HOME below).
# docs/real-elasticsearch.md describes what the archive can and cannot do.
set -euo pipefail

# Newest 9.x and 8.x integ-test-zip archives found to be served by Maven Central when they were
# pinned (8.19.22 and 8.19.23 were not). ES_VERSION picks the version: a full version, or 9 or 8
# for these pins; the default is the 9.x one.
ES_VERSION_9="9.5.4"
ES_VERSION_8="8.19.21"
ES_VERSION="${ES_VERSION:-$ES_VERSION_9}"
case "$ES_VERSION" in
9) ES_VERSION="$ES_VERSION_9" ;;
8) ES_VERSION="$ES_VERSION_8" ;;
esac

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$SCRIPT_DIR")"
# The default version's state is in <repo>/.es, any other's in <repo>/.es-VERSION, so that
# nodes of two versions can run side by side; the realms node's is in <repo>/.es-realms.
ES_REALMS="${ES_REALMS:-0}"
if [[ "$ES_REALMS" == 1 ]]; then
	ES_STATE_DIR="${ES_STATE_DIR:-$REPO_DIR/.es-realms}"
elif [[ "$ES_VERSION" == "$ES_VERSION_9" ]]; then
	ES_STATE_DIR="${ES_STATE_DIR:-$REPO_DIR/.es}"
else
	ES_STATE_DIR="${ES_STATE_DIR:-$REPO_DIR/.es-$ES_VERSION}"
fi
[[ "$ES_STATE_DIR" == /* ]] || ES_STATE_DIR="$PWD/$ES_STATE_DIR"
ES_STATE_DIR="${ES_STATE_DIR%/}"
ES_JAVA_HOME_DEFAULT="/usr/lib/jvm/temurin-25-jdk-amd64"
ES_JAVA17_HOME="/usr/lib/jvm/java-17-openjdk-amd64"
ES_RUN_USER="${ES_RUN_USER:-otelcoles}"
ES_HEAP="${ES_HEAP:-1g}"
ES_START_TIMEOUT="${ES_START_TIMEOUT:-180}"
ES_HTTP_PORT="${ES_HTTP_PORT:-}"
ES_TRANSPORT_PORT="${ES_TRANSPORT_PORT:-}"
ES_CLUSTER_NAME="otelcol-es"
M2_REPO="${MAVEN_REPO_LOCAL:-${HOME:-/root}/.m2/repository}"

ES_GROUP="org.elasticsearch.distribution.integ-test-zip"
ES_ARTIFACT="$ES_GROUP:elasticsearch:$ES_VERSION:zip"
ES_ZIP="$M2_REPO/${ES_GROUP//.//}/elasticsearch/$ES_VERSION/elasticsearch-$ES_VERSION.zip"
ES_HOME="$ES_STATE_DIR/elasticsearch-$ES_VERSION"
PID_FILE="$ES_STATE_DIR/es.pid"
ENV_FILE="$ES_STATE_DIR/env"
PASSWORD_FILE="$ES_STATE_DIR/elastic-password"
CERT_DIR="$ES_STATE_DIR/certs"
DATA_DIR="$ES_STATE_DIR/data-$ES_VERSION"
LOG_DIR="$ES_STATE_DIR/logs"
TMP_DIR="$ES_STATE_DIR/tmp"
SERVER_LOG="$LOG_DIR/$ES_CLUSTER_NAME.log"
LAUNCH_LOG="$LOG_DIR/launcher.out"

# Settings of every node, the single one and the cluster's: no disk threshold (a test machine's
# disk may be full enough to block writes), index deletion by pattern, and security with HTTPS
# on the certificates of ensure_certs.
NODE_SETTINGS=(
	"-Ecluster.routing.allocation.disk.threshold_enabled=false"
	"-Eaction.destructive_requires_name=false"
	"-Expack.security.enabled=true"
	"-Expack.security.http.ssl.enabled=true"
	"-Expack.security.http.ssl.key=certs/node.key"
	"-Expack.security.http.ssl.certificate=certs/node-chain.crt"
	"-Expack.security.http.ssl.certificate_authorities=certs/ca.crt"
)

LAUNCHED=0
STARTED_OK=0

PROG=es.sh
. "$SCRIPT_DIR/lib.sh"
if [[ "$ES_REALMS" == 1 ]]; then
	# shellcheck source=scripts/es-realms.sh
	. "$SCRIPT_DIR/es-realms.sh"
	realms_node_settings
fi

major_of() { printf '%s' "${1%%.*}"; }

# ---------------------------------------------------------------- processes

# pid_is_node PID: true when PID is alive and is the server of this ES_HOME
# (guards against a stale pid file whose pid was reused).
pid_is_node() {
	local pid="$1"
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	[[ -r "/proc/$pid/cmdline" ]] || return 1
	{ tr '\0' '\n' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qxF -- "-Des.path.home=$ES_HOME"
}

read_pid() {
	[[ -s "$PID_FILE" ]] || return 1
	local pid
	pid="$(tr -dc '0-9' <"$PID_FILE")"
	[[ -n "$pid" ]] || return 1
	printf '%s' "$pid"
}

# pids_with_arg ARG: pids of the processes (other than this shell) whose command line has the
# argument ARG, exactly.
pids_with_arg() {
	local d pid
	for d in /proc/[0-9]*; do
		pid="${d#/proc/}"
		[[ "$pid" == "$$" ]] && continue
		if { tr '\0' '\n' <"$d/cmdline"; } 2>/dev/null | grep -qxF -- "$1"; then
			printf '%s\n' "$pid"
		fi
	done
}

# node_pids: pids of processes that run this ES_HOME (the launcher and the server).
node_pids() { pids_with_arg "-Des.path.home=$ES_HOME"; }

# kill_pid PID WAIT: SIGTERM, wait up to WAIT seconds, then SIGKILL.
kill_pid() {
	local pid="$1" wait_s="$2" i
	[[ -d "/proc/$pid" ]] || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < wait_s * 2; i++)); do
		[[ -d "/proc/$pid" ]] || return 0
		sleep 0.5
	done
	log "pid $pid still running after ${wait_s}s, sending SIGKILL"
	kill -KILL "$pid" 2>/dev/null || true
	for ((i = 0; i < 20; i++)); do
		[[ -d "/proc/$pid" ]] || return 0
		sleep 0.5
	done
	return 1
}

# kill_started_node: used on a failed start; never leaves a server behind.
kill_started_node() {
	local pid pids
	if pid="$(read_pid)" && pid_is_node "$pid"; then
		kill_pid "$pid" 30 || true
	fi
	pids="$(node_pids)"
	for pid in $pids; do
		kill_pid "$pid" 10 || true
	done
	rm -f "$PID_FILE"
}

kill_launcher() {
	if [[ -n "${LAUNCHER_PID:-}" ]] && kill -0 "$LAUNCHER_PID" 2>/dev/null; then
		pkill -TERM -P "$LAUNCHER_PID" 2>/dev/null || true
		kill -TERM "$LAUNCHER_PID" 2>/dev/null || true
	fi
}

on_exit() {
	local rc=$?
	if [[ "$LAUNCHED" == 1 && "$STARTED_OK" != 1 ]]; then
		log "start failed; stopping the server process it launched"
		kill_launcher
		kill_started_node
	fi
	exit "$rc"
}

# ---------------------------------------------------------------- helpers

as_es_user() {
	if [[ "$(id -u)" == 0 ]]; then
		runuser -u "$ES_RUN_USER" -- "$@"
	else
		"$@"
	fi
}

env_value() {
	[[ -r "$ENV_FILE" ]] || return 1
	sed -n "s/^$1=//p" "$ENV_FILE" | tail -n 1
}

# es_curl ENDPOINT CA PASSWORD PATH [curl args...]
es_curl() {
	local endpoint="$1" ca="$2" password="$3" path="$4"
	shift 4
	local tls=()
	[[ -n "$ca" ]] && tls=(--cacert "$ca")
	curl -sS --fail --max-time 20 "${tls[@]}" -u "elastic:$password" "$@" "$endpoint$path"
}

healthy() {
	local endpoint="$1" ca="$2" password="$3"
	es_curl "$endpoint" "$ca" "$password" \
		"/_cluster/health?wait_for_status=yellow&timeout=5s" -o /dev/null 2>/dev/null
}

# running_healthy: pid alive, env file present, and health answers.
running_healthy() {
	local pid endpoint ca password
	pid="$(read_pid)" || return 1
	pid_is_node "$pid" || return 1
	endpoint="$(env_value ES_ENDPOINT)" || return 1
	ca="$(env_value ES_CA_CERT)" || return 1
	password="$(env_value ES_PASSWORD)" || return 1
	[[ -n "$endpoint" && -n "$password" ]] || return 1
	healthy "$endpoint" "$ca" "$password"
}

require_tool() {
	local tool="$1" fix="$2"
	command -v "$tool" >/dev/null 2>&1 || die "'$tool' is not installed" "$fix"
}

java_feature_version() {
	local jh="$1" v=""
	if [[ -r "$jh/release" ]]; then
		v="$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$jh/release")"
	fi
	if [[ -z "$v" ]]; then
		v="$("$jh/bin/java" -XshowSettings:properties -version 2>&1 |
			sed -n 's/^ *java\.specification\.version = //p')" || true
	fi
	v="${v#1.}"
	printf '%s' "${v%%[.+-]*}"
}

# pick_java: sets JAVA_DIR to a JDK that the chosen ES version can run on: Java 21 or newer for
# 9.x (Temurin 25 first), Java 17 or newer for 8.x (OpenJDK 17 first, the JDK the 8.x pass of
# the integration suite runs it on).
pick_java() {
	local need candidates=() jh v tried=""
	if (($(major_of "$ES_VERSION") >= 9)); then
		need=21
		candidates+=("${ES_JAVA_HOME:-$ES_JAVA_HOME_DEFAULT}")
	else
		need=17
		candidates+=("${ES_JAVA_HOME:-$ES_JAVA17_HOME}")
	fi
	[[ -n "${JAVA_HOME:-}" ]] && candidates+=("$JAVA_HOME")
	candidates+=("$ES_JAVA17_HOME" "$ES_JAVA_HOME_DEFAULT")
	for jh in "${candidates[@]}"; do
		[[ "$tried" == *" $jh ("* ]] && continue
		if [[ ! -x "$jh/bin/java" ]]; then
			tried+=" $jh (no bin/java);"
			continue
		fi
		v="$(java_feature_version "$jh")"
		if [[ "$v" =~ ^[0-9]+$ ]] && ((v >= need)); then
			JAVA_DIR="$jh"
			return 0
		fi
		tried+=" $jh (Java ${v:-unknown});"
	done
	die "no usable JDK: Elasticsearch $ES_VERSION needs Java $need or newer; tried:$tried" \
		"install a JDK $need+ (e.g. Temurin 25 at $ES_JAVA_HOME_DEFAULT, or 'apt-get install openjdk-21-jdk-headless' where served) and point ES_JAVA_HOME at it" \
		"or use the 8.x version that runs on Java 17: ES_VERSION=8 ($ES_VERSION_8)"
}

# ---------------------------------------------------------------- start steps

fetch_archive() {
	if [[ -s "$ES_ZIP" ]]; then
		log "using $ES_ZIP"
		return 0
	fi
	require_tool mvn "install Maven ('apt-get install maven'); it fetches $ES_ARTIFACT from Maven Central"
	local attempt out rc
	for attempt in 1 2 3; do
		log "downloading $ES_ARTIFACT (attempt $attempt/3)"
		rc=0
		out="$(mvn -B -q -U dependency:get -Dtransitive=false "-Dmaven.repo.local=$M2_REPO" \
			"-Dartifact=$ES_ARTIFACT" 2>&1)" || rc=$?
		if [[ "$rc" == 0 && -s "$ES_ZIP" ]]; then
			return 0
		fi
		if ((attempt < 3)); then sleep $((attempt * 5)); fi
	done
	printf '%s\n' "$out" | grep -v '^\s*$' | tail -n 30 >&2
	die "download of $ES_ARTIFACT failed 3 times (Maven's last output is above)" \
		"check that Maven Central is reachable (mvn -B dependency:get -Dartifact=junit:junit:4.13.2)" \
		"check that this version is served: the integ-test-zip archives are served only for some releases; ES_VERSION=$ES_VERSION_9 and ES_VERSION=$ES_VERSION_8 are known to be served"
}

unpack_archive() {
	if [[ -x "$ES_HOME/bin/elasticsearch" ]]; then
		log "reusing unpacked $ES_HOME"
		return 0
	fi
	require_tool unzip "install unzip ('apt-get install unzip')"
	local work="$ES_STATE_DIR/.unpack.$$"
	rm -rf "$work"
	mkdir -p "$work"
	unzip -q "$ES_ZIP" -d "$work" ||
		die "cannot unpack $ES_ZIP (corrupt download?)" "remove it and run start again: rm -f '$ES_ZIP'"
	[[ -x "$work/elasticsearch-$ES_VERSION/bin/elasticsearch" ]] ||
		die "$ES_ZIP does not contain elasticsearch-$ES_VERSION/bin/elasticsearch" "remove it and run start again: rm -f '$ES_ZIP'"
	mv "$work/elasticsearch-$ES_VERSION" "$ES_HOME"
	rm -rf "$work"
}

ensure_run_user() {
	if [[ "$(id -u)" != 0 ]]; then
		ES_RUN_USER="$(id -un)"
		return 0
	fi
	require_tool runuser "install util-linux (runuser), needed to start Elasticsearch as a non-root user"
	if id -u "$ES_RUN_USER" >/dev/null 2>&1; then
		return 0
	fi
	local out
	if ! command -v useradd >/dev/null 2>&1; then
		die "Elasticsearch refuses to run as root and 'useradd' is missing, so user '$ES_RUN_USER' cannot be created" \
			"install passwd ('apt-get install passwd') or create the user yourself, or set ES_RUN_USER to an existing non-root user" \
			"or run this script as a non-root user: it then starts the node as that user"
	fi
	if ! out="$(useradd --system --no-create-home --shell /usr/sbin/nologin "$ES_RUN_USER" 2>&1)"; then
		die "cannot create system user '$ES_RUN_USER' (Elasticsearch refuses to run as root): $out" \
			"create it once by a user who can ('useradd --system --no-create-home $ES_RUN_USER'), or set ES_RUN_USER to an existing non-root user" \
			"or run this script as a non-root user: it then starts the node as that user"
	fi
}

make_certs_openssl() {
	local dir="$1"
	openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=otelcol-es test CA" \
		-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
		-keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null &&
		openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
			-keyout "$dir/node.key" -out "$dir/node.csr" 2>/dev/null &&
		printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" \
			"basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
			"extendedKeyUsage=serverAuth" >"$dir/node.ext" &&
		openssl x509 -req -in "$dir/node.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
			-days 3650 -extfile "$dir/node.ext" -out "$dir/node.crt" 2>/dev/null
}

make_certs_certutil() {
	local dir="$1" work="$ES_STATE_DIR/.certutil.$$"
	rm -rf "$work"
	mkdir -p "$work"
	chmod 700 "$work"
	ES_JAVA_HOME="$JAVA_DIR" "$ES_HOME/bin/elasticsearch-certutil" ca --pem --days 3650 -s \
		--out "$work/ca.zip" >/dev/null &&
		unzip -q -o "$work/ca.zip" -d "$work" &&
		ES_JAVA_HOME="$JAVA_DIR" "$ES_HOME/bin/elasticsearch-certutil" cert --pem --days 3650 -s \
			--ca-cert "$work/ca/ca.crt" --ca-key "$work/ca/ca.key" \
			--ip 127.0.0.1 --dns localhost --name node --out "$work/node.zip" >/dev/null &&
		unzip -q -o "$work/node.zip" -d "$work" &&
		cp "$work/ca/ca.crt" "$work/ca/ca.key" "$work/node/node.crt" "$work/node/node.key" "$dir/"
	local rc=$?
	rm -rf "$work"
	return "$rc"
}

# ensure_certs: a self-made CA and a node certificate for 127.0.0.1/localhost,
# made once per state dir (openssl when present, else the archive's certutil).
ensure_certs() {
	if [[ -s "$CERT_DIR/ca.crt" && -s "$CERT_DIR/node.crt" && -s "$CERT_DIR/node.key" ]]; then
		:
	else
		rm -rf "$CERT_DIR"
		mkdir -p "$CERT_DIR"
		chmod 755 "$CERT_DIR"
		local ok=0
		if command -v openssl >/dev/null 2>&1 && make_certs_openssl "$CERT_DIR"; then
			ok=1
		elif make_certs_certutil "$CERT_DIR"; then
			ok=1
		fi
		[[ "$ok" == 1 ]] || die "cannot make the TLS certificates (openssl and bin/elasticsearch-certutil both failed)" \
			"install openssl ('apt-get install openssl') or check that $JAVA_DIR runs $ES_HOME/bin/elasticsearch-certutil"
		rm -f "$CERT_DIR/node.csr" "$CERT_DIR/node.ext" "$CERT_DIR/ca.srl"
		chmod 644 "$CERT_DIR/ca.crt" "$CERT_DIR/node.crt"
		chmod 600 "$CERT_DIR/ca.key" "$CERT_DIR/node.key"
	fi
	# The server reads its TLS files from its config directory. It serves the chain of
	# node-chain.crt, the node's certificate and then the CA's, as the certificates of
	# Elasticsearch's own security auto-configuration do: a client that trusts the CA by its
	# fingerprint (tls::ca_trusted_fingerprint) finds it there.
	mkdir -p "$ES_HOME/config/certs"
	cp "$CERT_DIR/ca.crt" "$CERT_DIR/node.crt" "$CERT_DIR/node.key" "$ES_HOME/config/certs/"
	cat "$CERT_DIR/node.crt" "$CERT_DIR/ca.crt" >"$ES_HOME/config/certs/node-chain.crt"
	chmod 600 "$ES_HOME/config/certs/node.key"
}

port_free() {
	local port="$1"
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import socket,sys
s=socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)' "$port"
	else
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			return 1
		fi
		return 0
	fi
}

# free_port [EXCLUDE]: prints a port that is free on 127.0.0.1.
free_port() {
	local exclude="${1:-}" port i
	if command -v python3 >/dev/null 2>&1; then
		for ((i = 0; i < 20; i++)); do
			port="$(python3 -c 'import socket
s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')" || break
			if [[ "$port" != "$exclude" ]]; then
				printf '%s' "$port"
				return 0
			fi
		done
	fi
	for ((i = 0; i < 200; i++)); do
		port=$((20000 + RANDOM % 40000))
		[[ "$port" == "$exclude" ]] && continue
		if port_free "$port"; then
			printf '%s' "$port"
			return 0
		fi
	done
	return 1
}

pick_ports() {
	if [[ -n "$ES_HTTP_PORT" ]]; then
		port_free "$ES_HTTP_PORT" || die "port $ES_HTTP_PORT (ES_HTTP_PORT) is already in use on 127.0.0.1" \
			"unset ES_HTTP_PORT to pick a free port, or free it (see 'ss -ltnp sport = :$ES_HTTP_PORT')"
		HTTP_PORT="$ES_HTTP_PORT"
	else
		HTTP_PORT="$(free_port)" || die "no free TCP port found on 127.0.0.1 for HTTP" \
			"free some ports (see 'ss -ltn'), or set ES_HTTP_PORT to a free one"
	fi
	if [[ -n "$ES_TRANSPORT_PORT" ]]; then
		if ! port_free "$ES_TRANSPORT_PORT" || [[ "$ES_TRANSPORT_PORT" == "$HTTP_PORT" ]]; then
			die "port $ES_TRANSPORT_PORT (ES_TRANSPORT_PORT) is already in use on 127.0.0.1" \
				"unset ES_TRANSPORT_PORT to pick a free port, or free it (see 'ss -ltnp sport = :$ES_TRANSPORT_PORT')"
		fi
		TRANSPORT_PORT="$ES_TRANSPORT_PORT"
	else
		TRANSPORT_PORT="$(free_port "$HTTP_PORT")" || die "no free TCP port found on 127.0.0.1 for the transport layer" \
			"free some ports (see 'ss -ltn'), or set ES_TRANSPORT_PORT to a free one"
	fi
}

# ensure_keystore: the elastic user's password is the keystore's
# bootstrap.password; it is made once per state dir and kept, so a data
# directory that outlives a restart still accepts it.
ensure_keystore() {
	local fresh=0
	if [[ ! -s "$PASSWORD_FILE" ]]; then
		(umask 077 && head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24 >"$PASSWORD_FILE")
		fresh=1
	fi
	PASSWORD="$(cat "$PASSWORD_FILE")"
	local ks="$ES_HOME/config/elasticsearch.keystore"
	if [[ "$fresh" == 1 || ! -s "$ks" ]]; then
		rm -f "$ks"
		as_es_user env ES_JAVA_HOME="$JAVA_DIR" "$ES_HOME/bin/elasticsearch-keystore" create >/dev/null ||
			die "bin/elasticsearch-keystore create failed" "check that user '$ES_RUN_USER' can write $ES_HOME/config"
		printf '%s' "$PASSWORD" | as_es_user env ES_JAVA_HOME="$JAVA_DIR" \
			"$ES_HOME/bin/elasticsearch-keystore" add -x bootstrap.password >/dev/null ||
			die "bin/elasticsearch-keystore add bootstrap.password failed" "check that user '$ES_RUN_USER' can write $ES_HOME/config"
	fi
}

# ensure_privilege_users: file-realm users for the privilege check of the exporter's start-up
# check (integrationtest/privileges_test.go); the file realm needs no .security index. Each
# user has the role of its name in config/roles.yml (kept between the markers below):
#   otelcoles-all         cluster monitor; auto_configure and create_doc on the exporter's indices
#   otelcoles-nocreatedoc the same without create_doc
#   otelcoles-nomonitor   the same without the cluster privilege monitor
# Their passwords are made once per state dir and printed by 'env' as ES_PRIV_*_PASSWORD.
PRIV_USERS=(otelcoles-all otelcoles-nocreatedoc otelcoles-nomonitor)
ensure_privilege_users() {
	local roles="$ES_HOME/config/roles.yml" begin="# begin otelcoles privilege users" end="# end otelcoles privilege users"
	local names='["logs-*", "metrics-*", "traces-*", "otel-dead-letters"]'
	[[ -f "$roles" ]] && sed -i "/^$begin\$/,/^$end\$/d" "$roles"
	cat >>"$roles" <<EOF
$begin
otelcoles-all:
  cluster: [monitor]
  indices:
    - names: $names
      privileges: [auto_configure, create_doc]
otelcoles-nocreatedoc:
  cluster: [monitor]
  indices:
    - names: $names
      privileges: [auto_configure]
otelcoles-nomonitor:
  indices:
    - names: $names
      privileges: [auto_configure, create_doc]
$end
EOF
	local user file
	for user in "${PRIV_USERS[@]}"; do
		file="$ES_STATE_DIR/$user-password"
		[[ -s "$file" ]] || (umask 077 && head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 20 >"$file")
		as_es_user env ES_JAVA_HOME="$JAVA_DIR" "$ES_HOME/bin/elasticsearch-users" userdel "$user" >/dev/null 2>&1 || true
		as_es_user env ES_JAVA_HOME="$JAVA_DIR" "$ES_HOME/bin/elasticsearch-users" useradd "$user" \
			-p "$(cat "$file")" -r "$user" >/dev/null ||
			die "bin/elasticsearch-users useradd $user failed" "check that user '$ES_RUN_USER' can write $ES_HOME/config"
	done
}

# privilege_users_env: the ES_PRIV_<NAME>_USER and ES_PRIV_<NAME>_PASSWORD lines of the env file.
privilege_users_env() {
	local user key
	for user in "${PRIV_USERS[@]}"; do
		key="$(printf '%s' "${user#otelcoles-}" | tr 'a-z' 'A-Z')"
		printf 'ES_PRIV_%s_USER=%s\nES_PRIV_%s_PASSWORD=%s\n' "$key" "$user" "$key" "$(cat "$ES_STATE_DIR/$user-password")"
	done
}

# print_tails N FILE...: prints the last N lines of each FILE that is not empty, to stderr.
print_tails() {
	local n="$1" f
	shift
	for f in "$@"; do
		if [[ -s "$f" ]]; then
			printf -- '--- last %s lines of %s ---\n' "$n" "$f" >&2
			tail -n "$n" "$f" >&2
		fi
	done
}

print_log_tail() { print_tails 50 "$LAUNCH_LOG" "$SERVER_LOG"; }

startup_fault() {
	local what="$1"
	print_log_tail
	if grep -qs 'Address already in use' "$LAUNCH_LOG" "$SERVER_LOG"; then
		die "$what: port $HTTP_PORT or $TRANSPORT_PORT was taken by another process (see the log above)" \
			"run start again (it picks new free ports), or set ES_HTTP_PORT / ES_TRANSPORT_PORT to free ports"
	fi
	die "$what (the server log is above; full log: $SERVER_LOG)" \
		"read the log above; a setting error names the setting, a JVM error names the JDK ($JAVA_DIR)" \
		"a slow machine may need more time: ES_START_TIMEOUT=300 $0 start"
}

launch() {
	mkdir -p "$DATA_DIR" "$LOG_DIR" "$TMP_DIR"
	: >"$LAUNCH_LOG"
	rm -f "$PID_FILE"
	if [[ "$(id -u)" == 0 ]]; then
		# The pid file is written by the server itself into the state dir.
		chown "$ES_RUN_USER:" "$ES_STATE_DIR"
		chown -R "$ES_RUN_USER:" "$ES_HOME" "$DATA_DIR" "$LOG_DIR" "$TMP_DIR"
		as_es_user test -x "$ES_STATE_DIR" -a -w "$ES_STATE_DIR" ||
			die "user '$ES_RUN_USER' cannot enter or write $ES_STATE_DIR (a parent directory is not world-searchable)" \
				"make the parents searchable (chmod o+x on each), or set ES_STATE_DIR to a directory under /tmp"
	fi
	local settings=(
		"-Ecluster.name=$ES_CLUSTER_NAME"
		"-Enode.name=node-1"
		"-Ediscovery.type=single-node"
		"-Enetwork.host=127.0.0.1"
		"-Ehttp.port=$HTTP_PORT"
		"-Etransport.port=$TRANSPORT_PORT"
		"-Epath.data=$DATA_DIR"
		"-Epath.logs=$LOG_DIR"
		"${NODE_SETTINGS[@]}"
	)
	log "starting Elasticsearch $ES_VERSION as '$ES_RUN_USER' (http 127.0.0.1:$HTTP_PORT, transport $TRANSPORT_PORT)"
	LAUNCHED=1
	LAUNCH_T0="$(date +%s)"
	# With -d the launcher returns once the node has started; it runs in the
	# background so that wait_healthy can enforce ES_START_TIMEOUT meanwhile.
	# It runs from the logs dir: the JVM writes gc.log and crash files into its working directory.
	(cd "$LOG_DIR" && exec >>"$LAUNCH_LOG" 2>&1 && as_es_user env -u ES_PATH_CONF -u JAVA_TOOL_OPTIONS \
		ES_JAVA_HOME="$JAVA_DIR" ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP" ES_TMPDIR="$TMP_DIR" \
		"$ES_HOME/bin/elasticsearch" -d -p "$PID_FILE" "${settings[@]}") &
	LAUNCHER_PID=$!
}

# launcher_status: sets LAUNCHER_RC once the background launcher has exited.
LAUNCHER_RC=""
launcher_status() {
	if [[ -z "$LAUNCHER_RC" ]] && ! kill -0 "$LAUNCHER_PID" 2>/dev/null; then
		LAUNCHER_RC=0
		wait "$LAUNCHER_PID" || LAUNCHER_RC=$?
	fi
}

wait_healthy() {
	local endpoint="$1" deadline pid
	deadline=$((LAUNCH_T0 + ES_START_TIMEOUT))
	while :; do
		launcher_status
		if [[ -n "$LAUNCHER_RC" && "$LAUNCHER_RC" != 0 ]]; then
			startup_fault "bin/elasticsearch exited with status $LAUNCHER_RC during startup"
		fi
		if healthy "$endpoint" "$CERT_DIR/ca.crt" "$PASSWORD"; then
			break
		fi
		if [[ -n "$LAUNCHER_RC" ]] && pid="$(read_pid)" && ! pid_is_node "$pid"; then
			startup_fault "the server process (pid $pid) exited during startup"
		fi
		if (($(date +%s) >= deadline)); then
			kill_launcher
			startup_fault "the node did not reach yellow health within ${ES_START_TIMEOUT}s"
		fi
		sleep 1
	done
	# Healthy: the launcher detaches right after; wait for it briefly.
	local i
	for ((i = 0; i < 30; i++)); do
		launcher_status
		[[ -z "$LAUNCHER_RC" ]] || break
		sleep 1
	done
	if [[ -n "$LAUNCHER_RC" && "$LAUNCHER_RC" != 0 ]]; then
		startup_fault "bin/elasticsearch exited with status $LAUNCHER_RC after the node answered"
	fi
}

# create_api_key ENDPOINT: prints the base64 "encoded" form of a new API key,
# or nothing (with a warning) when the server cannot store API keys. The keys
# live in the .security system index, whose mapping needs the analysis-common
# module; the integ-test-zip archive lacks it, so the 9.x archive answers 400.
create_api_key() {
	local endpoint="$1" body code
	body="$(mktemp)"
	code="$(curl -sS --max-time 30 --cacert "$CERT_DIR/ca.crt" -u "elastic:$PASSWORD" \
		-o "$body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
		-d '{"name":"otelcol-es-tests","metadata":{"purpose":"integration tests"}}' \
		"$endpoint/_security/api_key")" || code="000"
	if [[ "$code" == 200 ]]; then
		sed -n 's/.*"encoded" *: *"\([^"]*\)".*/\1/p' "$body"
	else
		log "warning: no API key (HTTP $code): $(head -c 600 "$body")"
		log "warning: ES_API_KEY stays empty; use basic auth (ES_USER/ES_PASSWORD). See docs/real-elasticsearch.md"
	fi
	rm -f "$body"
}

cmd_start() {
	if running_healthy; then
		log "node already running (pid $(read_pid)); reusing it"
		cat "$ENV_FILE"
		return 0
	fi
	local pid
	if pid="$(read_pid)"; then
		if pid_is_node "$pid"; then
			die "a node started by this script is running (pid $pid) but does not answer health checks" \
				"stop it with '$0 stop' and start again; its log: $0 logs"
		fi
		rm -f "$PID_FILE"
	fi
	if [[ -n "$(node_pids)" ]]; then
		die "a server of $ES_HOME is running without a pid file (pids: $(node_pids | tr '\n' ' '))" \
			"stop those pids (kill PID), then start again"
	fi
	[[ "$ES_STATE_DIR" != *[[:space:]]* ]] ||
		die "ES_STATE_DIR contains whitespace: '$ES_STATE_DIR'" "use a path without spaces (the env file holds unquoted paths)"
	[[ "$ES_HEAP" =~ ^[0-9]+[mg]$ ]] || die "ES_HEAP='$ES_HEAP' is not a heap size" "use e.g. ES_HEAP=1g or ES_HEAP=512m"

	require_tool curl "install curl ('apt-get install curl'); it polls the node's health"
	# Fail early on explicitly requested ports that are taken; pick_ports checks again.
	local p
	for p in "$ES_HTTP_PORT" "$ES_TRANSPORT_PORT"; do
		[[ -z "$p" ]] || port_free "$p" || die "port $p (ES_HTTP_PORT / ES_TRANSPORT_PORT) is already in use on 127.0.0.1" \
			"unset ES_HTTP_PORT / ES_TRANSPORT_PORT to pick free ports, or free it (see 'ss -ltnp sport = :$p')"
	done
	pick_java
	mkdir -p "$ES_STATE_DIR"
	fetch_archive
	unpack_archive
	ensure_run_user
	ensure_certs
	pick_ports

	trap on_exit EXIT
	trap 'exit 130' INT TERM
	[[ "$(id -u)" == 0 ]] && chown -R "$ES_RUN_USER:" "$ES_HOME/config"
	ensure_keystore
	ensure_privilege_users
	[[ "$ES_REALMS" != 1 ]] || ensure_realms
	launch
	local endpoint="https://127.0.0.1:$HTTP_PORT"
	wait_healthy "$endpoint"
	local took=$(($(date +%s) - LAUNCH_T0))
	pid="$(read_pid)" || startup_fault "the server did not write its pid file $PID_FILE"
	local api_key
	api_key="$(create_api_key "$endpoint")"

	(
		umask 077
		cat >"$ENV_FILE.tmp" <<EOF
ES_ENDPOINT=$endpoint
ES_USER=elastic
ES_PASSWORD=$PASSWORD
ES_API_KEY=$api_key
ES_CA_CERT=$CERT_DIR/ca.crt
ES_VERSION=$ES_VERSION
ES_PID=$pid
ES_HOME=$ES_HOME
$(privilege_users_env)
$([[ "$ES_REALMS" != 1 ]] || realms_env)
EOF
	)
	mv "$ENV_FILE.tmp" "$ENV_FILE"
	STARTED_OK=1
	log "node healthy ${took}s after launch (pid $pid); env file: $ENV_FILE"
	cat "$ENV_FILE"
}

cmd_stop() {
	local pid
	if ! pid="$(read_pid)" || ! pid_is_node "$pid"; then
		rm -f "$PID_FILE"
		log "no node running for $ES_HOME; nothing to stop"
		return 0
	fi
	log "stopping pid $pid"
	kill_pid "$pid" 60 || die "pid $pid did not exit even after SIGKILL" "check 'ps -o pid,stat,cmd -p $pid'"
	rm -f "$PID_FILE"
	log "stopped"
}

cmd_env() {
	local pid
	if pid="$(read_pid)" && pid_is_node "$pid" && [[ -s "$ENV_FILE" ]]; then
		cat "$ENV_FILE"
		return 0
	fi
	die "no node is running for $ES_HOME" "start one with '$0 start'"
}

cmd_logs() {
	local follow=() lines=100 arg
	for arg in "$@"; do
		case "$arg" in
		-f) follow=(-F) ;;
		[0-9]*) lines="$arg" ;;
		*) die "unknown logs argument '$arg'" "usage: $0 logs [-f] [LINES]" ;;
		esac
	done
	[[ -e "$SERVER_LOG" ]] || die "no server log at $SERVER_LOG" "start the node first: $0 start"
	tail -n "$lines" "${follow[@]}" "$SERVER_LOG"
}

usage() {
	cat >&2 <<EOF
usage: $0 start|stop|env|logs [-f] [LINES]
       $0 cluster-start [N]|cluster-stop|cluster-env|cluster-mem
       $0 node-kill I|node-stop I|node-start I|node-add
environment: ES_REALMS=1 (the realms node: trial licence, PKI and JWT realms, <repo>/.es-realms),
  ES_VERSION (default $ES_VERSION_9; 9 or 8 for $ES_VERSION_9 or $ES_VERSION_8),
  ES_STATE_DIR (default <repo>/.es for $ES_VERSION_9, <repo>/.es-VERSION for another version),
  ES_JAVA_HOME, ES_HEAP (1g), ES_START_TIMEOUT (180), ES_HTTP_PORT, ES_TRANSPORT_PORT,
  ES_RUN_USER (otelcoles; used when run as root),
  ES_CLUSTER_HEAP (per cluster node, $ES_CLUSTER_HEAP), ES_CLUSTER_START_TIMEOUT ($ES_CLUSTER_START_TIMEOUT)
EOF
}

# shellcheck source=scripts/es-cluster.sh
. "$SCRIPT_DIR/es-cluster.sh"

main() {
	local cmd="${1:-}"
	[[ $# -gt 0 ]] && shift
	case "$cmd" in
	start) cmd_start ;;
	stop) cmd_stop ;;
	env) cmd_env ;;
	logs) cmd_logs "$@" ;;
	cluster-start) cmd_cluster_start "$@" ;;
	cluster-stop) cmd_cluster_stop ;;
	cluster-env) cmd_cluster_env ;;
	cluster-mem) cmd_cluster_mem ;;
	node-kill) cmd_node_kill "$@" ;;
	node-stop) cmd_node_stop "$@" ;;
	node-start) cmd_node_start "$@" ;;
	node-add) cmd_node_add ;;
	-h | --help | help)
		usage
		;;
	*)
		usage
		exit 2
		;;
	esac
}

main "$@"
