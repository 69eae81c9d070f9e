#!/usr/bin/env bash
# Copyright The OpenTelemetry Authors
# SPDX-License-Identifier: Apache-2.0
#
# Runs one short fuzz pass per target:
#
#   scripts/fuzz.sh FUZZTIME PKG:FuzzName [PKG:FuzzName ...]
#
# Go 1.26's fuzz coordinator can end a pass whose -fuzztime ran out with a bare
# "context deadline exceeded" failure although no input failed (golang/go#75804, fixed in
# Go 1.27). A pass that fails that way, and wrote no failing input, is run once more; any
# other failure, or a second one, fails the script. A real finding always writes its input
# under testdata/fuzz and is never retried.
set -uo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 FUZZTIME PKG:FuzzName..." >&2
	exit 2
fi
fuzztime=$1
shift
gobin=${GO:-go}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run() {
	"$gobin" test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s "$1" 2>&1 | tee "$log"
	return "${PIPESTATUS[0]}"
}

# deadline_only tells whether the failed pass in $log is the coordinator's deadline race.
deadline_only() {
	grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written to' "$log"
}

for t in "$@"; do
	pkg=${t%%:*}
	name=${t##*:}
	echo "fuzz $pkg $name"
	if run "$pkg" "$name"; then
		continue
	fi
	if deadline_only; then
		echo "fuzz: $name ended on the fuzz coordinator's deadline race (golang/go#75804) with no failing input; running it once more"
		if run "$pkg" "$name"; then
			continue
		fi
	fi
	echo "fuzz: $name failed" >&2
	exit 1
done
