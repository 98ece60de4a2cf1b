#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Linux 7.3's own driver selftests (tools/testing/selftests/drivers/net and
# drivers/net/hw, built by `scripts/upstream-selftests.sh 7.3`) in the QEMU VM
# on Debian's 7.3 kernel, against netdevsim or a refnic pair, counted per
# case: every inner "ok N name" / "not ok" / "# SKIP" of a test file is one
# result.
#
#   run_7.3.sh [options] netdevsim|refnic [LIST...]
#
# LIST: case lists, one test file a line, "PATH TIMEOUT MODE [ARG...]" (default
# selftests/upstream/7.3/drivers-net.list and hw.list). Each list is a batch:
# one VM run of its own (a VM that dies or hangs is restarted after the file
# that was running). PATH is relative to the installed kselftest dir
# (drivers/net/ping.py); TIMEOUT in seconds for the whole file (0: the
# default); MODE how the device under test is given to the test:
#   auto  netdevsim: NETIF unset, the python lib makes its own netdevsim pair
#         (upstream's "SW mode"; netdevsim-only cases run, nsim_test=False
#         files XFAIL). refnic: same as pair.
#   pair  a fresh pair per file: the device under test (dut0) in the initial
#         namespace, its peer (peer0) in namespace ksft-peer-PID, linked
#         (netdevsim: /sys/bus/netdevsim/link_device; refnic: `ip link add
#         dut0 type refnic queues Q peer name peer0 netns NS`), 192.0.2.1/24 +
#         2001:db8::1/64 and .2/::2, and NETIF, LOCAL_V4/V6, REMOTE_V4/V6,
#         REMOTE_TYPE=netns, REMOTE_ARGS=NS in the environment ("HW mode").
#         The peer routes LOCAL_PREFIX_V6 to the DUT (netkit tests need it).
#   loop  forwarding-lib scripts (NETIFS p1 p2 as arguments): a pair of which
#         both ends stay in the initial namespace, a back-to-back cable.
#   skip:REASON  not run, counted as one SKIP with REASON.
# ARGs go to the test: the python tests take ksft's case filters, -t NAME to
# run only NAME, -T NAME to leave it out (NAME without the file's prefix:
# check_rx, test.lro_*; shell patterns allowed). An ARG retry:NAME:ERE is
# the runner's (NAME a pattern as -t takes it, ERE an extended regex
# without spaces): when every case that failed matches a NAME, each failed
# only "Check failed" lines that match its ERE (no exception), the file did
# not time out and the kernel logged nothing bad, those cases run once
# more (-t each, after the line's other ARGs) on a fresh pair with a fresh
# random RSS key (MODE pair only). A pass then counts as a pass, its reason
# naming the first failure; anything else fails, naming both. For checks
# that are statistical (the list says why each has it), never to hide a
# bug: the logs keep both runs (FILE.log, FILE.retry.log).
# Every file also gets KSFT_MACHINE_SLOW=yes, LOCAL_PREFIX_V6=2001:db8:2::/64
# and INTERFACE_TIMEOUT=30 (UPSTREAM_73_INTERFACE_TIMEOUT: the forwarding
# lib's wait for a port's "state UP", 600 s by default).
# On refnic, a few files get more of their pair than the defaults, set up
# by refnic_file_setup after make_pair and gone with the pair: gro.py and
# gro_hw.py GRO windows that span their bursts under TCG, gro_hw.py a peer
# that sends in order.
#
# Options:
#   --out DIR          results and logs (default build/upstream-7.3/run-TARGET-DATE)
#   --filter RE        only files whose PATH matches the extended regex RE
#   --cpus N           vCPUs (default 4: several tests want >= 4 queues/CPUs)
#   --mem MB           (default 3072)
#   --queues N         queues of the pair's devices (default 4)
#   --reparse OUT      no run: rebuild OUT/results.tsv from OUT/logs (after a
#                      change to the parser) and print the KTAP again
# Environment:
#   UPSTREAM_73_KSFT      installed selftests (default build/upstream-7.3/kselftest)
#   UPSTREAM_73_NSIM_KO   netdevsim.ko (default build/upstream-7.3/netdevsim/netdevsim.ko)
#   UPSTREAM_73_VMLINUX   7.3 ELF vmlinux, and
#   UPSTREAM_73_MODULES   its modules dir, depmod'ed (defaults: VMLINUX and MODULES
#                         of `scripts/kernel.sh 7.3`, else /tmp/t73/vmlinux and
#                         /tmp/t73/mods/lib/modules/7.3.4+deb13-amd64)
#   REFNIC_KO             refnic.ko built for 7.3 (target refnic)
#   IP_LIB_DIR            dir with the iproute2 plugin link_refnic.so (target refnic,
#                         default build/iproute2)
#   UPSTREAM_73_TRACE=1   run the shell tests under bash -x (their logs show where
#                         they stall)
#   REFNIC_TIMEOUT_SCALE  multiplies every TIMEOUT (make check sets 2 when two VMs
#                         share the host)
#
# Output on stdout: KTAP, one line per case, named FILE:CASE
# ("ok 3 drivers/net/ping.py:ping.test_v6", "... # SKIP reason", "not ok ...
# # reason"): scripts/check.sh's count_ktap counts it. XFAIL cases print as
# SKIP with "XFAIL" leading the reason. A file without any case result (crash,
# timeout, import error) is one line named after the file; a kernel warning
# while a file ran adds a failing case FILE:kernel_log. Also written:
#   OUT/results.tsv   FILE<TAB>CASE<TAB>pass|fail|skip|xfail<TAB>REASON
#   OUT/files.tsv     FILE<TAB>EXIT<TAB>SECONDS  per test file
#   OUT/batches.tsv   LIST<TAB>SECONDS  wall time per VM batch (host side)
#   OUT/logs/*.log    each file's full output and the kernel log during it
# Exit 0 when no case failed, 1 otherwise.
#
# PATH in the guest: BUILD/tools/bin (scripts/upstream-tools.sh: ethtool 7.2,
# iproute2 7.3) first, then the system's; BUILD/bin (refnic-ethtool as
# "ethtool") is NOT on it, so the real ethtool wins. The refnic pair is made
# with Debian's /sbin/ip and the plugin in IP_LIB_DIR; the tests' ip runs
# without IP_LIB_DIR.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${REFNIC_BUILD:-$repo/build}

