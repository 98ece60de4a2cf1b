#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The man pages of docs/man:
#   check-man.sh lint REPO      mandoc -T lint exits 0 for every page (docs/cli.md); a reference
#                               to a system page this machine lacks (veth(4) without Debian's
#                               manpages) is the only message let by.
#   check-man.sh options REPO   every long option of a tool's getopt_long table appears in its
#                               page, and every object, verb and keyword of refnicctl's tables.
set -u
mode=$1 repo=$(cd "$2" && pwd -P)
man=$repo/docs/man
if ! command -v mandoc >/dev/null; then
	echo "SKIP: no mandoc (apt-get install mandoc)"
	exit 0
fi
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

lint() {
	local page out status other
	# From docs/man: mandoc finds a referenced page NAME.SECTION in the current directory, so
	# the pages' references to each other resolve before they are installed.
	cd "$man" || return 1
	for page in *.[348]; do
		out=$(mandoc -T lint "$page" 2>&1)
		status=$?
		# "outdated mandoc.db" is a notice that does not change the status.
		out=$(grep -v 'outdated mandoc.db' <<<"$out")
		if [ "$status" -ne 0 ]; then
			other=$(grep -v 'STYLE: referenced manual not found' <<<"$out")
			if [ -n "$other" ] || grep -q 'not found: Xr \(refnic\|librefnic\)' <<<"$out"; then
				fail "mandoc -T lint $page (exit $status): $out"
				continue
			fi
		fi
		echo "ok: $page${out:+ ($out)}"
	done
}

# The long names of a tool's table: {"name", 'x', true} or {"name", 0, false}.
long_options() {
	grep -oE '\{"[a-z][a-z-]*", *('"'"'.'"'"'|0), *(true|false)\}' "$1" |
		sed -E 's/^\{"([^"]*)".*/\1/'
}

options() {
	local tool page text name
	for tool in refnicctl refnic-devmem refnic-bypass; do
		page=$man/$tool.8
		text=$(MANWIDTH=200 mandoc -T ascii -O width=200 "$page" | col -b)
		for name in $(long_options "$repo/tools/$tool/cli.cpp"); do
			grep -q -- "--$name\b" <<<"$text" || fail "$tool.8 lacks --$name"
		done
	done
	# refnicctl's words: objects, verbs and keywords ({"name"} or {"name", {synonyms}}).
	text=$(mandoc -T ascii "$man/refnicctl.8" | col -b)
	for name in $(grep -oE '\{"[a-z][a-z-]*"(\}|, \{)' "$repo/tools/refnicctl/cli.cpp" |
		sed -E 's/^\{"([^"]*)".*/\1/' | sort -u); do
		grep -qw -- "$name" <<<"$text" || fail "refnicctl.8 lacks the word $name"
	done
	# ncdevmem's letters are refnic-devmem's short options.
	text=$(mandoc -T ascii "$man/refnic-devmem.8" | col -b)
	for name in f t q p s v l L n j h V; do
		grep -q -- "-$name\b" <<<"$text" || fail "refnic-devmem.8 lacks -$name"
	done
}

case $mode in
lint) lint ;;
options) options ;;
*) echo "usage: check-man.sh lint|options REPO" >&2; exit 2 ;;
esac
[ "$failures" -eq 0 ] && echo "man pages ($mode): all as expected"
exit "$failures"
