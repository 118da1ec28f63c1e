GO ?= go
BIN := bin/fdl-formats

.PHONY: build test vet lint demo bench clean

build:
	$(GO) build -o $(BIN) ./cmd/fdl-formats

vet:
	$(GO) vet ./...

# The README's test command: vet, then every test (conformance lakes are read
# from FDL_CONFORMANCE_DIR, default ../shared/conformance, and skipped if absent).
test: vet
	$(GO) test -count=1 -timeout 30m ./...

lint: vet
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

demo: build
	./scripts/demo.sh

bench:
	./scripts/bench.sh

clean:
	rm -rf bin