guest=0
if [ "${1:-}" = --guest ]; then
	guest=1
	shift
fi

out='' filter='' cpus=4 mem=3072 queues=4 reparse_dir=''
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--filter) filter=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--queues) queues=$2; shift 2 ;;
	--reparse) reparse_dir=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run_7.3.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
target=${1:-}
[ -n "$reparse_dir" ] && target=${target:-netdevsim}
case $target in
netdevsim | refnic) shift ;;
*) echo "usage: run_7.3.sh [options] netdevsim|refnic [LIST...]" >&2; exit 2 ;;
esac

ksft=${UPSTREAM_73_KSFT:-$build/upstream-7.3/kselftest}
nsim_ko=${UPSTREAM_73_NSIM_KO:-$build/upstream-7.3/netdevsim/netdevsim.ko}
tools_bin=$build/tools/bin

# Files of a list: "PATH TIMEOUT MODE", comments and blank lines dropped.
list_files() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$@" |
		awk -v s="${REFNIC_TIMEOUT_SCALE:-1}" '{ l = $1 " " ($2 ? $2 : 300) * s " " ($3 ? $3 : "pair")
			for (i = 4; i <= NF; i++) l = l " " $i
			print l }' |
		{ if [ -n "$filter" ]; then grep -E -- "^[^ ]*($filter)" || true; else cat; fi }
}

# Kernel log lines that fail the file that was running.
dmesg_bad='WARNING:|BUG:|Oops|general protection fault|kernel BUG|refcount_t:|'
dmesg_bad+='possible circular locking|inconsistent lock state|suspicious RCU usage|'
dmesg_bad+='KASAN|UBSAN|stalled pool shutdown|unregister_netdevice: waiting|'
dmesg_bad+='blocked for more than|soft lockup|list_add corruption|list_del corruption'

