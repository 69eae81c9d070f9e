#!/usr/bin/env bash
# Copyright The OpenTelemetry Authors
# SPDX-License-Identifier: Apache-2.0
#
# Regenerates the files that mdatagen derives from metadata.yaml.
#
# mdatagen names the Go package of the generated root files after the folder
# that holds metadata.yaml, and a checkout can live in a folder of any name.
# So it runs on a copy of the module's skeleton (go.mod, go.sum, doc.go,
# metadata.yaml) in a temporary folder named after the package, and the
# outputs are copied back. Working on a copy also keeps mdatagen away from
# README.md and from the rest of the tree.
#
# Usage: tools/mdatagen/generate.sh   (from anywhere; normally `make generate`)
set -euo pipefail

pkg=elasticsearchexporter
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# MDATAGEN is the command to run, from the repository root (`make generate`
# passes the pinned one).
mdatagen=${MDATAGEN:-go tool -modfile=tools/mdatagen/go.mod mdatagen}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=$tmp/$pkg
mkdir -p "$work"
cp "$root/go.mod" "$root/go.sum" "$root/doc.go" "$root/metadata.yaml" "$work/"

# shellcheck disable=SC2086 # MDATAGEN is a command with arguments
(cd "$root" && $mdatagen "$work/metadata.yaml")

# Outputs of mdatagen v0.158.0 for an exporter with telemetry metrics. Stale
# generated files are removed first so that a metric or signal dropped from
# metadata.yaml does not leave code behind; hand-written files in the same
# folders are left alone.
rm -f "$root"/generated_*.go "$root/documentation.md"
for dir in internal/metadata internal/metadatatest; do
	if [ -d "$root/$dir" ]; then
		find "$root/$dir" -maxdepth 1 -name 'generated_*' -type f -delete
	fi
done

cd "$work"
find . -type f \
	! -path ./go.mod ! -path ./go.sum ! -path ./doc.go ! -path ./metadata.yaml \
	-print | sort | while read -r f; do
	mkdir -p "$root/$(dirname "$f")"
	cp "$f" "$root/$f"
	echo "generated ${f#./}"
done

for dir in internal/metadata internal/metadatatest; do
	if [ -d "$root/$dir" ] && [ -z "$(ls -A "$root/$dir")" ]; then
		rmdir "$root/$dir"
	fi
done
