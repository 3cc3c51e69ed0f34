GO ?= go

.PHONY: test deps vet bench fuzz mutate test-nvim deps-nvim

# test runs every test with the race detector (after go vet), then the
# editor plugins' tests, installing what the tests need first.
test: deps vet
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) test -race -timeout 15m ./...
	$(MAKE) test-nvim

# deps installs what the tests need when it is missing: ripgrep (the
# grep/glob tests run against it and the native walker) and strace (the
# start-up test checks that nothing does I/O at init).
deps:
	@for pair in rg:ripgrep strace:strace; do \
		cmd=$${pair%%:*}; pkg=$${pair#*:}; \
		command -v $$cmd >/dev/null 2>&1 && continue; \
		echo "installing $$pkg"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		($$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$pkg) >/dev/null 2>&1 \
			|| { echo "could not install $$pkg"; [ -z "$$CI" ] || exit 1; echo "warning: its tests will be skipped"; }; \
	done

# apt installs Debian packages when a command is missing: pairs of
# command:package. Under CI a package that cannot be installed fails.
define apt
	@for pair in $(1); do \
		cmd=$${pair%%:*}; pkg=$${pair#*:}; \
		command -v $$cmd >/dev/null 2>&1 && continue; \
		echo "installing $$pkg"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		($$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$pkg) >/dev/null 2>&1 \
			|| { echo "could not install $$pkg"; exit 1; }; \
	done
endef

# deps-nvim installs what the Neovim plugin's tests need: Neovim (Debian's
# is 0.7.2, the oldest the plugin supports), busted, tmux and luacheck.
deps-nvim:
	$(call apt,nvim:neovim busted:lua-busted tmux:tmux luacheck:lua-check)

# test-nvim runs the Neovim plugin's tests: luacheck, the busted specs
# inside headless Neovim against the real binary, and the tmux screen test.
NVIM_TEST_DIR ?= $(or $(TMPDIR),/tmp)/dsh-bridge-nvim-test
test-nvim: deps-nvim
	$(GO) build -o $(NVIM_TEST_DIR)/dsh-bridge ./cmd/dsh-bridge
	cd editors/nvim && luacheck -q lua plugin spec
	cd editors/nvim && DSH_BRIDGE_BIN=$(NVIM_TEST_DIR)/dsh-bridge \
		timeout 600 nvim --headless -u NONE -i NONE -c 'luafile spec/runner.lua'
	timeout 300 editors/nvim/test/screen.sh $(NVIM_TEST_DIR)/dsh-bridge

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
