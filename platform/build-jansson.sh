#!/usr/bin/env bash
# build-jansson.sh OUTDIR CC AR TARGET [SOURCE]
#
# Builds jansson as a static library for a C library other than the host's: TARGET "windows"
# (MinGW-w64) or "posix" (musl). SOURCE is the unpacked source package; without it, the source
# package of the distribution this host runs is fetched into OUTDIR (apt-source.sh; no copy of
# jansson is kept in this tree). Leaves OUTDIR/include/{jansson.h,jansson_config.h} and
# OUTDIR/lib/libjansson.a. JANSSON_CFLAGS, when set, is added to every compile (the musl build
# passes the hardening flags its other libraries get: jansson parses untrusted profiles).
set -euo pipefail

out=${1:?usage: build-jansson.sh OUTDIR CC AR TARGET [SOURCE]}
cc=${2:?}
ar=${3:?}
target=${4:?}
src=${5:-}

if [ -f "$out/lib/libjansson.a" ] && [ -f "$out/include/jansson.h" ]; then
	exit 0
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -z "$src" ]; then
	"$(dirname "$0")/apt-source.sh" "$out" jansson
	src=$(find "$out/src" -mindepth 1 -maxdepth 1 -type d -name 'jansson-*' | head -n 1)
fi
if [ -z "$src" ] || [ ! -f "$src/src/jansson.h" ]; then
	echo "build-jansson: the jansson source package did not unpack as expected" >&2
	exit 1
fi
rm -rf "$out/include" "$out/lib" "$out/obj"
mkdir -p "$out/include" "$out/lib" "$out/obj"

# jansson's configure step only generates two small headers; write them for the target
# directly instead of running a cross configure (both are documented by jansson's own
# templates). The hash seed comes from the system's generator: CryptGenRandom on Windows,
# /dev/urandom elsewhere.
sed -e 's/@json_inline@/inline/' \
	-e 's/@json_have_long_long@/1/' \
	-e 's/@json_have_localeconv@/1/' \
	-e 's/@json_have_atomic_builtins@/1/' \
	-e 's/@json_have_sync_builtins@/1/' \
	"$src/src/jansson_config.h.in" >"$out/include/jansson_config.h"
if grep -q '@json_[a-z_]*@' "$out/include/jansson_config.h"; then
	echo "build-jansson: unexpected placeholders left in jansson_config.h:" >&2
	grep '@json_[a-z_]*@' "$out/include/jansson_config.h" >&2
	exit 1
fi
# The private header is for jansson's own sources only: it stays beside the objects.
private=$out/obj/jansson_private_config.h
cat >"$private" <<'CFG'
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_LOCALE_H 1
#define HAVE_SETLOCALE 1
#define HAVE_ATOMIC_BUILTINS 1
#define HAVE_SYNC_BUILTINS 1
#define INITIAL_HASHTABLE_ORDER 3
CFG
case $target in
windows)
	echo '#define USE_WINDOWS_CRYPTOAPI 1' >>"$private"
	defs=(-DJANSSON_STATIC)
	;;
posix)
	cat >>"$private" <<'CFG'
#define HAVE_UNISTD_H 1
#define HAVE_FCNTL_H 1
#define HAVE_SCHED_H 1
#define HAVE_SYS_PARAM_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_ENDIAN_H 1
#define HAVE_OPEN 1
#define HAVE_CLOSE 1
#define HAVE_READ 1
#define HAVE_GETPID 1
#define HAVE_GETTIMEOFDAY 1
#define HAVE_SCHED_YIELD 1
#define USE_URANDOM 1
CFG
	defs=(-fPIE)
	;;
*)
	echo "build-jansson: unknown target $target (windows or posix)" >&2
	exit 2
	;;
esac
cp "$src/src/jansson.h" "$out/include/"

objs=()
for c in "$src"/src/*.c; do
	o=$out/obj/$(basename "$c" .c).o
	# shellcheck disable=SC2086 # JANSSON_CFLAGS is a list of flags
	"$cc" -O2 ${JANSSON_CFLAGS:-} -DHAVE_CONFIG_H "${defs[@]}" -I"$out/obj" -I"$out/include" -I"$src/src" \
		-c "$c" -o "$o"
	objs+=("$o")
done
"$ar" rcs "$out/lib/libjansson.a" "${objs[@]}"
echo "build-jansson: built $(basename "$src") into $out/lib/libjansson.a"
