GO ?= go

.PHONY: build demo test test-stress deps deps-lsp vet deps-wine test-wine bench fuzz mutate mutate-independent test-nvim deps-nvim test-vscode deps-vscode vsix code-server cross dist deadcode

# build puts dsh-bridge and its helpers side by side in bin/: dsh-highlight
# (syntax tokens), dsh-code (Code Mode's runner) and dsh-markdown
# (web_fetch's HTML to Markdown). The bridge looks for them next to
# itself, then on PATH. All are static (CGO_ENABLED=0): a binary that
# links libc through cgo starts about 4 ms later (the dynamic loader,
# libc's initialisation, threads made by pthread_create; BENCHMARKS.md),
# and the bridge starts again for every command it supervises.
build:
	CGO_ENABLED=0 $(GO) build -o bin/ ./cmd/dsh-bridge ./cmd/dsh-highlight ./cmd/dsh-code ./cmd/dsh-markdown

# demo watches a scripted agent fix a bug in a scratch project.
demo: build
	bin/dsh-bridge demo

# test runs go vet, the cross build and the dead-code check, every test
# with the race detector, then the editor plugins' tests, installing what
# the tests need first.
test: deps deps-lsp vet
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(MAKE) cross
	$(MAKE) deadcode
	$(GO) test -race -timeout 15m ./...
	$(MAKE) test-wine
	$(MAKE) test-nvim
	$(MAKE) test-vscode

# test-stress runs every test three times with the race detector while
# internal/devtools/cpuburn keeps every core busy, so that a test that depends on
# timing fails here rather than on a loaded CI machine. Not part of test
# (it takes long; BENCHMARKS.md has its record). The burn lives in the
# process that runs go test: it ends with the run, and the run is killed
# at STRESS_LIMIT.
STRESS_LIMIT ?= 100m
# SCRATCH is this checkout's own scratch folder: two checkouts (worktrees)
# testing at once must not build into, or delete, each other's.
SCRATCH ?= $(or $(TMPDIR),/tmp)/dsh-bridge-$(shell printf %s "$(CURDIR)" | cksum | cut -d' ' -f1)
STRESS_DIR ?= $(SCRATCH)/stress
test-stress: deps deps-lsp
	$(GO) build -o $(STRESS_DIR)/cpuburn ./internal/devtools/cpuburn
	$(STRESS_DIR)/cpuburn -limit $(STRESS_LIMIT) -- $(GO) test -race -count=3 -timeout 40m ./...

