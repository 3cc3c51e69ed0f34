#!/bin/sh
# check.sh DEADCODE: fails when golang.org/x/tools/cmd/deadcode finds a
# function that no platform's build reaches.
#
# A function is dead when it is unreachable on linux, darwin and windows
# alike (code behind build tags is reached on its own platform only).
#   - From the tests too (-test): nothing may be dead; delete it.
#   - From the programs alone: only what allow.txt names may be dead —
#     test support and API kept for callers outside this module — each
#     with its reason there.
set -eu
deadcode=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"

# dead FLAGS OUT: the functions dead on every platform, as "file name".
dead() {
	flags=$1 out=$2
	for os in linux darwin windows; do # at once: each run is mostly one thread
		{ GOOS=$os GOARCH=amd64 "$deadcode" $flags ./... >"$tmp/$os.raw"; echo $? >"$tmp/$os.rc"; } &
	done
	wait
	for os in linux darwin windows; do
		[ "$(cat "$tmp/$os.rc")" = 0 ] || { echo "deadcode failed for $os"; exit 1; }
		sed -E 's/:[0-9]+:[0-9]+: unreachable func: / /' "$tmp/$os.raw" | sort -u >"$tmp/$os"
	done
	comm -12 "$tmp/linux" "$tmp/darwin" | comm -12 - "$tmp/windows" >"$out"
}

status=0
dead -test "$tmp/tests"
if [ -s "$tmp/tests" ]; then
	echo "deadcode: unreachable even from the tests (delete them):"
	sed 's/^/  /' "$tmp/tests"
	status=1
fi

dead "" "$tmp/programs"
grep -v '^#' "$here/allow.txt" | sed -E 's/[[:space:]]+#.*$//; /^[[:space:]]*$/d' | sort -u >"$tmp/allow"
# An entry names a file and a function, or a folder (every function in it).
awk 'NR==FNR { allow[$0] = 1; next }
	{ file = $1; ok = ($0 in allow)
	  for (d = file; !ok && d ~ /\//; ) { sub(/\/[^\/]*$/, "", d); ok = ((d "/") in allow) }
	  if (!ok) print }' "$tmp/allow" "$tmp/programs" >"$tmp/unallowed"
if [ -s "$tmp/unallowed" ]; then
	echo "deadcode: unreachable from the programs, and not in $here/allow.txt:"
	sed 's/^/  /' "$tmp/unallowed"
	status=1
fi
exit $status
