# webacq: `make run` installs what the machine lacks and serves on the
# embedded SQLite database; `make test` runs every test (PostgreSQL on
# 127.0.0.1:5432 is required, see README).

GO ?= go
BIN := bin/webacq

.PHONY: run setup build test test-words vet staticcheck fmt-check fuzz fuzz-check bench bench-load bench-health bench-content bench-gyre bench-tables bench-pdfwords bench-detect bench-monitors clean

run: setup build
	./$(BIN) serve

setup:
	sh scripts/setup.sh

build:
	$(GO) build -o $(BIN) ./cmd/webacq

# -count=1: the cmd/webacq tests build and run the real binary with `go
# build`, which go test's result cache cannot see; a cached pass could hide
# a change to the binary.
test: setup fmt-check vet staticcheck
	$(GO) test -race -count=1 -timeout 30m ./...
	$(GO) test -tags corpus -count=1 -run '^TestMainContentKeepsWords$$' ./internal/content

# The glue property over every page of ../shared/corpus (skips without it;
# about 30 s, so outside -race): see bench/content/README.md.
test-words:
	$(GO) test -tags corpus -count=1 -run '^TestMainContentKeepsWords$$' -v ./internal/content

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.6.1 ./...

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# fuzz runs every fuzz target for FUZZTIME each (default 30s, e.g.
# `make fuzz FUZZTIME=5m`). A failing input is kept by go test under the
# package's testdata/fuzz/<Target>/ and from then on runs with every
# `make test` as a regression case: commit it with the fix.
FUZZTIME ?= 30s
FUZZ_TARGETS := \
	./internal/content:FuzzHTML \
	./internal/content:FuzzCandidates \
	./internal/content:FuzzRawCuts \
	./internal/content:FuzzLowerText \
	./internal/content:FuzzCountWords \
	./internal/content:FuzzMarkdown \
	./internal/content:FuzzCountText \
	./internal/content:FuzzText \
	./internal/content:FuzzTables \
	./internal/content:FuzzFlatten \
	./internal/pdftext:FuzzPDF \
	./internal/fetch:FuzzDecodeContent \
	./internal/fetch:FuzzCheckURL \
	./internal/fetch:FuzzRobots \
	./internal/mcp:FuzzMCPMessage \
	./internal/model:FuzzRedactKeys \
	./internal/primitive:FuzzNormalizeURL \
	./internal/primitive:FuzzSitemap \
	./internal/primitive:FuzzSearchHit \
	./internal/llm:FuzzSplitMarkdown \
	./internal/llm:FuzzParseJSON \
	./internal/channel/wire:FuzzParse \
	./internal/channel/edgar:FuzzEdgarIndex \
	./internal/channel/edgar:FuzzEdgarJSON \
	./internal/monitor/detect:FuzzNormalize \
	./internal/monitor/detect:FuzzDetect

# fuzz-check fails when a fuzz function of the repository is not in
# FUZZ_TARGETS (make fuzz runs it first).
fuzz-check:
	@missing=$$(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | \
		sed 's|^\(.*\)/[^/]*_test.go:func \(.*\)$$|\1:\2|' | sort -u | \
		while read t; do case " $(FUZZ_TARGETS) " in *" $$t "*) ;; *) echo "$$t";; esac; done); \
	if [ -n "$$missing" ]; then echo "fuzz targets missing from FUZZ_TARGETS:"; echo "$$missing"; exit 1; fi

fuzz: fuzz-check
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz: $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

bench: bench-health bench-content bench-gyre bench-tables bench-detect

bench-load:
	$(GO) run ./bench/load

bench-tables:
	$(GO) run ./bench/tables

bench-pdfwords:
	bash bench/pdfwords/fetch.sh
	$(GO) run ./bench/pdfwords

bench-detect:
	$(GO) run ./bench/detect

bench-monitors:
	$(GO) run ./bench/monitors -drain

bench-health:
	$(GO) run ./bench/health

bench-content:
	$(GO) test -run '^$$' -bench . -cpu 1 ./internal/content
	$(GO) run ./bench/content

bench-gyre:
	$(GO) run ./bench/gyre

clean:
	rm -rf bin
