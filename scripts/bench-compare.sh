#!/usr/bin/env bash
# Copyright The OpenTelemetry Authors
# SPDX-License-Identifier: Apache-2.0
#
# Compares the benchmarks of the working tree with those of a git ref.
#
#   scripts/bench-compare.sh BASE        (or: make bench-compare BASE=<ref>)
#
# BASE is checked out into a temporary git worktree, removed on exit. The
# test binaries of both trees are built once; then the runs alternate
# (base, head, base, head, ...) with one iteration each, so that noise on the
# machine (other jobs, thermal throttling, turbo) hits both sides alike. The
# results go to base.txt and head.txt in a results folder that is kept, and
# benchstat compares them.
#
# Environment:
#   BENCH      benchmark regexp, passed to -test.bench      (default: .)
#   COUNT      number of alternating rounds                (default: 6)
#   BENCHTIME  -test.benchtime value, e.g. 2s or 5000x     (default: go's, 1s)
#   PKGS       packages to benchmark (default: ./internal/serializer/... ./internal/lab/pushbench)
#   BENCHSTAT  benchstat command   (default: the version pinned in tools/perf)
#   GO         go command                                  (default: go)
#   RESULTS    folder for base.txt and head.txt    (default: a new temp folder)
#
# The lab (internal/lab) is a module of its own: a package of PKGS under
# ./internal/lab is listed, built and run from that folder. The push benchmarks
# (BenchmarkPush, BenchmarkPushParallel, BenchmarkRequestCost) are in
# ./internal/lab/pushbench; on a BASE from before the lab had its own module
# they were the root package's, so there ./internal/lab/pushbench stands for
# the root package, and its results are labelled with pushbench's import path
# so that benchstat compares them with the working tree's.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 BASE   (a git ref: commit, branch or tag)" >&2
	exit 2
fi

base_ref=$1
bench=${BENCH:-.}
count=${COUNT:-6}
benchtime=${BENCHTIME:-}
read -r -a pkgs <<<"${PKGS:-./internal/serializer/... ./internal/lab/pushbench}"
gobin=${GO:-go}
# The push benchmarks build the lab's bulk sink with the go command in $GO.
export GO=$gobin

root=$(git rev-parse --show-toplevel)
cd "$root"
if ! [[ $count =~ ^[1-9][0-9]*$ ]]; then
	echo "COUNT must be a positive integer, got '$count'" >&2
	exit 2
fi
if ! base_sha=$(git rev-parse --verify --quiet "$base_ref^{commit}"); then
	echo "bench-compare: '$base_ref' is not a commit in this repository" >&2
	exit 2
fi

if [ -n "${BENCHSTAT:-}" ]; then
	benchstat=$BENCHSTAT
else
	# Resolve the pinned benchstat to its cached binary (building it if
	# needed) so that it can run from the results folder.
	echo "bench-compare: locating benchstat (tools/perf/go.mod; built on first use)"
	benchstat=$("$gobin" tool -modfile=tools/perf/go.mod -n benchstat)
fi

