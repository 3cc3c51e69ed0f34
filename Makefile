GO ?= go

.PHONY: test vet bench fuzz

# test runs every test with the race detector (and go vet first).
test: vet
	$(GO) test -race -timeout 10m ./...

vet:
	$(GO) vet ./...

# bench reproduces BENCHMARKS.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./...

# fuzz runs each fuzz target briefly; FUZZTIME=5m for longer runs.
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./jsonv -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME)
	$(GO) test ./registry -run '^$$' -fuzz FuzzValidate -fuzztime $(FUZZTIME)
