#!/usr/bin/env bash
# build-jansson.sh OUTDIR CC AR
#
# Cross-builds jansson as a static library for the Windows build, from the source package of the
# distribution this host runs (no copy of jansson is kept in this tree). Leaves
# OUTDIR/include/{jansson.h,jansson_config.h} and OUTDIR/lib/libjansson.a.
#
# The source package needs a deb-src index. Rather than editing the system's apt configuration,
# this writes a private one under OUTDIR/apt: every "deb" source the system already uses is
# repeated as "deb-src", and apt is pointed at those files and at a private lists directory.
set -euo pipefail

out=${1:?usage: build-jansson.sh OUTDIR CC AR}
cc=${2:?}
ar=${3:?}

if [ -f "$out/lib/libjansson.a" ] && [ -f "$out/include/jansson.h" ]; then
	exit 0
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
apt_dir=$out/apt
rm -rf "$apt_dir" "$out/src"
mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" \
	"$out/src" "$out/include" "$out/lib"

# deb822 files: a stanza whose Types include "deb" gets "deb-src" instead.
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	sed -E 's/^Types:.*\bdeb\b.*$/Types: deb-src/' "$f" >"$apt_dir/sources.list.d/$(basename "$f")"
done
# One-line files: each "deb ..." line becomes "deb-src ...".
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	sed -nE 's/^[[:space:]]*deb[[:space:]]+/deb-src /p' "$f" \
		>"$apt_dir/sources.list.d/$(basename "$f" | tr '/' '_').list"
done

apt_opts=(
	-o "Dir::Etc::SourceList=/dev/null"
	-o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
	-o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::Cache=$apt_dir/cache"
	-o "APT::Sandbox::User=root"
)
echo "build-jansson: fetching the jansson source package (apt-get source jansson)"
apt-get -qq "${apt_opts[@]}" update
(cd "$out/src" && apt-get -qq "${apt_opts[@]}" source jansson >/dev/null)

src=$(find "$out/src" -mindepth 1 -maxdepth 1 -type d -name 'jansson-*' | head -n 1)
if [ -z "$src" ] || [ ! -f "$src/src/jansson.h" ]; then
	echo "build-jansson: the jansson source package did not unpack as expected" >&2
	exit 1
fi

# jansson's configure step only generates two small headers; write them for MinGW-w64 directly
# instead of running a cross configure (both are documented by jansson's own templates).
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
cat >"$src/src/jansson_private_config.h" <<'CFG'
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_LOCALE_H 1
#define HAVE_SETLOCALE 1
#define HAVE_ATOMIC_BUILTINS 1
#define HAVE_SYNC_BUILTINS 1
#define USE_WINDOWS_CRYPTOAPI 1
#define INITIAL_HASHTABLE_ORDER 3
CFG
cp "$src/src/jansson.h" "$out/include/"

objs=()
mkdir -p "$out/obj"
for c in "$src"/src/*.c; do
	o=$out/obj/$(basename "$c" .c).o
	"$cc" -O2 -DHAVE_CONFIG_H -DJANSSON_STATIC -I"$out/include" -I"$src/src" -c "$c" -o "$o"
	objs+=("$o")
done
rm -f "$out/lib/libjansson.a"
"$ar" rcs "$out/lib/libjansson.a" "${objs[@]}"
echo "build-jansson: built $(basename "$src") into $out/lib/libjansson.a"
