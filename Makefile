GO ?= go

.PHONY: test deps vet bench fuzz mutate

# test runs every test with the race detector (after go vet), installing
# what the tests need first.
test: deps vet
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) test -race -timeout 15m ./...

# deps installs ripgrep (Debian package ripgrep) when it is missing; the
# grep/glob tests run against it and against the native walker.
deps:
	@command -v rg >/dev/null 2>&1 || { \
		echo "installing ripgrep"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		($$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq ripgrep) >/dev/null 2>&1 \
			|| { echo "could not install ripgrep"; [ -z "$$CI" ] || exit 1; echo "warning: its tests will be skipped"; }; }

vet:
	$(GO) vet ./...

# bench reproduces BENCHMARKS.md.
bench: deps
	$(GO) test -run '^$$' -bench . -benchmem -count 6 ./...

# fuzz runs each fuzz target briefly; FUZZTIME=5m for longer runs.
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./jsonv -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME)
	$(GO) test ./registry -run '^$$' -fuzz FuzzValidate -fuzztime $(FUZZTIME)

# mutate plants the mutations of cmd/mutate/mutations.json one at a
# time in a copy of the module and reports those no test catches (slow;
# not run by CI; its result is in BENCHMARKS.md).
mutate: deps
	$(GO) run ./cmd/mutate
