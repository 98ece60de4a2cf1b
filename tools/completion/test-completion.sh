#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The bash completion of the tools, with bash-completion loaded as an interactive shell has it:
# what a few partial command lines complete to.
# Usage: test-completion.sh COMPLETION_DIR
set -u
dir=$1
bc=/usr/share/bash-completion/bash_completion
if [ ! -r "$bc" ]; then
	echo "SKIP: no $bc (apt-get install bash-completion)"
	exit 0
fi
# shellcheck source=/dev/null
. "$bc"
for f in refnicctl refnic-devmem refnic-bypass refnic-ethtool; do
	# shellcheck source=/dev/null
	. "$dir/$f"
done
failures=0

# expect "WANT" WORD...: completing the last WORD gives exactly WANT (sorted, space-separated).
expect() {
	local want=$1
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	local fn
	fn=$(complete -p "$1" 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
	"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	local got
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" != "$want" ]; then
		echo "FAIL: $*: got '$got', want '$want'"
		failures=$((failures + 1))
	fi
}

expect "fault" refnicctl f
expect "set show" refnicctl fault s
# "dev s" is set or show: no verb, so no keywords of either.
expect "" refnicctl dev s r0 ""
expect "tcp-data-split" refnicctl dev se r0 ""
expect "tcp-data-split" refnic-ethtool -G eth0 tcp
expect "auto off on" refnic-ethtool -G eth0 tcp-data-split ""
expect "" refnic-ethtool -G eth0 tcp-data-split on rx 512 tcp
expect "echo rx tx" refnic-bypass help ""
expect "" refnicctl link de r0 ""
expect "add del help set show" refnicctl dev ""
expect "latency loss" refnicctl link set r0 l
expect "name netns" refnicctl dev add n
expect "auto off on" refnicctl dev set r0 tcp-data-split ""
expect "stall-rxq stall-txq" refnicctl fault set r0 stall
expect "stall-rxq stall-txq" refnicctl fault set dev r0 stall
expect "latency loss" refnicctl link set dev r0 l
expect "--pretty" refnicctl --pr
expect "bus dev fault help link monitor ring stats top" refnicctl ""
expect "help set show" refnicctl bus ""
expect "gen lanes node read-ns remote-ns" refnicctl bus set r0 ""
expect "read-ns remote-ns" refnicctl bus set dev r0 r
expect "0 3 4 5" refnicctl bus set r0 lanes 8 gen ""
expect "1 16" refnicctl bus se r0 lanes 1
expect "none" refnicctl bus set r0 node n
expect "" refnicctl bus set r0 read-ns ""
expect "" refnicctl bus show r0 ""
expect "count interval once" refnicctl top r0 ""
expect "count once" refnicctl top r0 interval 2 ""
expect "interval" refnicctl top r0 once ""
expect "interval" refnicctl top r0 int
expect "help show" refnicctl ring ""
expect "queue" refnicctl ring show r0 ""
expect "svg" refnicctl ring show r0 1 ""
expect "" refnicctl ring show r0 queue ""
expect "svg" refnicctl ring show r0 queue 1 ""
expect "" refnicctl ring show r0 1 svg x.svg ""
expect "--size --src-ip --src-mac --src-port" refnic-bypass tx --s
expect "--server" refnic-devmem rx --se
expect "rx" refnic-devmem r
expect "help rx tx zcrx" refnic-devmem ""
expect "--bytes" refnic-devmem tx --b
expect "" refnic-devmem tx --rel
expect "--refill-batch --refill-garbage" refnic-devmem zcrx --ref
expect "--refill-garbage" refnic-devmem zcrx --refill-g
expect "--release" refnic-devmem rx --rel
expect "" refnic-devmem zcrx --rel
expect "batched per-frag" refnic-devmem rx --release ""
expect "echo" refnic-bypass e
expect "--verify --version" refnic-bypass rx --v

[ "$failures" -eq 0 ] && echo "completion: all as expected"
exit "$failures"
