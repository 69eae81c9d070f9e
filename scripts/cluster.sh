#!/usr/bin/env bash
# Runs the cluster scenarios of the integration module (integrationtest/cluster_test.go, build
# tag `cluster`) against a three-node Elasticsearch cluster on loopback (docs/cluster.md).
#
#   scripts/cluster.sh     (or: make cluster)
#
# Uses the cluster named by ES_CLUSTER_ENDPOINTS (with ES_CLUSTER_USER, ES_CLUSTER_PASSWORD,
# ES_CLUSTER_CA_CERT and ES_CLUSTER_STATE_DIR) when set. Otherwise it starts one with
# `scripts/es.sh cluster-start` and stops it at the end. The scenarios kill and restart nodes,
# and one adds a node: a cluster given by ES_CLUSTER_ENDPOINTS must be one that es.sh runs.
# Tests fail, rather than skip, when the cluster is missing (ES_REQUIRED=1).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$SCRIPT_DIR")"
GO="${GO:-go}"
cd "$REPO_DIR"

started=""
cleanup() {
	if [ -n "$started" ]; then
		"$REPO_DIR/scripts/es.sh" cluster-stop || true
	fi
}
trap cleanup EXIT

if [ -z "${ES_CLUSTER_ENDPOINTS:-}" ]; then
	if scripts/es.sh env >/dev/null 2>&1; then
		echo "cluster: note: the single node of scripts/es.sh is running too; both share the CPUs" >&2
	fi
	if scripts/es.sh cluster-env >/dev/null 2>&1; then
		scripts/es.sh cluster-stop
	fi
	started=1
	t0=$(date +%s)
	scripts/es.sh cluster-start 3
	echo "cluster: started in $(($(date +%s) - t0))s"
	set -a
	# shellcheck disable=SC1091
	. "${ES_STATE_DIR:-$REPO_DIR/.es}/cluster/env"
	set +a
fi

export ES_REQUIRED=1
echo "cluster: Elasticsearch nodes at $ES_CLUSTER_ENDPOINTS"
cd integrationtest
"$GO" test -tags cluster -count=1 -race -timeout 20m -run '^TestCluster' -v . 2>&1 |
	grep --line-buffered -v '^=== \(RUN\|PAUSE\|CONT\)'
