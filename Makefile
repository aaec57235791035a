# cortex — every command a developer or CI needs. The Go toolchain is pinned
# here because a machine ignores go.mod's toolchain line unless told.
export GOTOOLCHAIN := go1.26.10
export CGO_ENABLED ?= 0

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
TOOLS     := $(CURDIR)/.tools
# A count, not a duration: Go 1.26's fuzz coordinator can fail a target with
# "context deadline exceeded" when a -fuzztime duration ends under load
# (go.dev/issue/75804, fixed in Go 1.27); a count has no deadline to race.
FUZZTIME  ?= 20000x

STATICCHECK_VERSION := v0.8.2
GOSEC_VERSION       := v2.30.0

.PHONY: run build test test-short lint gates vet staticcheck gosec fuzz bench bench-table bench-known clean

## run: start cortex on embedded defaults (vault ./data/vault, state ./data/state, http://127.0.0.1:8080)
run: build
	./bin/cortex serve

## build: the cortex binary in ./bin
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/cortex ./cmd/cortex

## test: every test, with the race detector; needs gcc, Chromium and the MCP conformance suite
## (.ci/install-test-deps installs them) and lists loudly every test skipped for want of one
test:
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 20m -json ./... | $(GO) run ./internal/testreport

## test-short: every test without the race detector (quicker while editing)
test-short:
	$(GO) test -count=1 -json ./... | $(GO) run ./internal/testreport

## lint: go vet, staticcheck, gosec, govulncheck (local database) and actionlint at pinned versions
lint: vet staticcheck gosec vuln actionlint

## gates: the fast gates CI runs after the tests (gosec and the release gates are slower: make lint, image, release-local)
gates: vet staticcheck vuln actionlint fuzz

vet:
	$(GO) vet ./...

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(TOOLS)/gosec:
	GOBIN=$(TOOLS) $(GO) install github.com/securego/gosec/v2/cmd/gosec@$(GOSEC_VERSION)

staticcheck: $(TOOLS)/staticcheck
	$(TOOLS)/staticcheck ./...

# G104 (an unchecked error) is left to review: the cases are Close calls on
# error paths and read-only files, where there is nothing left to do.
gosec: $(TOOLS)/gosec
	$(TOOLS)/gosec -quiet -exclude-generated -exclude=G104 -exclude-dir=.cache -exclude-dir=.tools ./...

## fuzz: each fuzz target for FUZZTIME executions (default 20000x)
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

clean:
	rm -rf bin .tools

## bench: the benchmark harness (the real binary over HTTP): first the table of reads as a model makes them
## beside a naive go-sdk server on the shared generator's 10k and 50k vaults, then 1k/10k/50k synthetic vaults,
## then known-item search; not part of test
bench:
	CORTEX_BENCH=1 $(GO) test -run '^TestBenchTable$$' -v -count=1 -timeout 120m ./internal/bench
	CORTEX_BENCH=1 $(GO) test -run '^TestBench$$' -v -count=1 -timeout 120m ./internal/bench
	CORTEX_BENCH=1 $(GO) test -run '^TestBenchBackup$$' -v -count=1 -timeout 60m ./internal/bench
	CORTEX_BENCH=1 $(GO) test -run '^TestBenchHistory$$' -v -count=1 -timeout 60m ./internal/bench
	CORTEX_BENCH=1 $(GO) test -run '^TestBenchScope$$' -v -count=1 -timeout 60m ./internal/bench
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./internal/vault/...
	$(GO) test -run '^$$' -bench EditNote -count 5 ./internal/history/
	$(GO) test -run '^$$' -bench HistorySize -benchtime 1x -timeout 30m ./internal/history/
	$(MAKE) bench-known

## bench-table: only the table of `make bench`; BENCH_NOTES=2000 BENCH_ROUNDS=1 for a quick look
BENCH_NOTES ?= 10000,50000
BENCH_ROUNDS ?= 3
bench-table:
	CORTEX_BENCH=1 CORTEX_BENCH_TABLE_NOTES=$(BENCH_NOTES) CORTEX_BENCH_ROUNDS=$(BENCH_ROUNDS) \
	  $(GO) test -run '^TestBenchTable$$' -v -count=1 -timeout 120m ./internal/bench

# The known-item benchmark's vault: the shared generator's 10,000 notes, seed
# 1, written the first time (about 20 s) and kept under .cache.
KNOWN_VAULT ?= $(CURDIR)/.cache/bench/known-10k

## bench-known: known-item search (titles and body phrases of random notes): MRR@10 and hit@1
bench-known:
	CORTEX_BENCH=1 CORTEX_BENCH_VAULT=$(KNOWN_VAULT) $(GO) test -run '^TestBenchKnownItem$$' -v -count=1 ./internal/vault

# Release gates: vulnerability database, image, goreleaser, actionlint.
include docs/release.mk
