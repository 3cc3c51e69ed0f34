#!/bin/sh
# prefix.sh PREFIX: makes the Wine prefix the Windows tests run in, once:
# wineboot -i, then bcryptprimitives.dll built from dll/prng.c (Wine 8.0 has
# none, and Go's Windows runtime will not start without its ProcessPrng).
# Quick when the prefix is already made from this dll/prng.c.
set -eu
prefix=$1
here=$(cd "$(dirname "$0")" && pwd)
dll=$prefix/drive_c/windows/system32/bcryptprimitives.dll
if [ -f "$dll" ] && [ "$dll" -nt "$here/dll/prng.c" ]; then
	exit 0
fi
export WINEPREFIX="$prefix" WINEDEBUG=-all
mkdir -p "$prefix"
wineboot -i >/dev/null 2>&1
wineserver -w
x86_64-w64-mingw32-gcc -shared -O2 -o "$prefix/bcryptprimitives.dll.tmp" "$here/dll/prng.c" -ladvapi32
mv "$prefix/bcryptprimitives.dll.tmp" "$dll"
echo "made the Wine prefix $prefix"
