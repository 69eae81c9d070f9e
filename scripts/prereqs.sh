#!/usr/bin/env bash
# Checks, before anything starts, the programs that the real-Elasticsearch suite needs beyond
# those scripts/es.sh checks itself when it starts a node (a JDK, mvn, unzip), and names every
# one that is missing at once, each with its fix:
#
#   scripts/prereqs.sh     (or: make prereqs; `make test` runs it first, scripts/integration.sh
#                           at its start)
#
#   curl               scripts/es.sh polls the nodes' health with it (not needed with ES_ENDPOINT)
#   python3            scripts/proxy.sh picks the forward proxies' free ports with it
#   tinyproxy          the forward proxies of scripts/proxy.sh, which installs Debian's
#                      tinyproxy-bin with apt-get when it is missing, as root or through sudo:
#                      it is reported missing only where that cannot be done
#   openssl, basenc    the realms pass (scripts/es-realms.sh): the client certificates, the JWT
#                      key and the JWT's signature; not needed with REALMS_PASS=0 or ES_ENDPOINT
#
# On Debian or Ubuntu, as root: apt-get update && apt-get install -y curl python3 openssl coreutils
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROG=prereqs.sh
. "$SCRIPT_DIR/lib.sh"

missing=()  # the programs missing
packages=() # the Debian packages that hold them
fixes=()    # one line per program missing: what needs it and how to install it

# need PROGRAM PACKAGE WHY: notes PROGRAM as missing when it is not on PATH.
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	missing+=("$1")
	packages+=("$2")
	fixes+=("$1: $3; install it with 'apt-get install -y $2'")
}

if [[ -z "${ES_ENDPOINT:-}" ]]; then
	need curl curl "scripts/es.sh polls the nodes' health with it"
fi
need python3 python3 "scripts/proxy.sh picks the forward proxies' free ports with it"
if ! command -v tinyproxy >/dev/null 2>&1; then
	# What scripts/proxy.sh needs to install it (ensure_tinyproxy).
	if ! command -v apt-get >/dev/null 2>&1 || { [[ "$(id -u)" != 0 ]] && ! command -v sudo >/dev/null 2>&1; }; then
		missing+=(tinyproxy)
		packages+=(tinyproxy-bin)
		fixes+=("tinyproxy: the forward proxies of the proxy tests run it, and scripts/proxy.sh can install it only with apt-get, as root or through sudo; install it with 'apt-get install -y tinyproxy-bin', or the system's package manager")
	fi
fi
if [[ "${REALMS_PASS:-1}" != 0 && -z "${ES_ENDPOINT:-}" ]]; then
	need openssl openssl "the realms pass makes its client certificates and signs its JWT with it (REALMS_PASS=0 leaves the pass out)"
	need basenc coreutils "the realms pass encodes its JWT with it, from coreutils 8.31 on (REALMS_PASS=0 leaves the pass out)"
fi

if ((${#missing[@]} > 0)); then
	die "missing: ${missing[*]}" "${fixes[@]}" \
		"all at once, as root on Debian or Ubuntu: apt-get update && apt-get install -y ${packages[*]}"
fi
