#!/usr/bin/env bash
# musl-deps.sh OUTDIR
#
# Builds jansson, libseccomp and libcap as static, position-independent libraries for musl
# (musl-gcc), from the source packages of the distribution this host runs (apt-source.sh: no
# copy of them is kept in this tree), and installs them into OUTDIR/include and OUTDIR/lib.
# OUTDIR/kernel holds the kernel's user-space headers (linux-libc-dev) and nothing else: musl's
# compiler must not see glibc's /usr/include. OUTDIR/bin/musl-cc is the compiler to use: the
# distribution's musl-gcc with -static-pie made to work (below). OUTDIR/versions names what was
# built; it is written last, so its presence says the rest is complete.
#
# Why musl: every run starts two programs from sbxrun's binary, and glibc's start identifies the
# processor (cpuid), which traps to the hypervisor on virtual machines (tests/bench/README.md).
set -euo pipefail

out=${1:?usage: musl-deps.sh OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)

if [ -f "$out/versions" ]; then
	exit 0
fi
for tool in musl-gcc gcc gperf make ar; do
	if ! command -v "$tool" >/dev/null; then
		echo "musl-deps: $tool is missing" >&2
		exit 1
	fi
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/bin" "$out/kernel" "$out/include" "$out/lib" "$out/build"
mkdir -p "$out/bin" "$out/kernel" "$out/include/sys" "$out/lib" "$out/build"

# musl-gcc is gcc with a specs file that puts musl's headers, start files and libraries in
# place of glibc's. Its link rule knows -static but not -static-pie (which needs musl's
# self-relocating start file, rcrt1.o, and no program interpreter); the copy made here adds
# that, and the wrapper gives it to the system's gcc.
specs=$(sed -nE 's/.*-specs[ =]"?([^" ]+)"?.*/\1/p' "$(command -v musl-gcc)" | head -n 1)
if [ ! -f "$specs" ]; then
	echo "musl-deps: cannot find the specs file musl-gcc uses" >&2
	exit 1
fi
static_pie='-static -pie --no-dynamic-linker -z text'
sed -E -e 's#%\{!shared: ([^ ]*)/Scrt1\.o\}#%{static-pie:\1/rcrt1.o;!shared:\1/Scrt1.o}#' \
	-e "s#^-dynamic-linker ([^ ]*)#%{!static-pie:-dynamic-linker \\1} %{static-pie:$static_pie}#" \
	"$specs" >"$out/musl.specs"
if ! grep -q 'rcrt1\.o' "$out/musl.specs" || ! grep -q 'no-dynamic-linker' "$out/musl.specs"; then
	echo "musl-deps: $specs is not laid out as expected; -static-pie cannot be added" >&2
	exit 1
fi
cc=$out/bin/musl-cc
printf '#!/bin/sh\nexec gcc "$@" -specs "%s"\n' "$out/musl.specs" >"$cc"
chmod +x "$cc"

# The kernel's headers: linux/ and asm-generic/ are the same for every architecture, asm/ is
# the architecture's own (Debian keeps it under the multiarch directory).
multiarch=$(gcc -print-multiarch 2>/dev/null || true)
asm=/usr/include/$multiarch/asm
[ -d "$asm" ] || asm=/usr/include/asm
if [ ! -f /usr/include/linux/capability.h ] || [ ! -f /usr/include/asm-generic/types.h ] ||
	[ ! -d "$asm" ]; then
	echo "musl-deps: the kernel's headers (linux-libc-dev) are missing" >&2
	exit 1
fi
ln -s /usr/include/linux "$out/kernel/linux"
ln -s /usr/include/asm-generic "$out/kernel/asm-generic"
ln -s "$asm" "$out/kernel/asm"

"$here/apt-source.sh" "$out" jansson libseccomp libcap2
srcdir() {
	local d
	d=$(find "$out/src" -mindepth 1 -maxdepth 1 -type d -name "$1-*" | head -n 1)
	if [ -z "$d" ]; then
		echo "musl-deps: the $1 source package did not unpack" >&2
		exit 1
	fi
	echo "$d"
}
jansson=$(srcdir jansson)
seccomp=$(srcdir libseccomp)
cap=$(srcdir libcap2)

# Position independent code: sbxrun is linked -static-pie, so that ASLR still holds.
copts="-O2 -g -fPIE -fstack-protector-strong -isystem $out/kernel"

JANSSON_CFLAGS="-g -fPIE -fstack-protector-strong" \
	"$here/build-jansson.sh" "$out/build/jansson" "$cc" ar posix "$jansson"
cp "$out/build/jansson/include/jansson.h" "$out/build/jansson/include/jansson_config.h" \
	"$out/include/"
cp "$out/build/jansson/lib/libjansson.a" "$out/lib/"

echo "musl-deps: building $(basename "$seccomp")"
mkdir -p "$out/build/libseccomp"
(cd "$out/build/libseccomp" &&
	CC=$cc CFLAGS=$copts "$seccomp/configure" --quiet --disable-shared --enable-static \
		--with-pic --disable-python >/dev/null &&
	make -s -C src AR_FLAGS=cr libseccomp.la >/dev/null)
cp "$out/build/libseccomp/src/.libs/libseccomp.a" "$out/lib/"
cp "$out/build/libseccomp/include/seccomp.h" "$seccomp/include/seccomp-syscalls.h" \
	"$out/include/"

# libcap builds in its source tree; the helper that writes its table of names runs on this
# host, so it is compiled by the host's compiler.
echo "musl-deps: building $(basename "$cap")"
make -s -C "$cap/libcap" CC="$cc" BUILD_CC=gcc SHARED=no GOLANG=no PAM_CAP=no \
	COPTS="$copts" libcap.a >/dev/null
cp "$cap/libcap/libcap.a" "$out/lib/"
cp "$cap/libcap/include/sys/capability.h" "$out/include/sys/"

# What a static binary carries, for a package's Built-Using: the four source packages.
built=$(dpkg-query -W -f='${source:Package} (= ${source:Version})' musl-dev)
for dsc in "$out"/src/*.dsc; do
	built="$built, $(sed -n 's/^Source: //p' "$dsc") (= $(sed -n 's/^Version: //p' "$dsc"))"
done
echo "$built" >"$out/built-using"
printf '%s\n' "$(basename "$jansson")" "$(basename "$seccomp")" "$(basename "$cap")" \
	>"$out/versions.tmp"
mv "$out/versions.tmp" "$out/versions"
echo "musl-deps: jansson, libseccomp and libcap for musl in $out"
