GO ?= go
BIN := bin/fdl-formats
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build test vet fmt lint tools demo bench clean

build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/fdl-formats

vet:
	$(GO) vet ./...

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi

lint: vet fmt
	$(GO) run $(STATICCHECK) ./...

# staticcheck downloaded and built, not run: go run keeps the program in
# Go's build cache, where lint finds it. .ci/run makes this while go mod
# download fetches the project's modules (the one waits on the network, the
# other on the CPU: 82 s of CPU in an empty build cache).
tools:
	$(GO) run $(STATICCHECK) -version >/dev/null

# The README's test command: gofmt, vet and staticcheck, then every test
# (the conformance lakes are the archives committed under testdata/conformance,
# or FDL_CONFORMANCE_DIR; a test that needs a missing one fails).
#
# The tests' temporary folders (TMPDIR) are in a private folder that
# scripts/test-tmpdir.sh makes: in /dev/shm when it can be, as the tests
# sync thousands of files to disk. Go's own build files stay in the usual
# temporary folder (GOTMPDIR), but the test binaries run without GOTMPDIR
# (-exec 'env -u GOTMPDIR'): t.TempDir() makes its folders in $GOTMPDIR when
# set, before $TMPDIR, so with it every test's folder was on the disk after
# all (go test passes its environment on).
# The four slowest packages first (about 200 s of tests each on 2 cores, the
# rest under 80 s): go test runs packages two at a time in the order listed,
# so listed first they overlap each other instead of one running alone at
# the end (a 9m50s CI run ended with repo's 225 s beside nothing).
SLOWEST := ./repo ./convert ./compare ./cmd/fdl-formats
#
# go test runs without its own vet pass (-vet=off): lint ran go vet ./...
# just before, whose checks include every one go test's pass makes, on the
# same packages and their tests; the second pass only cost time.

test: lint
	@tmp=$$(scripts/test-tmpdir.sh) || exit 1; \
	trap 'rm -rf "$$tmp"' EXIT; \
	echo "TMPDIR=$$tmp"; \
	GOTMPDIR="$${GOTMPDIR:-$${TMPDIR:-/tmp}}" TMPDIR="$$tmp" $(GO) test -count=1 -vet=off -timeout 45m -exec 'env -u GOTMPDIR' $(SLOWEST) ./...

demo: build
	./scripts/demo.sh

# Printed figures, not timed tests: the reader against read_parquet, then the
# proof, backfill, memory and wide-conversion benchmarks (tens of minutes).
bench:
	./scripts/bench-reader.sh
	./scripts/bench-proof.sh

clean:
	rm -rf bin
