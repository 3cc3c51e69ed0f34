#!/bin/sh
# ripgrep.sh DIR: puts a real Windows ripgrep at DIR/rg.exe for
# TestWineSession, once. It comes from the npm package
# @vscode/ripgrep-win32-x64 (the per-platform part of @vscode/ripgrep,
# MIT; its bin/rg.exe is ripgrep 15.0.0 for x86_64-pc-windows-msvc; read
# from the registry 2026-12-08), fetched with npm pack and checked
# against the tarball's sha256 below before anything is unpacked.
set -eu
dir=${1%/}
version=1.18.0
sha256=725006b9662fa0f73cb0dc7d62b666524b80cfe125214ca75dab5293ef9e4203
stamp=$dir/rg.exe.$version
if [ -f "$dir/rg.exe" ] && [ -f "$stamp" ]; then
	exit 0
fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent --loglevel=error "@vscode/ripgrep-win32-x64@$version" >/dev/null)
tgz=$tmp/vscode-ripgrep-win32-x64-$version.tgz
if ! echo "$sha256  $tgz" | sha256sum -c --status; then
	echo "ripgrep.sh: @vscode/ripgrep-win32-x64@$version does not have the pinned sha256 $sha256" >&2
	exit 1
fi
tar -xzf "$tgz" -C "$tmp" package/bin/rg.exe
mv "$tmp/package/bin/rg.exe" "$dir/rg.exe"
touch "$stamp"
echo "put ripgrep (npm @vscode/ripgrep-win32-x64@$version) at $dir/rg.exe"
