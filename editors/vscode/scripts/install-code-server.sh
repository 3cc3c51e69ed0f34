#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100.3, the newest whose engines
# accept Node 20) into DIR, once: the end-to-end test's real VS Code.
# Traps handled here (see ../shared/editors/testing.md):
#  - its build of native modules needs Debian's build tools and headers
#    (the Makefile's deps-vscode installs them);
#  - @vscode/ripgrep's postinstall downloads rg from GitHub, which is not
#    reachable: its cache is seeded with Debian's rg first;
#  - npm runs install scripts only for packages allowed in package.json
#    (npm 11), and code-server's refuses to run as root without
#    unsafe-perm; npx inside it needs npm_config_yes.
# Usage: scripts/install-code-server.sh DIR
set -euo pipefail
dir="$1"
version=4.100.3
if [ -x "$dir/node_modules/.bin/code-server" ] && "$dir/node_modules/.bin/code-server" --version 2>/dev/null | grep -q "^$version "; then
  exit 0
fi
rg="$(command -v rg)" || { echo "install-code-server: ripgrep (Debian's ripgrep) is needed to seed @vscode/ripgrep's cache" >&2; exit 1; }
seed="$(mktemp -d)"
cp "$rg" "$seed/rg"
tar -C "$seed" -czf "$seed/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg
tmp="${TMPDIR:-/tmp}"
# the version code-server $version bundles, and its neighbours
for v in 1.15.9 1.15.10 1.15.11 1.15.12 1.15.13 1.15.14; do
  mkdir -p "$tmp/vscode-ripgrep-cache-$v"
  cp "$seed/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" "$tmp/vscode-ripgrep-cache-$v/"
done
rm -rf "$seed" "$dir"
mkdir -p "$dir"
cat >"$dir/package.json" <<JSON
{ "private": true, "allowScripts": { "code-server": true, "argon2": true } }
JSON
cd "$dir"
echo "installing code-server $version into $dir (a few minutes, once)"
npm_config_unsafe_perm=true npm_config_yes=true npm install --no-audit --no-fund --loglevel=error "code-server@$version"
# npm 11 may still skip the scripts of a fresh install; run them if so
if ! ./node_modules/.bin/code-server --version >/dev/null 2>&1 || [ ! -d node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin ]; then
  npm_config_unsafe_perm=true npm_config_yes=true npm rebuild --no-audit --loglevel=error
fi
./node_modules/.bin/code-server --version | grep -q "^$version " || { echo "install-code-server: code-server does not run" >&2; exit 1; }
