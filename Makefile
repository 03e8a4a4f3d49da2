# webacq: `make run` installs what the machine lacks and serves on the
# embedded SQLite database; `make test` runs every test (PostgreSQL on
# 127.0.0.1:5432 is required, see README).

GO ?= go
BIN := bin/webacq

.PHONY: run setup build test vet fmt-check bench bench-health bench-content clean

run: setup build
	./$(BIN) serve

setup:
	sh scripts/setup.sh

build:
	$(GO) build -o $(BIN) ./cmd/webacq

test: setup fmt-check vet
	$(GO) test -race -timeout 15m ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

bench: bench-health bench-content

bench-health:
	$(GO) run ./bench/health

bench-content:
	$(GO) test -run '^$$' -bench . -cpu 1 ./internal/content
	$(GO) run ./bench/content

clean:
	rm -rf bin
