# Sandbank. `make run` runs the bank, `make test` passes the tests.
GO ?= go
DATA ?=
BIN := bin

.PHONY: run test lint bench build deps clean

## run: build and run the headless bank on http://127.0.0.1:7380 (DATA=path to choose the data file)
run: build
	$(BIN)/sandbankd $(if $(DATA),--data $(DATA))

## test: install what the tests need (once), then vet and run every test with the race detector
test: deps
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

## lint: gofmt, go vet and staticcheck
lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

## bench: the benchmarks of docs/BENCHMARKS.md
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./bank/psd2api ./bank/httpsig ./storage
	$(GO) test -run '^$$' -bench Startup -benchtime 20x ./cmd/sandbankd

## build: the headless bank, pure Go
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN)/sandbankd ./cmd/sandbankd

deps:
	@scripts/install-deps

clean:
	rm -rf $(BIN)
