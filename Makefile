# Developer entry points. `make help` lists the targets.
#
# Each tool is pinned by a `tool` directive in its own module under tools/, so
# the tools' dependencies never meet each other's or the exporter's. `go tool`
# builds a tool on first use and caches the binary in the Go build cache.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO ?= go

# Pinned tools, each run through `go tool` with its own module file. They run
# from the repository root; scripts/bench-compare.sh runs benchstat elsewhere,
# so it is given the path of the cached binary (`go tool -n` builds it first).
MDATAGEN_MOD      := tools/mdatagen/go.mod
GOLANGCI_LINT_MOD := tools/lint/go.mod
BENCHSTAT_MOD     := tools/perf/go.mod
MDATAGEN          := $(GO) tool -modfile=$(MDATAGEN_MOD) mdatagen
GOLANGCI_LINT     := $(GO) tool -modfile=$(GOLANGCI_LINT_MOD) golangci-lint
BENCHSTAT         := $(GO) tool -modfile=$(BENCHSTAT_MOD) benchstat

# Git ref that bench-compare measures the working tree against.
BASE ?=

# Fuzz targets of the short fuzz pass that `make test` runs: <package>:<target>.
FUZZ_TARGETS := \
	./internal/jsonstr:FuzzAppendString \
	./internal/serializer:FuzzAppendFloat \
	./internal/serializer:FuzzEncodeLogs \
	./internal/serializer:FuzzEncodeSpans \
	./internal/serializer:FuzzEncodeLogsModes \
	./internal/serializer:FuzzEncodeSpansModes \
	./internal/serializer:FuzzAppendProfile \
	./internal/serializer:FuzzEncodeMetrics \
	./internal/routing:FuzzRouteDataStream \
	./internal/routing:FuzzRouteRecord \
	./internal/routing:FuzzRouteConfined \
	./internal/bulk:FuzzCompactBulkResponse \
	./internal/esclient:FuzzSnappyNotDecoded
FUZZTIME ?= 10s

# Time per benchmark of the push matrix that `make bench` runs (4 signals x 4 sizes of realistic
# records and 1,000 uniform ones x 5 implementations, serial and parallel; profiles uniform only).
PUSH_BENCHTIME ?= 500ms

# Length of the Elasticsearch outage that the fault-injection suite rides out.
FAULT_OUTAGE ?= 60s

##@ Main jobs

.PHONY: demo
demo: ## Run the demo: a real Elasticsearch, the otelcol-es collector and a burst of logs, traces, metrics and profiles
	scripts/demo.sh

.PHONY: test
test: prereqs lint unit fuzz integration cluster ## Run every test: lint, vet, race unit tests, a short fuzz pass, the real-Elasticsearch suite, the cluster scenarios (scripts/prereqs.sh first names what is missing)

.PHONY: build
build: ## Build the otelcol-es collector with ocb into .bin/otelcol-es
	GO="$(GO)" scripts/build-collector.sh

##@ Tests

.PHONY: prereqs
prereqs: ## Name every program the real-Elasticsearch suite needs that is missing (python3 and tinyproxy for the proxy tests, openssl and basenc for the realms pass, curl), before anything starts
	scripts/prereqs.sh