tmp=$(mktemp -d)
worktree=$tmp/base
cleanup() {
	if [ -d "$worktree" ]; then
		git -C "$root" worktree remove --force "$worktree" >/dev/null 2>&1 || true
	fi
	git -C "$root" worktree prune >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

results=${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/bench-compare.XXXXXX")}
mkdir -p "$results"
: >"$results/base.txt"
: >"$results/head.txt"

echo "bench-compare: base $base_ref ($(git rev-parse --short "$base_sha")) vs working tree"
git worktree add --quiet --detach "$worktree" "$base_sha"

# list_side DIR: "import path<TAB>package dir<TAB>module dir<TAB>label" of
# every package in PKGS that has tests in the tree at DIR. The label is the
# import path, except for the root package of a BASE without the lab module
# standing for ./internal/lab/pushbench (see above).
list_side() {
	local dir=$1 pat moddir label
	for pat in "${pkgs[@]}"; do
		moddir=$dir
		label=
		case $pat in
		./internal/lab | ./internal/lab/*)
			if [ -f "$dir/internal/lab/go.mod" ]; then
				moddir=$dir/internal/lab
				pat=.${pat#./internal/lab}
			elif [ "$pat" = ./internal/lab/pushbench ]; then
				pat=.
				label=github.com/otelcol-es/elasticsearchexporter/internal/lab/pushbench
			fi
			;;
		esac
		# -e: a package or pattern missing on one side is skipped, not an error.
		(cd "$moddir" && "$gobin" list -e \
			-f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{"\t"}}{{.Dir}}{{end}}' \
			"$pat" 2>/dev/null) |
			while IFS=$'\t' read -r pkg pkgdir; do
				[ -n "$pkg" ] || continue
				printf '%s\t%s\t%s\t%s\n' "$pkg" "$pkgdir" "$moddir" "${label:-$pkg}"
			done
	done
}

# build_side SIDE DIR: compiles the test binary of every package that
# list_side finds, in its module's folder, and writes
# "binary<TAB>package dir<TAB>import path<TAB>label" lines to $tmp/SIDE.list.
build_side() {
	local side=$1 dir=$2 n=0 pkg pkgdir moddir label
	mkdir -p "$tmp/bin/$side"
	: >"$tmp/$side.list"
	while IFS=$'\t' read -r pkg pkgdir moddir label; do
		n=$((n + 1))
		local bin=$tmp/bin/$side/$n.test
		if ! (cd "$moddir" && "$gobin" test -c -o "$bin" "$pkg"); then
			echo "bench-compare: $side: $pkg does not build; it is left out" >&2
			continue
		fi
		if [ -x "$bin" ]; then
			printf '%s\t%s\t%s\t%s\n' "$bin" "$pkgdir" "$pkg" "$label" >>"$tmp/$side.list"
		fi
	done < <(list_side "$dir")
}

# run_side SIDE: one round (-test.count 1) of every benchmark of SIDE,
# appended to SIDE.txt. Each binary runs in its package folder, as go test
# would run it, so testdata/ paths resolve.
run_side() {
	local side=$1 bin pkgdir
	local args=(-test.run '^$' -test.bench "$bench" -test.benchmem -test.count 1)
	if [ -n "$benchtime" ]; then
		args+=(-test.benchtime "$benchtime")
	fi
	while IFS=$'\t' read -r bin pkgdir pkg label; do
		if ! (cd "$pkgdir" && "$bin" "${args[@]}" 2>&1 | sed "s|^pkg: $pkg\$|pkg: $label|") >>"$results/$side.txt"; then
			echo "bench-compare: $side: $(basename "$pkgdir") failed; see $results/$side.txt" >&2
		fi
	done <"$tmp/$side.list"
}

has_benchmarks() {
	grep -q '^Benchmark' "$results/$1.txt"
}

echo "bench-compare: building test binaries (packages: ${pkgs[*]})"
build_side base "$worktree"
build_side head "$root"

if [ ! -s "$tmp/head.list" ]; then
	echo "bench-compare: the working tree has no test packages in: ${pkgs[*]}" >&2
	exit 1
fi

sides=(base head)
if [ ! -s "$tmp/base.list" ]; then
	echo "bench-compare: $base_ref has no test packages in: ${pkgs[*]}; measuring the working tree only"
	sides=(head)
fi

for ((i = 1; i <= count; i++)); do
	for side in "${sides[@]}"; do
		echo "bench-compare: round $i/$count: $side"
		run_side "$side"
	done
	# Drop a side that turned out to have no matching benchmarks after the
	# first round instead of running it COUNT times for nothing.
	if [ "$i" -eq 1 ] && [ "${#sides[@]}" -eq 2 ] && ! has_benchmarks base; then
		echo "bench-compare: $base_ref has no benchmarks matching '$bench'; measuring the working tree only"
		sides=(head)
	fi
done

if ! has_benchmarks head; then
	echo "bench-compare: the working tree has no benchmarks matching '$bench' in: ${pkgs[*]}" >&2
	exit 1
fi

echo
echo "results: $results/base.txt $results/head.txt"
echo
cd "$results"
if has_benchmarks base; then
	$benchstat base.txt head.txt
else
	$benchstat head.txt
fi