# deps installs what the tests need when it is missing: ripgrep (the
# grep/glob tests run against it and the native walker), strace (the
# start-up test checks that nothing does I/O at init), curl (the
# benchmarks' native floor client) and deadcode (DEADCODE_VERSION, into
# TOOLS_BIN, a cache outside the repository).
TOOLS_BIN ?= $(HOME)/.cache/dsh-bridge/bin
DEADCODE_VERSION := v0.52.0
DEADCODE ?= $(TOOLS_BIN)/deadcode
deps:
	@$(GO) version -m $(DEADCODE) 2>/dev/null | grep -q 'golang.org/x/tools[[:space:]]*$(DEADCODE_VERSION)[[:space:]]' || { \
		echo "installing deadcode $(DEADCODE_VERSION)"; \
		GOBIN=$(TOOLS_BIN) $(GO) install golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION); }
	@for pair in rg:ripgrep strace:strace curl:curl; do \
		cmd=$${pair%%:*}; pkg=$${pair#*:}; \
		command -v $$cmd >/dev/null 2>&1 && continue; \
		echo "installing $$pkg"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		($$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$pkg) >/dev/null 2>&1 \
			|| { echo "could not install $$pkg"; [ -z "$$CI" ] || exit 1; echo "warning: its tests will be skipped"; }; \
	done

# deps-lsp installs the language servers the lsp and bridge tests run
# against: gopls (GOPLS_VERSION, into TOOLS_BIN; v0.24 needs a newer Go)
# and, from internal/devtools/lspdeps/package-lock.json, pyright and
# typescript-language-server (with the typescript it serves) under that
# folder's node_modules. The tests put both folders on PATH.
GOPLS_VERSION := v0.23.0
GOPLS ?= $(TOOLS_BIN)/gopls
LSPDEPS := internal/devtools/lspdeps
deps-lsp:
	@$(GO) version -m $(GOPLS) 2>/dev/null | grep -q 'golang.org/x/tools/gopls[[:space:]]*$(GOPLS_VERSION)[[:space:]]' || { \
		echo "installing gopls $(GOPLS_VERSION)"; \
		GOBIN=$(TOOLS_BIN) $(GO) install golang.org/x/tools/gopls@$(GOPLS_VERSION); }
	$(call apt,node:nodejs npm:npm)
	@cmp -s $(LSPDEPS)/package-lock.json $(LSPDEPS)/node_modules/.installed-lock.json || { \
		echo "installing $(LSPDEPS)'s npm packages"; \
		cd $(LSPDEPS) && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.installed-lock.json; }

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
NVIM_TEST_DIR ?= $(SCRATCH)/nvim-test
test-nvim: deps-nvim
	CGO_ENABLED=0 $(GO) build -o $(NVIM_TEST_DIR)/ ./cmd/dsh-bridge ./cmd/dsh-highlight ./cmd/dsh-code ./cmd/dsh-markdown
	cd editors/nvim && luacheck -q lua plugin spec bench
	cd editors/nvim && DSH_BRIDGE_BIN=$(NVIM_TEST_DIR)/dsh-bridge \
		timeout 600 nvim --headless -u NONE -i NONE -c 'luafile spec/runner.lua'
	timeout 300 editors/nvim/test/screen.sh $(NVIM_TEST_DIR)/dsh-bridge

# The VS Code extension (editors/vscode). Its npm packages come from the
# lock file; code-server (the real VS Code of the end-to-end test) is
# installed once into a cache outside the repository.
VSCODE := editors/vscode
VSCODE_VERSION := $(shell sed -n 's/^  "version": "\(.*\)",/\1/p' $(VSCODE)/package.json)
# VSCODE_TARGET is this machine's platform as vsce names it (linux-x64,
# darwin-arm64, win32-x64, ...).
VSCODE_TARGET := $(subst windows,win32,$(shell $(GO) env GOOS))-$(subst amd64,x64,$(shell $(GO) env GOARCH))
VSIX := $(VSCODE)/dist-vsix/dsh-bridge-$(VSCODE_VERSION)-$(VSCODE_TARGET).vsix
CODE_SERVER_DIR ?= $(HOME)/.cache/dsh-bridge/code-server-4.100.3

# deps-vscode installs Node, Chromium (the end-to-end test's browser) and
# what code-server's native modules build with, then the extension's npm
# packages.
deps-vscode:
	$(call apt,node:nodejs npm:npm chromium:chromium make:build-essential python3:python3)
	@for h in /usr/include/gssapi/gssapi.h:libkrb5-dev /usr/include/X11/Xlib.h:libx11-dev \
		/usr/include/X11/extensions/XKBfile.h:libxkbfile-dev /usr/include/libsecret-1/libsecret/secret.h:libsecret-1-dev; do \
		f=$${h%%:*}; pkg=$${h#*:}; [ -e $$f ] && continue; echo "installing $$pkg"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		($$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$pkg) >/dev/null 2>&1 || { echo "could not install $$pkg"; exit 1; }; \
	done
	cd $(VSCODE) && npm ci --no-audit --no-fund --loglevel=error

code-server:
	$(VSCODE)/scripts/install-code-server.sh $(CODE_SERVER_DIR)

# vsix builds the Go binaries (the bridge and its three helpers) for this
# machine into the extension, bundles the extension, and packages it
# (offline) for this platform only (vsce --target): VS Code installs it
# nowhere else. make dist packages all six.
vsix:
	rm -rf $(VSCODE)/bin
	CGO_ENABLED=0 $(GO) build -trimpath -o $(VSCODE)/bin/ ./cmd/dsh-bridge ./cmd/dsh-highlight ./cmd/dsh-code ./cmd/dsh-markdown
	cd $(VSCODE) && npm run --silent build && mkdir -p dist-vsix && \
		npx vsce package --no-dependencies --target $(VSCODE_TARGET) --out dist-vsix/$(notdir $(VSIX))

# test-vscode: the type check, the plain-Node tests against the real
# binary, the package, and the run in a real VS Code (code-server and
# headless Chromium); the screenshot lands in editors/vscode/test-output.
test-vscode: deps-vscode deps-lsp vsix code-server
	cd $(VSCODE) && PATH=$(TOOLS_BIN):$$PATH DSH_BRIDGE_BIN=$(CURDIR)/$(VSCODE)/bin/dsh-bridge npm test
	PATH=$(TOOLS_BIN):$$PATH timeout 600 node $(VSCODE)/test/e2e/run.mjs --code-server $(CODE_SERVER_DIR) --vsix $(VSIX) --out $(VSCODE)/test-output

# cross builds the bridge and its three helpers statically for the six
# targets the ACP Registry takes, and vets every package (tests included,
# so every package's tests compile) for the four that are not Linux.
CROSS_TARGETS = linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
CROSS_OUT ?= $(SCRATCH)/cross
# The six run at once; each one's output is printed after, under its name.
cross:
	@rm -rf $(CROSS_OUT); mkdir -p $(CROSS_OUT); for t in $(CROSS_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; log=$(CROSS_OUT)/$$os-$$arch.log; \
		( export CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch; \
		  $(GO) build -o $(CROSS_OUT)/$$os-$$arch/ ./cmd/dsh-bridge ./cmd/dsh-highlight ./cmd/dsh-code ./cmd/dsh-markdown && \
		  case $$os in linux) ;; *) $(GO) vet ./... ;; esac ) >$$log 2>&1 || touch $$log.failed & \
	done; wait; status=0; for t in $(CROSS_TARGETS); do \
		log=$(CROSS_OUT)/$${t%/*}-$${t#*/}.log; \
		case $${t%/*} in linux) echo "build $$t";; *) echo "build and vet $$t";; esac; \
		cat $$log; [ ! -e $$log.failed ] || { echo "$$t failed"; status=1; }; \
	done; rm -rf $(CROSS_OUT); exit $$status

# dist builds the release into dist/release (internal/devtools/dist): for
# each of the six registry targets an archive (.tar.gz, .zip on Windows)
# of the bridge, its three helpers, README.md and LICENSE, built
# reproducibly; SHA256SUMS; dist/registry/agent.json for the version
# `dsh-bridge --version` prints; and a VSIX per target. It names the
# targets that do not build and then fails. It leaves the last target's
# binaries in editors/vscode/bin (make vsix puts this machine's back).
dist:
	test -d $(VSCODE)/node_modules || (cd $(VSCODE) && npm ci --no-audit --no-fund --loglevel=error)
	cd $(VSCODE) && npm run --silent build
	$(GO) run ./internal/devtools/dist -out dist/release -registry dist/registry/agent.json -vsix

vet:
	$(GO) vet ./...

# deadcode fails when a function no platform's build reaches is neither
# deleted nor named in internal/devtools/deadcode/allow.txt.
deadcode: deps
	internal/devtools/deadcode/check.sh $(DEADCODE)

# deps-wine installs Wine and mingw-w64, makes the Wine prefix the
# Windows tests run in (internal/wine/prefix.sh: once; quick after), and
# puts a real Windows ripgrep beside it (internal/wine/ripgrep.sh: npm's
# @vscode/ripgrep-win32-x64, version and sha256 pinned there).
WINE_PREFIX ?= $(HOME)/.cache/dsh-bridge/wine
WINE_RG ?= $(HOME)/.cache/dsh-bridge/wine-rg/rg.exe
deps-wine:
	$(call apt,wine:wine64 x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64 npm:npm)
	internal/wine/prefix.sh $(WINE_PREFIX)
	internal/wine/ripgrep.sh $(dir $(WINE_RG))

# test-wine runs the Windows test binaries of the packages that need no
# kernel sandbox under Wine (internal/wine/test.sh), then one ACP session
# of the Windows dsh-bridge.exe under Wine (internal/wine's
# TestWineSession, which fails rather than skips once DSH_WINE_PREFIX is
# set; -count=1: the binaries it builds are invisible to the test cache).
# WINE_SKIP are the tests Wine cannot run (ROUGH_EDGES.md, "Windows and
# Wine"): TestRepoRisks (workspace), TestGitPreimages (checkpoint) and
# TestIgnore_AgreesWithGit (tools) make repositories with git or run it,
# and the prefix has no git.exe; TestManager_RealServers (lsp) runs gopls,
# pyright and typescript-language-server, as TestManager_ImportersNewErrors
# runs gopls, and the prefix has none (nor a
# Windows Node for the last two).
WINE_PKGS := jsonv registry pipeline card store internal/winjob internal/fsprobe workspace permission \
	views model tools checkpoint subagent instructions plan ask commands prompt highlight \
	highlight/chromatok lsp acp internal/folders internal/credentials internal/bufpool \
	internal/batchwrite internal/heapgoal
# TestManager_WritesToAServerThatStopsReadingAreBounded (lsp): under
# Wine a write blocked on a pipe whose reading server was killed is not
# always failed (the whole lsp run failed so 1 time in 3 on 2026-12-08;
# the test alone passed each time); Linux runs it, and real Windows fails
# such a write once the reader's process is gone.
WINE_SKIP := ^(TestRepoRisks|TestGitPreimages|TestIgnore_AgreesWithGit|TestManager_RealServers|TestManager_ImportersNewErrors|TestManager_WritesToAServerThatStopsReadingAreBounded)$$
test-wine: deps-wine
	WINEPREFIX=$(WINE_PREFIX) DSH_WINE_RG=$(WINE_RG) WINE_TEST_FLAGS='-test.skip=$(WINE_SKIP)' internal/wine/test.sh $(WINE_PKGS)
	DSH_WINE_PREFIX=$(WINE_PREFIX) DSH_WINE_RG=$(WINE_RG) $(GO) test -count=1 -timeout 10m -run '^TestWineSession$$' ./internal/wine/

# bench reproduces BENCHMARKS.md.
bench: deps deps-lsp
	$(GO) test -run '^$$' -bench . -benchmem -count 6 ./...

# fuzz runs each fuzz target briefly; FUZZTIME=5m for longer runs.
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./jsonv -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME)
	$(GO) test ./registry -run '^$$' -fuzz FuzzValidate -fuzztime $(FUZZTIME)
	$(GO) test ./permission -run '^$$' -fuzz FuzzAnalyze -fuzztime $(FUZZTIME)

# mutate plants the mutations of internal/devtools/mutate/mutations.json one at a
# time in a copy of the module and reports those no test catches (slow;
# not run by CI; its result is in BENCHMARKS.md).
mutate: deps
	$(GO) run ./internal/devtools/mutate

# mutate-independent plants internal/devtools/mutate/independent.json: mutations written
# from the packages' docs and non-test code by someone who had not read
# the tests (issue 48). Its score is reported apart from mutate's, in
# BENCHMARKS.md.
mutate-independent: deps
	$(GO) run ./internal/devtools/mutate -list internal/devtools/mutate/independent.json
