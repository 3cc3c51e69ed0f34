#!/bin/sh
# test.sh PKG…: builds the Windows (amd64) test binaries of the packages
# and runs each under Wine in its package's folder. WINEPREFIX must name a
# prefix made by prefix.sh; DSH_WINE_RG, when set, names a Windows rg.exe
# (ripgrep.sh puts one) whose folder goes on the binaries' PATH. Exits
# non-zero when any binary fails.
#
# The binaries are built with an overlay of one file of Go's standard
# library: Wine 8.0 answers the delete Go tries first (POSIX semantics,
# FileDispositionInformationEx) with STATUS_NOT_IMPLEMENTED, where Windows
# before 10 1607 answers STATUS_INVALID_INFO_CLASS, and Go falls back to
# the older delete only for the latter. Without it os.RemoveAll fails, and
# with it every test's t.TempDir cleanup. The overlay adds Wine's status
# to the fallback's cases; nothing else changes, and nothing shipped is
# built with it.
set -eu
: "${WINEPREFIX:?set WINEPREFIX (make deps-wine makes one)}"
export WINEDEBUG=-all GOOS=windows GOARCH=amd64 CGO_ENABLED=0
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${WINE_TEST_DIR:-${TMPDIR:-/tmp}/dsh-bridge-wine-test}
mkdir -p "$out"

src=$(go env GOROOT)/src/internal/syscall/windows/at_windows.go
sed 's|STATUS_NOT_SUPPORTED: |STATUS_NOT_SUPPORTED, NTStatus(0xC0000002):|' "$src" >"$out/at_windows.go"
overlay=
if ! cmp -s "$src" "$out/at_windows.go"; then
	printf '{"Replace":{"%s":"%s"}}\n' "$src" "$out/at_windows.go" >"$out/overlay.json"
	overlay=-overlay=$out/overlay.json
fi

cd "$root"
pkgs=
for p in "$@"; do pkgs="$pkgs ./$p"; done
# shellcheck disable=SC2086 # the package list and the overlay flag split
go test -c $overlay -o "$out/" $pkgs
# The helpers some packages' tests start (proctest.MainWithHelper), built
# here: there is no Go toolchain under Wine.
go build -o "$out/helpers/" ./cmd/dsh-highlight ./cmd/dsh-code ./cmd/dsh-markdown ./internal/lsptest/fakels ./lsp/testdata/hostilels
go build -o "$out/helpers/red2hostile.exe" ./lsp/redteam2/hostile
export DSH_TEST_HELPERS="Z:$out/helpers"
if [ -n "${DSH_WINE_RG:-}" ]; then
	export WINEPATH="Z:$(dirname "$DSH_WINE_RG")"
fi

failed=
for p in "$@"; do
	exe=$out/$(basename "$p").test.exe
	echo "== wine $p"
	if ! (cd "$root/$p" && timeout 600 wine "$exe" -test.timeout=5m ${WINE_TEST_FLAGS:-}); then
		failed="$failed $p"
	fi
done
wineserver -w
if [ -n "$failed" ]; then
	echo "FAIL under Wine:$failed"
	exit 1
fi