# parse FILE LOG RC: the TSV rows of one file's output.
parse() {
	awk -v file="$1" -v rc="$3" -F'\t' '
	function emit(name, st, why) {
		gsub(/[\t\r]/, " ", why); sub(/^ +/, "", why); sub(/ +$/, "", why)
		if (length(why) > 200) why = substr(why, 1, 200) "..."
		printf "%s\t%s\t%s\t%s\n", file, name, st, why
		n++
	}
	{ line = $0; sub(/\r$/, "", line) }
	# python: diagnostics of the case that is running
	line ~ /^# Exception\| / {
		x = substr(line, 14)
		if (x ~ /^CMD(\[[a-z]+\])?: / && excmd == "") {
			# a failed command: its words without paths, cut short
			excmd = x; sub(/^CMD(\[[a-z]+\])?: /, "", excmd)
			gsub(/[^ ]*\//, "", excmd)
			if (length(excmd) > 60) excmd = substr(excmd, 1, 60) "..."
			instderr = 0
		} else if (x ~ /^  STDERR: ./ && exerr == "") {
			# its stderr: the last line says most (the error after any chatter)
			errl = x; sub(/^  STDERR: /, "", errl); instderr = 1
		} else if (instderr && x ~ /^          ./) {
			errl = x; sub(/^ +/, "", errl)
		} else {
			if (instderr) { exerr = errl; gsub(/[^ ]*\//, "", exerr) }
			instderr = 0
			if (x !~ /^(Traceback|  |$)/ && exc == "") exc = x
		}
		next
	}
	line ~ /^# Check failed/ { if (chk == "") chk = substr(line, 3); next }
	line ~ /^#/ { last = substr(line, 3); next }
	match(line, /^(not )?ok [0-9]+ /) {
		rest = substr(line, RLENGTH + 1)
		name = rest; why = ""
		i = index(rest, " # ")
		if (i) { name = substr(rest, 1, i - 1); why = substr(rest, i + 3) }
		if (line ~ /^not ok/) {
			if (exc != "") {
				sub(/^[a-z_.]*\./, "", exc)   # net.lib.py.utils.CmdExitFailure -> CmdExitFailure
				if (exc ~ /^CmdExitFailure/ && excmd != "") exc = exc ": " excmd
				if (exc ~ /^CmdExitFailure/ && exerr != "") exc = exc ": " exerr
			}
			if (why == "") why = (chk != "" ? chk : exc)
			emit(name, "fail", why)
		} else if (why ~ /^SKIP/) {
			sub(/^SKIP:? */, "", why); emit(name, "skip", why)
		} else if (why ~ /^XFAIL/) {
			sub(/^XFAIL:? */, "", why); emit(name, "xfail", why)
		} else emit(name, "pass", "")
		exc = ""; chk = ""; excmd = ""; exerr = ""; instderr = 0
		next
	}
	# forwarding lib: "TEST: name   [ OK ]", a reason on the next line
	match(line, /^TEST: .*\[ *(OK|FAIL|SKIP|XFAIL) *\]$/) {
		if (pend != "") emit(pend, pst, "")
		name = line; sub(/^TEST: /, "", name); sub(/ *\[[^]]*\]$/, "", name)
		gsub(/  +/, " ", name); gsub(/ /, "_", name)
		st = line; sub(/.*\[ */, "", st); sub(/ *\]$/, "", st)
		pst = (st == "OK" ? "pass" : st == "FAIL" ? "fail" : st == "SKIP" ? "skip" : "xfail")
		pend = name
		next
	}
	pend != "" && line ~ /^\t/ { w = line; sub(/^\t/, "", w); emit(pend, pst, w); pend = ""; next }
	pend != "" { emit(pend, pst, ""); pend = "" }
	line !~ /^[[:space:]]*$/ && line !~ /^(TAP|KTAP) version|^1\.\./ { last = line }
	END {
		if (pend != "") emit(pend, pst, "")
		if (rc == 124 || rc == 137) {
			emit(file, "fail", "timed out" (n ? " after " n " cases" : ""))
		} else if (n == 0) {
			if (rc == 4) emit(file, "skip", last)
			else if (rc == 0) emit(file, "fail", "no results, exit 0: " last)
			else emit(file, "fail", "exit " rc ": " last)
		}
	}' "$2"
}

# reparse OUT: results.tsv again from OUT/logs and OUT/files.tsv (after a
# change to parse, say), rows in files.tsv order.
reparse() {
	local o=$1 path rc secs log
	while IFS=$'\t' read -r path rc secs; do
		log=$o/logs/$(echo "$path" | tr '/' '_').log
		if [ "$secs" = - ]; then
			printf '%s\t%s\t%s\t%s\n' "$path" "$path" fail "VM ended (exit $rc) while it ran"
			continue
		fi
		if [ ! -f "$log" ]; then # skip:REASON entries have no log
			grep -F "$path"$'\t'"$path"$'\t'skip "$o/results.tsv" || true
			continue
		fi
		file_rows "$path" "$log" "$rc"
		sed -n '/^=== kernel log$/,$p' "$log" | grep -E -m1 "$dmesg_bad" | cut -c1-150 |
			sed "s|^|$path\tkernel_log\tfail\t|"
	done <"$o/files.tsv" >"$o/results.tsv.new"
	mv -f "$o/results.tsv.new" "$o/results.tsv"
}

# file_rows PATH LOG RC: the rows of a file's run (LOG, exit RC) and, if
# some of its cases ran again, merged with those of the retry (its log
# beside LOG, whose header names them and the retry's exit).
file_rows() {
	local retry_log=${2%.log}.retry.log retry_rc retried
	if [ ! -f "$retry_log" ]; then
		parse "$1" "$2" "$3"
		return
	fi
	retry_rc=$(sed -n 's/^# retry exit: //p' "$retry_log")
	retried=$(sed -n 's/^# retry of: //p' "$retry_log")
	merge_retry <(parse "$1" "$2" "$3") <(parse "$1" "$retry_log" "${retry_rc:-1}") "$retried"
}

# merge_retry FIRST SECOND CASES: the rows of a file's run (FIRST) with
# the CASES (names as in the rows, space-separated) that failed there and
# ran again (SECOND): a pass there passes; a skip, a fail or no result at
# all (the retry's setup failed, it timed out) fails, saying so.
merge_retry() {
	awk -F'\t' -v OFS='\t' -v cases="$3" '
	BEGIN { n = split(cases, c, " "); for (i = 1; i <= n; i++) retried[c[i]] = 1 }
	FILENAME == ARGV[1] {
		if ($2 == $1) whole = $4   # the retry as a whole: setup, timeout, crash
		else { st[$2] = $3; why[$2] = $4 }
		next
	}
	$3 == "fail" && ($2 in retried) {
		if (!($2 in st))   # (a test of st[$2] would create it)
			$4 = $4 " (its second run gave no result: " (whole != "" ? whole : "none") ")"
		else if (st[$2] == "pass") {
			$3 = "pass"
			$4 = "passed on its second run; the first failed: " $4
		} else
			$4 = "failed, then " st[$2] " on its second run" \
				(why[$2] != "" ? ": " why[$2] : "") " (the first: " $4 ")"
	}
	{ print }' "$2" "$1"
}

# report OUT: KTAP on stdout (and in OUT/ktap) from OUT/results.tsv, numbered
# over all batches; false if a case failed.
report() {
	local o=$1
	awk -F'\t' '{
		n++
		name = $1 ($2 == $1 ? "" : ":" $2)
		r = $4; gsub(/#/, "", r)
		if ($3 == "pass" && r ~ /^passed on its second run/) print "# " name ": " r
		if ($3 == "pass") print "ok " n " " name
		else if ($3 == "skip") print "ok " n " " name " # SKIP " r
		else if ($3 == "xfail") print "ok " n " " name " # SKIP XFAIL " r
		else print "not ok " n " " name " # " r
	} END { print "1.." n }' "$o/results.tsv" | tee -a "$o/ktap"
	awk -F'\t' '{ c[$3]++ } END {
		printf "# Totals: pass:%d fail:%d xfail:%d skip:%d\n", c["pass"], c["fail"], c["xfail"], c["skip"]
	}' "$o/results.tsv" | tee -a "$o/ktap"
	echo "# results: $o/results.tsv"
	awk -F'\t' '$3 == "fail" { f = 1 } END { exit f }' "$o/results.tsv"
}

