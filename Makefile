# Sandbank. `make run` opens the desktop app, `make test` passes the tests.
GO ?= go
DATA ?=
BIN := bin
# C.UTF-8 is the UTF-8 locale every Debian has; apt's perl warns of one
# that is not installed.
export LANG := C.UTF-8

# ADDR= and TLS_ADDR= choose the listen addresses of make run and make
# serve; given empty (TLS_ADDR=), they turn that listener off, and not
# given at all, the bank's defaults (or the window's remembered ones) stand.
bank_flags = $(strip $(if $(DATA),--data '$(DATA)') \
	$(if $(filter undefined,$(origin ADDR)),,--addr '$(ADDR)') \
	$(if $(filter undefined,$(origin TLS_ADDR)),,--tls-addr '$(TLS_ADDR)'))

# A build in a git checkout records its commit, for --version, even where
# GOFLAGS holds -buildvcs=false; where git cannot read the checkout, GOFLAGS
# stands.
buildvcs := $(shell git rev-parse --is-inside-work-tree >/dev/null 2>&1 && echo -buildvcs=auto)

.PHONY: run serve test lint bench load fuzz build build-desktop build-headless deps deps-desktop clean

## run: install what the desktop app's build needs (once), build it and open it; its bank serves http://127.0.0.1:7380 (DATA=path chooses the data file, ADDR= and TLS_ADDR= the listen addresses; empty turns one off)
run: deps-desktop build
	$(BIN)/sandbank $(bank_flags)

## serve: the bank without a window (sandbankd), for CI pipelines and servers; pure Go, nothing to install (DATA=, ADDR=, TLS_ADDR= as for run)
serve: build-headless
	$(BIN)/sandbankd $(bank_flags)

## test: install what the tests need (once), then vet and run every test with the race detector, in a virtual display,
## then the tests at scale without it (apptest.AtScale: memory and volume, which the race detector makes several times slower);
## GORACE=atexit_sleep_ms=0 spares each test binary, and each race-built binary a test runs, the detector's second of sleep at exit
## (a package may take 30 minutes, not go test's 10, so that a busy machine slows the suite but does not fail it)
test: deps
	$(GO) vet ./...
	GORACE=atexit_sleep_ms=0 SANDBANK_REQUIRE_BROWSER=1 SANDBANK_REQUIRE_EXAMPLES=1 scripts/with-display $(GO) test -race -count=1 -timeout 30m $(slow_pkgs) ./...
	scripts/with-display $(GO) test -count=1 -timeout 30m -run AtScale $(scale_pkgs)

# slow_pkgs are the packages whose tests take longest, started first so
# that no long one is left to run alone at the end (./... adds the rest).
slow_pkgs = ./bank/psd2api ./cmd/sandbankd ./bank/scenario ./bank ./ui

# scale_pkgs are the packages with tests at scale.
scale_pkgs = $(sort $(dir $(shell grep -rl --include='*_test.go' 'apptest\.AtScale' .)))

## lint: gofmt, go vet and staticcheck, with its checks that a doc comment names what it documents (ST1020-ST1022)
lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -checks inherit,ST1020,ST1021,ST1022 ./...

## bench: the benchmarks of docs/BENCHMARKS.md (scripts/bench-prism needs node and npm; it installs Prism in a temporary folder)
bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 2s ./bank/psd2api ./bank/httpsig ./storage
	scripts/bench-prism
	$(GO) test -run '^$$' -bench BatchRun -benchtime 1x ./bank
	$(GO) test -run '^$$' -bench Startup -benchtime 20x ./cmd/sandbankd
	$(GO) test -run '^$$' -bench Replay_1000 -benchtime 2x ./bank/replay
	scripts/with-display $(GO) test -run '^$$' -bench WindowStartup -benchtime 10x ./cmd/sandbank
	$(GO) test -run TableReadsOnePageAtATime -v -count=1 ./ui

## fuzz: run every fuzz target for FUZZTIME each (default 10s); seed corpora are in testdata/fuzz
fuzz:
	scripts/fuzz

## load: 60 s of mixed traffic from 64 clients against sandbankd (docs/BENCHMARKS.md)
load:
	SANDBANK_LOAD_SECONDS=60 $(GO) test -run TestLoad -count=1 -v ./cmd/sandbankd

## build: the desktop app (cgo) and the headless bank (pure Go)
build: build-desktop build-headless

build-desktop:
	$(GO) build $(buildvcs) -o $(BIN)/sandbank ./cmd/sandbank

build-headless:
	CGO_ENABLED=0 $(GO) build $(buildvcs) -o $(BIN)/sandbankd ./cmd/sandbankd

# deps: everything the build and the tests need; deps-desktop: the desktop app's build only
deps:
	@scripts/install-deps test

deps-desktop:
	@scripts/install-deps desktop

clean:
	rm -rf $(BIN)

.PHONY: dist image

## dist: the release files in dist/: sandbankd for Linux, macOS and Windows, the desktop app for Linux (tar.xz) and Windows (.exe), SHA256SUMS
dist:
	@scripts/install-dist-deps
	scripts/dist

## image: the container image dist/sandbankd-image.tar, built without a container engine (docker load / podman load it)
image:
	@scripts/install-dist-deps
	scripts/dist image
