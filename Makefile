# Developer entry points. `make help` lists the targets.
#
# Each tool is pinned by a `tool` directive in its own module under tools/, so
# the tools' dependencies never meet each other's or the exporter's. `go tool`
# builds a tool on first use and caches the binary in the Go build cache.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO ?= go

# Pinned tools (versions in tools/<name>/go.mod). tools/mdatagen/generate.sh
# and scripts/bench-compare.sh call mdatagen and benchstat the same way.
MDATAGEN      := $(GO) tool -modfile=tools/mdatagen/go.mod mdatagen
GOLANGCI_LINT := $(GO) tool -modfile=tools/lint/go.mod golangci-lint
BENCHSTAT     := $(GO) tool -modfile=tools/perf/go.mod benchstat

# Git ref that bench-compare measures the working tree against.
BASE ?=

##@ Code generation

.PHONY: generate
generate: ## Regenerate internal/metadata, the generated tests and documentation.md from metadata.yaml
	GO="$(GO)" tools/mdatagen/generate.sh
	gofmt -w generated_component_test.go generated_package_test.go internal/metadata internal/metadatatest

##@ Lint and format

.PHONY: lint
lint: ## Run golangci-lint and go vet over the module
	$(GOLANGCI_LINT) run ./...
	$(GO) vet ./...

.PHONY: fmt
fmt: ## Format the code with gofumpt and goimports (through golangci-lint)
	$(GOLANGCI_LINT) fmt ./...

##@ Performance

.PHONY: bench-compare
bench-compare: ## Compare benchmarks of the working tree with BASE=<git ref> (BENCH, COUNT, BENCHTIME also apply)
	@if [ -z "$(BASE)" ]; then echo "usage: make bench-compare BASE=<git ref>" >&2; exit 2; fi
	GO="$(GO)" scripts/bench-compare.sh "$(BASE)"

##@ Tools

.PHONY: tools
tools: ## Build the pinned tools into the Go build cache and print their paths
	@echo "building mdatagen (tools/mdatagen/go.mod)..."
	@$(GO) tool -modfile=tools/mdatagen/go.mod -n mdatagen
	@echo "building benchstat (tools/perf/go.mod)..."
	@$(GO) tool -modfile=tools/perf/go.mod -n benchstat
	@echo "building golangci-lint (tools/lint/go.mod); the first build takes several minutes..."
	@$(GO) tool -modfile=tools/lint/go.mod -n golangci-lint
	@$(GOLANGCI_LINT) version

##@ Help

.PHONY: help
help: ## List the targets
	@echo "usage: make <target> [VAR=value ...]"
	@awk 'BEGIN { FS = ":.*## " } \
		/^##@/ { printf "\n%s\n", substr($$0, 5); next } \
		/^[a-zA-Z0-9_.-]+:.*## / { printf "  %-16s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