###############################################################################
# Host half: one VM run per list (batch), restarted after a crash.
###############################################################################
host_main() {
	[ $# -gt 0 ] || set -- "$here/7.3/drivers-net.list" "$here/7.3/hw.list"
	first() {
		local d
		for d in "$@"; do [ -e "$d" ] && { echo "$d"; return; }; done
		echo "$1"
	}
	# scripts/kernel.sh names the files `make deps KERNEL=7.3` set up.
	k73() { REFNIC_BUILD="$build" "$repo/scripts/kernel.sh" --get "$1" 7.3 2>/dev/null || echo /nonexistent; }
	vmlinux=${UPSTREAM_73_VMLINUX:-$(first "$(k73 VMLINUX)" /tmp/t73/vmlinux)}
	modules=${UPSTREAM_73_MODULES:-$(first "$(k73 MODULES)" /tmp/t73/mods/lib/modules/7.3.4+deb13-amd64)}
	[ -r "$vmlinux" ] || { echo "run_7.3.sh: no 7.3 vmlinux at $vmlinux" >&2; exit 2; }
	[ -f "$ksft/run_kselftest.sh" ] || { echo "run_7.3.sh: no selftests in $ksft (scripts/upstream-selftests.sh 7.3)" >&2; exit 2; }
	[ -x "$tools_bin/ethtool" ] || { echo "run_7.3.sh: no $tools_bin/ethtool (scripts/upstream-tools.sh)" >&2; exit 2; }
	if [ "$target" = netdevsim ]; then
		[ -f "$nsim_ko" ] || { echo "run_7.3.sh: no $nsim_ko (scripts/upstream-selftests.sh 7.3)" >&2; exit 2; }
	else
		[ -f "${REFNIC_KO:-}" ] || { echo "run_7.3.sh: REFNIC_KO=${REFNIC_KO:-} is no file" >&2; exit 2; }
	fi
	out=${out:-$build/upstream-7.3/run-$target-$(date +%Y%m%d-%H%M%S)}
	mkdir -p "$out/logs"
	out=$(cd "$out" && pwd)
	: >"$out/results.tsv"
	: >"$out/files.tsv"
	: >"$out/batches.tsv"
	: >"$out/ktap"

	echo "KTAP version 1"
	for list in "$@"; do
		mapfile -t files < <(list_files "$list")
		[ "${#files[@]}" -gt 0 ] || continue
		bname=$(basename "$list" .list)
		start=$SECONDS
		next=0
		while [ "$next" -lt "${#files[@]}" ]; do
			printf '%s\n' "${files[@]:$next}" >"$out/queue"
			rm -f "$out/current" "$out/done"
			budget=120
			for f in "${files[@]:$next}"; do
				t=${f#* }
				budget=$((budget + ${t%% *} + 30))
				# a retry may take the file's time again
				[[ $f != *" retry:"* ]] || budget=$((budget + ${t%% *}))
			done
			# REFNIC_DEADLINE (host seconds since the epoch, .ci/run):
			# no VM starts after it, a running one is ended there.
			cut_short=
			if [ -n "${REFNIC_DEADLINE:-}" ]; then
				left=$((REFNIC_DEADLINE - $(date +%s)))
				if [ "$left" -lt 30 ]; then
					for f in "${files[@]:$next}"; do
						f=${f%% *}
						printf '%s\t%s\t%s\t%s\n' "$f" "$f" fail \
							"not run: the run's deadline (REFNIC_DEADLINE) had passed" >>"$out/results.tsv"
						printf '%s\t%s\t%s\n' "$f" 124 "-" >>"$out/files.tsv"
					done
					break
				fi
				[ "$left" -ge "$budget" ] || { budget=$left cut_short=1; }
			fi
			vm_rc=0
			console=$out/console-$bname-$next.log
			"$repo/scripts/vm/vm.sh" --kernel "$vmlinux" --modules "$modules" \
				--cpus "$cpus" --mem "$mem" --out "$out" --console "$console" \
				--timeout "$budget" \
				--env "REFNIC_BUILD=$build" --env "REFNIC_KO=${REFNIC_KO:-}" \
				--env "IP_LIB_DIR=${IP_LIB_DIR:-$build/iproute2}" \
				--env "UPSTREAM_73_KSFT=$ksft" --env "UPSTREAM_73_NSIM_KO=$nsim_ko" \
				--env "UPSTREAM_73_TRACE=${UPSTREAM_73_TRACE:-0}" \
				--env "UPSTREAM_73_INTERFACE_TIMEOUT=${UPSTREAM_73_INTERFACE_TIMEOUT:-30}" \
				run -- "$here/run_7.3.sh" --guest --out "$out" --queues "$queues" \
				"$target" "$out/queue" 2>"$out/vm-$bname-$next.stderr" || vm_rc=$?
			ndone=0
			[ ! -f "$out/done" ] || ndone=$(wc -l <"$out/done")
			next=$((next + ndone))
			[ "$next" -lt "${#files[@]}" ] || break
			# The VM ended early: the file named in `current` takes the blame.
			f=${files[$next]}
			f=${f%% *}
			case $vm_rc in
			124) why="VM hung (whole-VM timeout)"
				[ -z "$cut_short" ] || why="stopped at the run's deadline (REFNIC_DEADLINE)" ;;
			*) why="VM ended (exit $vm_rc) while it ran: kernel panic or QEMU failure, see $console" ;;
			esac
			printf '%s\t%s\t%s\t%s\n' "$f" "$f" fail "$why" >>"$out/results.tsv"
			printf '%s\t%s\t%s\n' "$f" "$vm_rc" "-" >>"$out/files.tsv"
			grep -E -m1 -A30 'Kernel panic|BUG:|Oops|WARNING:' "$console" 2>/dev/null |
				sed 's/^/# console: /' >>"$out/ktap"
			next=$((next + 1))
		done
		printf '%s\t%s\n' "$bname" "$((SECONDS - start))" >>"$out/batches.tsv"
		echo "# batch $bname: ${#files[@]} files, $((SECONDS - start)) s"
	done

	report "$out"
	exit $?
}


