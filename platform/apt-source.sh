#!/usr/bin/env bash
# apt-source.sh DIR PACKAGE...
#
# Fetches and unpacks the source packages of the distribution this host runs into DIR/src (one
# directory per package, with the distribution's patches applied by dpkg-source): the builds
# that need a library compiled for another target (the Windows build's jansson, the musl
# build's jansson, libseccomp and libcap) take its sources from there, and no copy of them is
# kept in this tree.
#
# A source package needs a deb-src index. Rather than editing the system's apt configuration,
# this writes a private one under DIR/apt: every "deb" source the system already uses is
# repeated as "deb-src", and apt is pointed at those files and at a private lists directory.
set -euo pipefail

out=${1:?usage: apt-source.sh DIR PACKAGE...}
shift
[ $# -gt 0 ] || { echo "usage: apt-source.sh DIR PACKAGE..." >&2; exit 2; }

if ! command -v apt-get >/dev/null || ! command -v dpkg-source >/dev/null; then
	echo "apt-source: apt-get and dpkg-source (dpkg-dev) are needed to fetch $*" >&2
	exit 1
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
apt_dir=$out/apt
rm -rf "$apt_dir" "$out/src"
mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" \
	"$out/src"

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
	-o "Acquire::Retries=3"
)
echo "apt-source: fetching the source packages: apt-get source $*"
apt-get -qq "${apt_opts[@]}" update
(cd "$out/src" && apt-get -qq "${apt_opts[@]}" source "$@" >/dev/null)