.PHONY: unit
unit: ## Unit tests with the race detector (the fault suite holds a 60 s outage, FAULT_OUTAGE), then the 30 s memory-bound test without it, then the lab's tests (internal/lab, a module of its own)
	FAULT_OUTAGE=$(FAULT_OUTAGE) $(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run '^TestMemoryBound$$' .
	cd $(LAB_DIR) && $(GO) test -race -count=1 ./...

.PHONY: fuzz
fuzz: ## A short fuzz pass, FUZZTIME (10s) per target (scripts/fuzz.sh)
	GO="$(GO)" scripts/fuzz.sh $(FUZZTIME) $(FUZZ_TARGETS)

.PHONY: integration
integration: build ## The integration module against a real Elasticsearch 9.x (started by scripts/es.sh unless ES_ENDPOINT is set), its version-dependent tests against 8.x (ES8_PASS=0 leaves them out), the PKI and JWT realm tests against a trial-licence realms node (ES_REALMS=1 scripts/es.sh; REALMS_PASS=0 leaves them out), then the README's own collector (scripts/newcomer.sh)
	GO="$(GO)" scripts/integration.sh
	GO="$(GO)" scripts/newcomer.sh

.PHONY: newcomer
newcomer: ## Build the README's ocb manifest in a temporary folder and validate the README's configuration with it (scripts/newcomer.sh)
	GO="$(GO)" scripts/newcomer.sh

.PHONY: cluster
cluster: ## The cluster scenarios against three real nodes (started by scripts/es.sh cluster-start unless ES_CLUSTER_ENDPOINTS is set; ~7 min)
	GO="$(GO)" scripts/cluster.sh

.PHONY: update-golden
update-golden: ## Rewrite the generated golden files (never the hand-written ones); review the diff
	$(GO) test -count=1 -run TestGolden . -update

.PHONY: bench
bench: ## Serializer benchmarks, then the push path per signal, corpus (realistic at every size, uniform at 1,000) and size with its ratio table (GOMAXPROCS=2, ~4-5 min)
	$(GO) test -run '^$$' -bench . -benchmem ./internal/serializer/
	cd $(LAB_DIR) && $(GO) test -run '^$$' -bench '^BenchmarkPush' -benchmem -cpu 2 -benchtime $(PUSH_BENCHTIME) ./pushbench \
		| tee /dev/stderr | $(GO) run ./cmd/benchtable

##@ Code generation

.PHONY: generate
generate: ## Regenerate internal/metadata, the generated tests and documentation.md from metadata.yaml
	MDATAGEN="$(MDATAGEN)" tools/mdatagen/generate.sh
	gofmt -w generated_component_test.go generated_package_test.go internal/metadata internal/metadatatest

##@ Lint and format

.PHONY: lint
lint: ## Run go vet and golangci-lint over the three modules (the exporter, integrationtest/ and the lab, internal/lab/)
	$(GO) vet ./...
	$(GOLANGCI_LINT) run --allow-serial-runners ./...
	cd integrationtest && $(GO) vet -tags cluster ./... && $(GO) tool -modfile=../tools/lint/go.mod golangci-lint run --allow-serial-runners --build-tags cluster --config ../.golangci.yml ./...
	cd $(LAB_DIR) && $(GO) vet ./... && $(GO) tool -modfile=$(CURDIR)/$(GOLANGCI_LINT_MOD) golangci-lint run --allow-serial-runners --config $(CURDIR)/.golangci.yml ./...

.PHONY: fmt
fmt: ## Format the three modules' code with gofumpt and goimports (through golangci-lint)
	$(GOLANGCI_LINT) fmt ./...
	cd integrationtest && $(GO) tool -modfile=../tools/lint/go.mod golangci-lint fmt --config ../.golangci.yml ./...
	cd $(LAB_DIR) && $(GO) tool -modfile=$(CURDIR)/$(GOLANGCI_LINT_MOD) golangci-lint fmt --config $(CURDIR)/.golangci.yml ./...

##@ Performance

.PHONY: bench-compare
bench-compare: ## Compare benchmarks of the working tree with BASE=<git ref> (BENCH, COUNT, BENCHTIME also apply)
	@if [ -z "$(BASE)" ]; then echo "usage: make bench-compare BASE=<git ref>" >&2; exit 2; fi
	@benchstat=$$($(GO) tool -modfile=$(BENCHSTAT_MOD) -n benchstat); \
		echo "GO=$(GO) BENCHSTAT=$$benchstat scripts/bench-compare.sh $(BASE)"; \
		GO="$(GO)" BENCHSTAT="$$benchstat" scripts/bench-compare.sh "$(BASE)"

# The lab (internal/lab: the push benchmarks, the sinks, the corpora, benchtable and costbench,
# the driver of `make cost`) is a module of its own (its go.mod is in that folder), so that what
# only the lab needs (the OTLP sink's protobuf, costbench's profile parser github.com/google/pprof)
# stays out of the exporter's dependencies. Its targets run from that folder.
LAB_DIR := internal/lab

# Settings of `make cost` (internal/lab/cmd/costbench -h lists them all): the measurement
# window per signal, and whether to measure on a busy machine (COST_FORCE=1: costbench
# otherwise refuses to start while other processes keep more than 0.3 CPUs busy).
COST_WINDOW ?= 30s
COST_FORCE  ?= 0
COST_FLAGS  ?=

.PHONY: cost
cost: build ## Out-of-process cost of the real collector per signal on realistic records, against a stand-in Elasticsearch: docs/s, CPU s per million docs, RSS, bytes/doc, profile split, 50 and 512 records per request, the otlphttp reference at every size (~12 min; COST_FLAGS=-corpus=uniform for the best case)
	mkdir -p .bin/cost
	cd $(LAB_DIR) && $(GO) build -o $(CURDIR)/.bin/bulksink ./cmd/bulksink
	cd $(LAB_DIR) && $(GO) build -o $(CURDIR)/.bin/otlpsink ./cmd/otlpsink
	cd $(LAB_DIR) && $(GO) build -o $(CURDIR)/.bin/costbench ./cmd/costbench
	.bin/costbench -collector .bin/otelcol-es -sink .bin/bulksink -otlp-sink .bin/otlpsink -out .bin/cost -window $(COST_WINDOW) \
		$$( [ "$(COST_FORCE)" = 1 ] && echo -force ) $(COST_FLAGS) | tee .bin/cost/report.md

# Settings of `make cost-es`: the rounds of runs, and any other costbench flag (-short-warmup and
# -short-window set the warm-up and window of each run).
COST_ES_REPEATS ?= 3
COST_ES_FLAGS   ?=

.PHONY: cost-es
cost-es: build ## What a user pays on a real Elasticsearch (scripts/es.sh start; it stays running): the collector's and the node's CPU per million realistic documents at 1,000, 512 and 50 records per request, COST_ES_REPEATS rounds interleaved, each after the node is back at rest, ranges (~20 min)
	mkdir -p .bin/cost-es
	cd $(LAB_DIR) && $(GO) build -o $(CURDIR)/.bin/costbench ./cmd/costbench
	scripts/es.sh start >/dev/null
	.bin/costbench -collector .bin/otelcol-es -es-env .es/env -records 1000 -repeats $(COST_ES_REPEATS) -out .bin/cost-es \
		$$( [ "$(COST_FORCE)" = 1 ] && echo -force ) $(COST_ES_FLAGS) | tee .bin/cost-es/report.md

# Settings of `make cost-latency`: the rounds of runs, and any other costbench flag (e.g.
# -compare today=.bin/otelcol-es-today to measure another build beside this one).
COST_LATENCY_REPEATS ?= 1
COST_LATENCY_FLAGS   ?=

.PHONY: cost-latency
cost-latency: build ## The latency table on a real Elasticsearch (scripts/es.sh start; it stays running): logs at 1,000 and 50 records per request through a proxy adding 0, 5, 20 and 50 ms per bulk request: docs/s, docs per bulk request, collector and node CPU per million (~8 min a round, plus up to a minute per run while the node settles; COST_LATENCY_FLAGS=-compare name=path for another build beside)
	mkdir -p .bin/cost-latency
	cd $(LAB_DIR) && $(GO) build -o $(CURDIR)/.bin/costbench ./cmd/costbench
	scripts/es.sh start >/dev/null
	.bin/costbench -collector .bin/otelcol-es -es-env .es/env -records 1000 -sizes 50 -signals logs -delays 0s,5ms,20ms,50ms -repeats $(COST_LATENCY_REPEATS) -out .bin/cost-latency \
		$$( [ "$(COST_FORCE)" = 1 ] && echo -force ) $(COST_LATENCY_FLAGS) | tee .bin/cost-latency/report.md

.PHONY: request-cost
request-cost: ## Fixed cost of one bulk request: CPU and allocations at 1, 10, 50, 100 docs of realistic and of uniform logs, push vs a bare POST, and where 1 realistic doc's go (~3 min)
	mkdir -p .bin/cost
	cd $(LAB_DIR) && $(GO) test -run '^$$' -bench '^BenchmarkRequestCost$$' -benchmem -cpu 2 -count 5 -benchtime 3000x ./pushbench \
		| tee /dev/stderr | $(GO) run ./cmd/benchtable
	cd $(LAB_DIR) && $(GO) build -o $(CURDIR)/.bin/costbench ./cmd/costbench
	for impl in push post; do \
		(cd $(LAB_DIR) && $(GO) test -run '^$$' -bench "^BenchmarkRequestCost\$$/^corpus=realistic\$$/^records=1\$$/^impl=$$impl\$$" -cpu 2 -benchtime 20000x \
			-cpuprofile $(CURDIR)/.bin/cost/request1-$$impl.pprof -o $(CURDIR)/.bin/cost/request1.test ./pushbench) >/dev/null; \
		.bin/costbench -request-profile .bin/cost/request1-$$impl.pprof -requests 20000; \
		(cd $(LAB_DIR) && $(GO) test -run '^$$' -bench "^BenchmarkRequestCost\$$/^corpus=realistic\$$/^records=1\$$/^impl=$$impl\$$" -cpu 2 -benchtime 5000x \
			-memprofile $(CURDIR)/.bin/cost/request1-$$impl.mem -memprofilerate 1 -o $(CURDIR)/.bin/cost/request1.test ./pushbench) >/dev/null; \
		.bin/costbench -request-profile .bin/cost/request1-$$impl.mem -requests 5000; \
	done

##@ Tools

.PHONY: tools
tools: ## Build the pinned tools into the Go build cache and print their paths
	@echo "building mdatagen ($(MDATAGEN_MOD))..."
	@$(GO) tool -modfile=$(MDATAGEN_MOD) -n mdatagen
	@echo "building benchstat ($(BENCHSTAT_MOD))..."
	@$(GO) tool -modfile=$(BENCHSTAT_MOD) -n benchstat
	@echo "building golangci-lint ($(GOLANGCI_LINT_MOD)); the first build takes several minutes..."
	@$(GO) tool -modfile=$(GOLANGCI_LINT_MOD) -n golangci-lint
	@$(GOLANGCI_LINT) version

##@ Help

.PHONY: help
help: ## List the targets
	@echo "usage: make <target> [VAR=value ...]"
	@awk 'BEGIN { FS = ":.*## " } \
		/^##@/ { printf "\n%s\n", substr($$0, 5); next } \
		/^[a-zA-Z0-9_.-]+:.*## / { printf "  %-16s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