###############################################################################
# Guest half: run the queued files, one after the other.
###############################################################################
guest_main() {
	queue=${1:?queue file}
	export PATH=$tools_bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export KSFT_MACHINE_SLOW=yes
	export LOCAL_PREFIX_V6=2001:db8:2::/64
	# The forwarding lib waits this many seconds for a port's "state UP" (its
	# default, 600, outlasts the file's timeout on a device whose operstate
	# stays "unknown", as netdevsim's does).
	export INTERFACE_TIMEOUT=${UPSTREAM_73_INTERFACE_TIMEOUT:-30}
	export PYTHONDONTWRITEBYTECODE=1
	# An iperf3 left with SIGTERM blocked past process()'s timeout is
	# described and killed (slow/sitecustomize.py: iperf3 3.12 longjmp()s
	# out of its handler).
	export PYTHONPATH=$here/slow${PYTHONPATH:+:$PYTHONPATH}
	# The tests run BUILD/tools/bin's ip (7.3): it must not load the refnic
	# plugin, which is built for Debian's ip 6.1 (only make_pair uses it).
	refnic_ip_lib=${IP_LIB_DIR:-}
	unset IP_LIB_DIR

	msg() { echo "# $*" >&2; }

	# A udev rule could rename netdevsim's eth* to eni*np*: there is no udevd
	# here, the names stay; the lib's "udevadm settle" returns at once.
	load_module() {
		if [ "$target" = netdevsim ]; then
			[ -d /sys/bus/netdevsim ] && return 0
			modprobe psample 2>/dev/null
			insmod "$nsim_ko" || return 1
		else
			grep -q '^refnic ' /proc/modules && return 0
			# devmem_tx=1: the devmem TX cases (refnic offers it
			# only when asked, docs/devmem.md).
			insmod "$REFNIC_KO" devmem_tx=1 || return 1
		fi
	}

	nsim_ids=()
	peer_ns=
	nsim_dev=
	nsim_new() { # nsim_new ID: a netdevsim device with one port, its netdev in $nsim_dev
		local id=$1 i
		echo "$id 1 $queues" >/sys/bus/netdevsim/new_device || return 1
		nsim_ids+=("$id")
		for ((i = 0; i < 100; i++)); do
			nsim_dev=$(ls "/sys/bus/netdevsim/devices/netdevsim$id/net/" 2>/dev/null)
			[ -z "$nsim_dev" ] || return 0
			sleep 0.1
		done
		echo "netdevsim$id: no netdev after 10 s"
		return 1
	}

	# make_pair MODE: dut0 here, peer0 in $peer_ns (pair) or here (loop).
	make_pair() {
		local mode=$1 ifa ifb fa fb
		peer_ns=ksft-peer-$$
		ip netns add "$peer_ns" || return 1
		ip netns exec "$peer_ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0
		sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
		# Tests that take dut0 down and up (rss_ctx.py's persist cases)
		# ping the peer afterwards: its IPv6 address must survive.
		sysctl -qw net.ipv6.conf.all.keep_addr_on_down=1 \
			net.ipv6.conf.default.keep_addr_on_down=1
		if [ "$target" = netdevsim ]; then
			nsim_new $((RANDOM % 30000 + 1)) || return 1
			ip link set "$nsim_dev" name dut0 || return 1
			nsim_new $((RANDOM % 30000 + 30001)) || return 1
			ip link set "$nsim_dev" name peer0 || return 1
			if [ "$mode" = pair ]; then
				devlink dev reload "netdevsim/netdevsim${nsim_ids[1]}" netns "$peer_ns" || return 1
				# reload re-creates the port: find its name and rename it again
				b=$(ip netns exec "$peer_ns" ls "/sys/bus/netdevsim/devices/netdevsim${nsim_ids[1]}/net/")
				[ "$b" = peer0 ] || ip -n "$peer_ns" link set "$b" name peer0 || return 1
			fi
			ifa=$(cat /sys/class/net/dut0/ifindex)
			if [ "$mode" = pair ]; then
				ifb=$(ip netns exec "$peer_ns" cat /sys/class/net/peer0/ifindex)
				exec {fb}<"/run/netns/$peer_ns"
			else
				ifb=$(cat /sys/class/net/peer0/ifindex)
				exec {fb}</proc/self/ns/net
			fi
			exec {fa}</proc/self/ns/net
			echo "$fa:$ifa $fb:$ifb" >/sys/bus/netdevsim/link_device || return 1
			exec {fa}<&- {fb}<&-
		else
			# Debian's own ip (6.1), for which the plugin link_refnic.so is built
			if [ "$mode" = pair ]; then
				IP_LIB_DIR=$refnic_ip_lib /sbin/ip link add dut0 type refnic queues "$queues" \
					peer name peer0 netns "$peer_ns" || return 1
			else
				IP_LIB_DIR=$refnic_ip_lib /sbin/ip link add dut0 type refnic queues "$queues" \
					peer name peer0 || return 1
			fi
		fi
		[ "$mode" = pair ] || return 0
		ip addr add 192.0.2.1/24 dev dut0 &&
			ip addr add 2001:db8::1/64 dev dut0 nodad &&
			ip link set dut0 up &&
			ip -n "$peer_ns" addr add 192.0.2.2/24 dev peer0 &&
			ip -n "$peer_ns" addr add 2001:db8::2/64 dev peer0 nodad &&
			ip -n "$peer_ns" link set lo up &&
			ip -n "$peer_ns" link set peer0 up &&
			ip -n "$peer_ns" -6 route add "$LOCAL_PREFIX_V6" via 2001:db8::1 || return 1
		local i
		for ((i = 0; i < 100; i++)); do
			[ "$(cat /sys/class/net/dut0/carrier 2>/dev/null)" = 1 ] && break
			sleep 0.1
		done
	}

	# cpumask N: CPUs 0 to N-1 as xps_cpus takes it, for any N (32-bit
	# hex words, most significant first).
	cpumask() {
		local n=$1 mask=''
		while [ "$n" -ge 32 ]; do
			mask=ffffffff${mask:+,$mask}
			n=$((n - 32))
		done
		[ "$n" -eq 0 ] || mask=$(printf %x $(((1 << n) - 1)))${mask:+,$mask}
		echo "${mask:-0}"
	}

	# refnic_file_setup PATH: what one test file needs of a refnic pair
	# beyond make_pair's, undone when the pair goes. Every other file runs
	# on the defaults.
	refnic_file_setup() {
		local drv
		case $1 in
		drivers/net/gro.py | drivers/net/hw/gro_hw.py)
			# GRO windows that span a test's burst: under TCG a
			# frame takes tens of microseconds to arrive, and
			# gro_hw.py's 512 interleaved flows over 100 ms, where
			# the driver programs an LRO engine's 50 us of quiet.
			# gro.py's data_burst wants two bursts 100 ms apart kept
			# apart: 50 ms of quiet does both. An aggregate lives
			# 500 ms; gro_hw.py's have no age limit (0), only the
			# quiet: beside a second VM the 512-flow sweep between a
			# flow's two segments can outlast 500 ms (the likely
			# cause of test_gro_order.512 failing in CI, 2026-11-27).
			local timeout_us=500000
			[ "$1" = drivers/net/hw/gro_hw.py ] && timeout_us=0
			drv=/sys/kernel/debug/refnic/drv-$(basename "$(readlink -f /sys/class/net/dut0/device)")
			echo 50000 >"$drv/hw_gro_idle_us" &&
				echo "$timeout_us" >"$drv/hw_gro_timeout_us" || return 1
			;;
		esac
		case $1 in
		drivers/net/hw/gro_hw.py)
			# test_gro_order takes the wire to keep the sender's
			# order and pace, as netdevsim's peer, which transmits
			# synchronously, does. The peer sends on one TX queue
			# (XPS: every CPU to tx-0), since refnic's engines run
			# TX queues in parallel and would reorder flows hashed
			# to different queues; through a FIFO qdisc, since
			# fq_codel serves a backlog flow by flow; with a TX
			# ring (4096) that takes the 1025-frame burst without
			# waiting for completions, which under TCG stalls the
			# wire for tens of milliseconds.
			ip netns exec "$peer_ns" ethtool -G peer0 tx 4096 >/dev/null &&
				tc -n "$peer_ns" qdisc replace dev peer0 root pfifo limit 10000 ||
				return 1
			# shellcheck disable=SC2016 # expanded by the inner sh
			ip netns exec "$peer_ns" sh -c '
				for q in /sys/class/net/peer0/queues/tx-*; do
					echo 0 >"$q/xps_cpus" || exit 1
				done
				echo "$1" >/sys/class/net/peer0/queues/tx-0/xps_cpus' \
				- "$(cpumask "$(nproc --all)")" || return 1
			;;
		esac
	}

	# fresh_rss_key: a random RSS key on dut0, as long as its own. A fresh
	# pair has the key every device got at boot (netdev_rss_key_fill()).
	fresh_rss_key() {
		local n key
		n=$(ethtool -x dut0 | awk '/^RSS hash key:/ { getline; print (length($0) + 1) / 3; exit }')
		[ "${n:-0}" -gt 0 ] || { echo "fresh_rss_key: dut0 shows no RSS key"; return 1; }
		key=$(od -An -tx1 -v -N "$n" /dev/urandom | tr -s ' \n' ':' | sed 's/^://; s/:$//')
		echo "RSS key for the retry: $key"
		ethtool -X dut0 hkey "$key"
	}

	# run_file PATH TIMEOUT MODE REKEY LOG ARG...: the file on a fresh
	# device (MODE; with a fresh RSS key when REKEY is 1), its output in
	# LOG; sets rc, and setup_ok (0: the device's setup failed, LOG.setup
	# says how).
	run_file() {
		local path=$1 tmo=$2 mode=$3 rekey=$4 log=$5 exe=$ksft/$1 envs=() trace=()
		shift 5
		local args=("$@")
		drop_pair
		setup_ok=1 rc=0
		if [ "$mode" = pair ] || { [ "$mode" = auto ] && [ "$target" = refnic ]; }; then
			make_pair pair >"$log.setup" 2>&1 || setup_ok=0
			if [ "$setup_ok" = 1 ] && [ "$target" = refnic ]; then
				refnic_file_setup "$path" >>"$log.setup" 2>&1 || setup_ok=0
			fi
			if [ "$setup_ok" = 1 ] && [ "$rekey" = 1 ]; then
				fresh_rss_key >>"$log.setup" 2>&1 || setup_ok=0
			fi
			envs=(NETIF=dut0 LOCAL_V4=192.0.2.1 REMOTE_V4=192.0.2.2 LOCAL_V6=2001:db8::1
				REMOTE_V6=2001:db8::2 REMOTE_TYPE=netns REMOTE_ARGS="$peer_ns")
		elif [ "$mode" = loop ]; then
			make_pair loop >"$log.setup" 2>&1 || setup_ok=0
			args=(dut0 peer0 "${args[@]}")
		fi
		if [ "$setup_ok" = 0 ]; then
			rc=1
			cp "$log.setup" "$log"
			return
		fi
		# In the test's own directory (the forwarding scripts source
		# relative paths). timeout(1) runs it in a process group of its
		# own and signals the whole group: children (socat, iperf3 ...) too.
		[ "${UPSTREAM_73_TRACE:-0}" != 1 ] || [[ $exe != *.sh ]] || trace=(bash -x)
		# A test installed without its x bit (7.3's hw/xdp_metadata.py):
		# its #! interpreter, as kselftest's runner.sh does.
		if [ ! -x "$exe" ] && [ "$(head -c 2 "$exe")" = '#!' ]; then
			read -ra trace < <(head -n 1 "$exe" | cut -c 3-)
		fi
		(cd "$(dirname "$exe")" &&
			exec env "${envs[@]}" timeout -k 10 "$tmo" "${trace[@]}" "$exe" "${args[@]}") \
			>"$log" 2>&1 </dev/null || rc=$?
	}

	# retryable ROWS LOG NAME:ERE...: the names (as in ROWS) of the cases
	# that failed in ROWS, if each is a case of LOG (not the file as a
	# whole) whose name without the file's prefix matches a NAME and
	# which failed only "Check failed" lines that match that NAME's ERE,
	# with no exception; nothing otherwise.
	retryable() {
		local rows=$1 log=$2 name tcase exc checks chk rule ok names=()
		shift 2
		# FULL_NAME<TAB>EXCEPTION(0|1)<TAB>CHECK<US>CHECK... per failed case
		declare -A failed_cases=()
		while IFS=$'\t' read -r name exc checks; do
			failed_cases[$name]="$exc"$'\t'"$checks"
		done < <(awk '
			{ sub(/\r$/, "") }
			/^# Exception\| / { exc = 1; next }
			/^# Check failed/ { chk = chk (chk == "" ? "" : "\037") substr($0, 3); next }
			/^not ok [0-9]+ / {
				name = $0; sub(/^not ok [0-9]+ /, "", name); sub(/ # .*/, "", name)
				printf "%s\t%d\t%s\n", name, exc, chk
			}
			/^(not )?ok [0-9]+ / { exc = 0; chk = "" }' "$log")
		while IFS=$'\t' read -r _ name _; do
			[ -n "${failed_cases[$name]+set}" ] || return 0
			IFS=$'\t' read -r exc checks <<<"${failed_cases[$name]}"
			[ "$exc" = 0 ] && [ -n "$checks" ] || return 0
			tcase=${name#*.}
			ok=0
			for rule in "$@"; do
				# shellcheck disable=SC2053 # a pattern, as ksft's -t
				[[ $tcase == ${rule%%:*} ]] || continue
				ok=1
				while IFS= read -r -d $'\037' chk; do
					[[ $chk =~ ${rule#*:} ]] || ok=0
				done <<<"$checks"$'\037'
				break
			done
			[ "$ok" = 1 ] || return 0
			names+=("$name")
		done < <(awk -F'\t' '$3 == "fail"' "$rows")
		[ "${#names[@]}" -eq 0 ] || printf '%s\n' "${names[@]}"
	}

	drop_pair() {
		local id
		for id in "${nsim_ids[@]}"; do
			echo "$id" >/sys/bus/netdevsim/del_device 2>/dev/null
		done
		nsim_ids=()
		ip link del dut0 2>/dev/null
		[ -z "$peer_ns" ] || ip netns del "$peer_ns" 2>/dev/null
		peer_ns=
		# leftovers of a killed test: its namespaces and netdevsim devices
		local ns
		for ns in $(ip netns list | awk '{ print $1 }'); do
			ip netns del "$ns" 2>/dev/null
		done
		if [ -d /sys/bus/netdevsim/devices ]; then
			for id in /sys/bus/netdevsim/devices/netdevsim*; do
				[ -e "$id" ] && echo "${id##*netdevsim}" >/sys/bus/netdevsim/del_device 2>/dev/null
			done
		fi
	}


	load_module || { msg "cannot load the $target module"; exit 1; }
	# What drivers/net/config and hw/config want built in but Debian builds
	# as modules that nothing loads on first use: pppoe's GRO handler (gro.py),
	# ESP offload, tunnels, tc classifiers/qdiscs ...
	local m
	for m in pppoe esp4 esp6 esp4_offload esp6_offload ip_gre ip6_gre sit ipip \
		ip6_tunnel vxlan tls xfrm_user 8021q act_skbedit cls_bpf cls_flower \
		cls_fw cls_matchall sch_etf sch_fq sch_ingress sch_prio; do
		modprobe "$m" 2>/dev/null || msg "modprobe $m failed"
	done
	ip link set lo up
	dmesg -C
	while read -r path tmo mode rest; do
		echo "$path" >"$out/current"
		sync
		log=$out/logs/$(echo "$path" | tr '/' '_').log
		start=$SECONDS
		rc=0
		if [[ $mode == skip:* ]]; then
			printf '%s\t%s\t%s\t%s\n' "$path" "$path" skip "${mode#skip:}${rest:+ $rest}" >>"$out/results.tsv"
			printf '%s\t%s\t%s\n' "$path" 4 0 >>"$out/files.tsv"
			echo "$path" >>"$out/done"
			continue
		fi
		# the list's extra words: arguments for the test (ksft's -t/-T
		# filters), and the runner's retry:NAME:ERE
		read -ra words <<<"$rest"
		args=() retry=()
		for w in "${words[@]}"; do
			if [[ $w == retry:*:* ]]; then retry+=("${w#retry:}"); else args+=("$w"); fi
		done
		retry_log=${log%.log}.retry.log
		rm -f "$retry_log" # of an earlier run into the same OUT
		run_file "$path" "$tmo" "$mode" 0 "$log" "${args[@]}"
		if [ "$setup_ok" = 0 ]; then
			printf '%s\t%s\t%s\t%s\n' "$path" "$path" fail "setup ($mode pair): $(tail -n1 "$log.setup")" >>"$out/results.tsv"
		else
			parse "$path" "$log" "$rc" >"$log.rows"
			retry_cases=()
			# grep reads all of dmesg's output: with -q it would
			# stop at a match, and dmesg's SIGPIPE fail the pipe
			if [ "${#retry[@]}" -gt 0 ] && [ "$mode" = pair ] && [ "$rc" != 124 ] &&
				[ "$rc" != 137 ] && ! dmesg | grep -E "$dmesg_bad" >/dev/null; then
				mapfile -t retry_cases < <(retryable "$log.rows" "$log" "${retry[@]}")
			fi
			if [ "${#retry_cases[@]}" -gt 0 ]; then
				msg "$path: ${retry_cases[*]} failed; running them once more on a fresh pair"
				filters=()
				for c in "${retry_cases[@]}"; do filters+=(-t "${c#*.}"); done
				rc_first=$rc
				run_file "$path" "$tmo" "$mode" 1 "$retry_log" "${args[@]}" "${filters[@]}"
				# a header that reparse reads, then the pair's setup
				# (the key), then the test's output
				{
					echo "# retry of: ${retry_cases[*]}"
					echo "# retry exit: $rc"
					[ "$setup_ok" = 0 ] || cat "$retry_log.setup"
					cat "$retry_log"
				} >"$retry_log.new"
				mv -f "$retry_log.new" "$retry_log"
				rm -f "$retry_log.setup"
				# files.tsv: the exit of the run in LOG, which reparse parses
				rc=$rc_first
				file_rows "$path" "$log" "$rc" >>"$out/results.tsv"
			else
				cat "$log.rows" >>"$out/results.tsv"
			fi
			rm -f "$log.rows"
		fi
		rm -f "$log.setup"
		if dmesg | grep -E "$dmesg_bad" >/dev/null; then
			printf '%s\t%s\t%s\t%s\n' "$path" kernel_log fail \
				"$(dmesg | grep -E -m1 "$dmesg_bad" | cut -c1-150)" >>"$out/results.tsv"
		fi
		{ echo "=== kernel log"; dmesg; } >>"$log"
		dmesg -C
		printf '%s\t%s\t%s\n' "$path" "$rc" "$((SECONDS - start))" >>"$out/files.tsv"
		echo "$path" >>"$out/done"
		sync
		msg "$path: exit $rc, $((SECONDS - start)) s"
	done <"$queue"
	drop_pair
	return 0
}

# Everything above is definitions: bash has parsed the whole file before
# running any of it, so editing it does not derail a run in progress.
if [ -n "$reparse_dir" ]; then
	reparse "$reparse_dir"
	: >"$reparse_dir/ktap"
	report "$reparse_dir"
elif [ "$guest" = 0 ]; then
	host_main "$@"
else
	guest_main "$@"
fi
