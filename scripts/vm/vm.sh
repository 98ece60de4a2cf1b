#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# refnic test VM: run a command (or an interactive shell) as root in a QEMU
# VM whose root file system is this machine's own root, shared read-only
# over 9p, so every installed tool and every freshly built file in the repo
# is visible in the guest at the same path.
#
#   vm.sh [options] run -- CMD [ARGS...]   exit status: CMD's; 124 timeout;
#                                          125 guest died without a status;
#                                          126 a --setup command failed
#   vm.sh [options] shell                  interactive root shell on the VM
#   vm.sh [options] prepare                extract the kernel and build the
#                                          initramfs, boot nothing
#
# Options (see usage below): --series --kernel --modules --out --timeout
# --console --cpus --mem --numa --env NAME=VALUE (repeatable) --setup CMD
# (repeatable) --sysctl NAME=VALUE (repeatable).
# Environment (optional): REFNIC_KERNEL names the kernel series (6.12, 7.3;
# scripts/kernel.sh) booted without --series/--kernel/--modules; make sets it
# from KERNEL. REFNIC_VM_ACCEL=kvm|tcg skips the KVM probe,
# REFNIC_VM_TCG_THREAD=single|multi (default single, see below),
# REFNIC_VM_APPEND adds kernel command line words (refnic.debug traces the
# guest-side scripts on the console), REFNIC_BUILD moves build/.
#
# How (details in scripts/vm/init and scripts/vm/guest-setup.sh):
# - the kernel is an ELF vmlinux booted directly (QEMU -kernel uses PVH for
#   ELF images); a series' Debian kernel is extracted once from its bzImage
#   (scripts/kernel.sh names both files);
# - a tiny cached initramfs (busybox-static + the 9p modules) mounts the 9p
#   root and switch_roots into it; guest-setup.sh finishes the environment;
# - --out is a second, writable 9p share mounted at its host path; a private
#   control share carries argv/env/setup commands in and the status out;
# - mode run: CMD's stdout/stderr are two virtio-serial ports (not ttys),
#   relayed through FIFOs on both sides, to our stdout/stderr; the kernel's
#   console (ttyS0) goes to the console log file. Mode shell: a virtio
#   console (hvc0), a real tty, on our terminal.
set -euo pipefail

prog=vm.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
build=${REFNIC_BUILD:-$repo/build} # same override as scripts/deps.sh
vmdir=$build/vm
qemu='qemu-system-x86_64'
msize=512000 # 9p message size; the virtio transport's maximum in 6.12

say() { echo "$prog: $*" >&2; }
die() {
	say "error: $*"
	exit 2
}

usage() {
	cat >&2 <<'EOF'
usage: vm.sh [options] run -- CMD [ARGS...]
       vm.sh [options] shell
       vm.sh [options] prepare
options:
  --series S       kernel series, 6.12 or 7.3 (default: $REFNIC_KERNEL, else
                   the Makefile's default): the defaults of the next two
  --kernel PATH    ELF vmlinux (default: the series' Debian kernel, extracted)
  --modules DIR    modules tree of that kernel, the dir holding modules.dep
                   (default: the series' modules)
  --out DIR        writable share, mounted in the guest at the same path
                   (default: a fresh dir under build/vm/runs/)
  --timeout SECS   wall-clock limit for the whole VM (default 600), exit 124
  --console FILE   serial console log (default: OUT/console.log)
  --cpus N         (default 2)        --mem MB   (default 2048)
  --numa N         N NUMA nodes (default 1), each with an equal share of
                   the CPUs (in order) and of the memory: a host of N sockets
  --env NAME=VALUE exported to CMD (repeatable)
  --setup CMD      shell command run as root in the guest before CMD/shell
                   (repeatable; its output goes to stderr; if one fails, exit 126)
  --sysctl NAME=VALUE  kernel setting written before the --setup commands,
                   e.g. kernel.hung_task_timeout_secs=30 (repeatable; a NAME
                   the kernel does not have is a warning on the console)
prepare: exit 0 once the kernel and initramfs are ready.
exit status: CMD's; 124 timeout; 125 guest died without reporting a status
(the console tail is printed); 126 a --setup command failed.
EOF
	exit 2
}

# ---- options ----------------------------------------------------------------
series='' kernel='' modules='' out='' console='' timeout=600 cpus=2 mem=2048 numa=1 mode=''
envs=() setups=() sysctls=() argv=()
while [ $# -gt 0 ]; do
	opt=$1
	# accept both "--opt VALUE" and "--opt=VALUE"
	case $opt in
	--*=*) val=${opt#*=} opt=${opt%%=*} shift_n=1 ;;
	--series | --kernel | --modules | --out | --timeout | --console | --cpus | --mem | --numa | --env | --setup | --sysctl)
		[ $# -ge 2 ] || die "$opt needs an argument"
		val=$2 shift_n=2
		;;
	*) val='' shift_n=1 ;;
	esac
	case $opt in
	--series) series=$val ;;
	--kernel) kernel=$val ;;
	--modules) modules=$val ;;
	--out) out=$val ;;
	--timeout) timeout=$val ;;
	--console) console=$val ;;
	--cpus) cpus=$val ;;
	--mem) mem=$val ;;
	--numa) numa=$val ;;
	--env)
		[[ $val =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env wants NAME=VALUE, got '$val'"
		envs+=("$val")
		;;
	--setup) setups+=("$val") ;;
	--sysctl)
		[[ $val =~ ^[a-z0-9_]+(\.[A-Za-z0-9_-]+)+=. ]] || die "--sysctl wants NAME=VALUE (e.g. kernel.panic=1), got '$val'"
		sysctls+=("$val")
		;;
	-h | --help) usage ;;
	run)
		mode=run
		shift
		[ "${1:-}" = -- ] && shift
		[ $# -gt 0 ] || die "run needs a command: vm.sh run -- CMD [ARGS...]"
		argv=("$@")
		break
		;;
	shell | prepare)
		mode=$opt
		shift
		[ $# -eq 0 ] || die "$mode takes no arguments"
		break
		;;
	*) usage ;;
	esac
	shift "$shift_n"
done
[ -n "$mode" ] || usage
for v in timeout cpus mem numa; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--$v wants a positive integer, got '${!v}'"
done
[ $((cpus % numa)) -eq 0 ] && [ $((mem % numa)) -eq 0 ] ||
	die "--numa $numa: must divide --cpus $cpus and --mem $mem"
[ "$mem" -ge 256 ] || die "--mem $mem: the kernel needs at least 256 MB"

# The series' files (KVER VMLINUX VMLINUZ MODULES ...), unless both paths
# are given (the debug kernel): then no series needs to be set up.
# (shellcheck SC2153 below: KERNEL, VMLINUZ, ... come from this eval)
if [ -z "$kernel" ] || [ -z "$modules" ]; then
	kinfo=$(REFNIC_BUILD=$build "$repo/scripts/kernel.sh" ${series:+"$series"}) || exit 2
	eval "$kinfo"
elif [ -n "$series" ]; then
	REFNIC_BUILD=$build "$repo/scripts/kernel.sh" --check "$series" || exit 2
fi

command -v "$qemu" >/dev/null || die "$qemu not found (apt-get install qemu-system-x86)"
mkdir -p "$vmdir/runs" "$vmdir/tmp"

# Cache builds may race with other vm.sh runs: build under a lock, publish
# with an atomic rename, and re-check after taking the lock.
lock() {
	exec {lockfd}>"$vmdir/.lock"
	flock "$lockfd"
}
unlock() { exec {lockfd}>&-; }

# ---- kernel: extract the ELF vmlinux from Debian's bzImage --------------------
# The payload is a compressed stream inside the bzImage; the magic can also
# occur by accident earlier in the file, so try every match until the output
# is an ELF image. zstd is Debian's choice; xz/gzip cover other kernels.
extract_vmlinux() {
	local src=$1 dst=$2 tmp magic tool off
	tmp=$(mktemp "$vmdir/tmp/vmlinux.XXXXXX")
	for magic in '\x28\xb5\x2f\xfd:zstd -dcq' '\xfd\x37\x7a\x58\x5a\x00:xz -dcq' '\x1f\x8b\x08:gzip -dcq'; do
		tool=${magic#*:} magic=${magic%%:*}
		command -v "${tool%% *}" >/dev/null || continue
		while read -r off; do
			# Trailing data after the stream makes the decompressor fail
			# although the output is complete: judge by the output only.
			tail -c "+$((off + 1))" "$src" | $tool >"$tmp" 2>/dev/null || true
			if [ "$(head -c 4 "$tmp" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] &&
				[ "$(stat -c %s "$tmp")" -gt 1000000 ]; then
				chmod 0644 "$tmp" # mktemp made it 0600
				mv -f "$tmp" "$dst"
				return 0
			fi
		done < <(LC_ALL=C grep -obUaP "$magic" "$src" | cut -d: -f1)
	done
	rm -f "$tmp"
	return 1
}

if [ -z "$kernel" ]; then
	src=$VMLINUZ
	kernel=$VMLINUX
	# shellcheck disable=SC2153
	[ -r "$src" ] || die "$src missing (run make deps KERNEL=$KERNEL)"
	mkdir -p "$(dirname "$kernel")"
	if [ ! -s "$kernel" ] || [ "$src" -nt "$kernel" ]; then
		lock
		if [ ! -s "$kernel" ] || [ "$src" -nt "$kernel" ]; then
			say "extracting $kernel from $src"
			extract_vmlinux "$src" "$kernel" || die "no ELF vmlinux found inside $src"
		fi
		unlock
	fi
fi
[ -r "$kernel" ] || die "kernel $kernel not readable"
kernel=$(realpath "$kernel")

# shellcheck disable=SC2153
[ -n "$modules" ] || modules=$MODULES
[ -r "$modules/modules.dep" ] || die "$modules/modules.dep missing (--modules wants the dir holding modules.dep; run depmod)"
modules=$(realpath "$modules")

# ---- initramfs: busybox-static + the 9p modules, cached by content -----------
# Module paths in dependency order (deps first) for the named modules; a
# module that is built in (modules.builtin) is skipped.
resolve_modules() {
	local dir=$1
	shift
	awk -v want="$*" '
		function name(p) { sub(/.*\//, "", p); sub(/\.ko(\.(xz|zst|gz))?$/, "", p); gsub(/-/, "_", p); return p }
		function out(p) { if (!(p in seen)) { seen[p] = 1; print p } }
		BEGIN { n = split(want, w, " ") }
		{ sub(/:$/, "", $1); line[name($1)] = $0 }
		END {
			for (i = 1; i <= n; i++) {
				if (!(w[i] in line)) { print "MISSING " w[i]; continue }
				# deps are listed so that loading them last-to-first works
				m = split(line[w[i]], f, " "); sub(/:$/, "", f[1])
				for (j = m; j >= 2; j--) out(f[j])
				out(f[1])
			}
		}' "$dir/modules.dep"
}

busybox=$(command -v busybox || true)
[ -x /bin/busybox ] && busybox=/bin/busybox
[ -n "$busybox" ] || die "busybox not found (apt-get install busybox-static)"

# want_modules OPTIONAL NAME...: append the module files for NAMEs (and their
# dependencies) to kos; a missing module is fatal unless OPTIONAL is 1.
kos=()
want_modules() {
	local optional=$1 ko m
	shift
	while read -r ko; do
		case $ko in
		MISSING\ *)
			m=${ko#MISSING }
			# built in (9p, netfs, ... =y in a custom kernel): nothing to load
			grep -qE "/(${m}|${m//_/-})\.ko\$" "$modules/modules.builtin" 2>/dev/null ||
				[ "$optional" = 1 ] ||
				die "module $m is neither in $modules/modules.dep nor built in"
			;;
		/*) kos+=("$ko") ;;
		*) kos+=("$modules/$ko") ;;
		esac
	done < <(resolve_modules "$modules" "$@")
}
want_modules 0 netfs 9pnet 9pnet_virtio 9p
want_modules 1 configfs

key=$({
	echo "refnic-vm-initramfs v1 $modules"
	cat "$here/init"
	stat -L -c '%n %s %Y' "$busybox" "${kos[@]}"
} | sha256sum | cut -c1-16)
initrd=$vmdir/initramfs-$key.cpio

build_initramfs() {
	local stage ko base list=
	command -v cpio >/dev/null || die "cpio not found (apt-get install cpio)"
	if command -v readelf >/dev/null && readelf -l "$busybox" 2>/dev/null | grep -q 'program interpreter'; then
		die "$busybox is dynamically linked (apt-get install busybox-static)"
	fi
	stage=$(mktemp -d "$vmdir/tmp/initramfs.XXXXXX")
	mkdir -p "$stage/bin" "$stage/lib/refnic-vm" "$stage/proc" "$stage/sys" "$stage/dev" "$stage/newroot"
	cp "$busybox" "$stage/bin/busybox"
	cp "$here/init" "$stage/init"
	chmod 0755 "$stage/init" "$stage/bin/busybox"
	# busybox insmod wants plain .ko files: decompress Debian's .ko.xz
	for ko in "${kos[@]}"; do
		base=${ko##*/}
		base=${base%.xz} base=${base%.zst} base=${base%.gz}
		case $ko in
		*.ko.xz) xz -dc "$ko" ;;
		*.ko.zst) zstd -dcq "$ko" ;;
		*.ko.gz) gzip -dc "$ko" ;;
		*) cat "$ko" ;;
		esac >"$stage/lib/refnic-vm/$base" || die "cannot decompress $ko"
		list+=$base$'\n'
	done
	printf '%s' "$list" >"$stage/lib/refnic-vm/modules"
	# Uncompressed: the kernel unpacks it faster than it could decompress.
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$stage.cpio"
	mv -f "$stage.cpio" "$initrd"
	rm -rf "$stage"
	# drop initramfs images nobody used for a week (other modules trees)
	find "$vmdir" -maxdepth 1 -name 'initramfs-*.cpio' -mtime +7 -delete 2>/dev/null || true
}
if [ ! -s "$initrd" ]; then
	lock
	[ -s "$initrd" ] || build_initramfs
	unlock
fi
touch "$initrd" 2>/dev/null || true
if [ "$mode" = prepare ]; then
	say "ready: kernel $kernel, modules $modules"
	exit 0
fi

# ---- accelerator: KVM only if it demonstrably boots this kernel ---------------
# /dev/kvm can exist and still not work (nested setups: MSR errors, hangs,
# "emulation failure"), so boot the kernel once with KVM into the initramfs'
# probe mode and require its marker on the console. The verdict is cached
# per host boot and QEMU build.
qemu_common=(-nodefaults -no-user-config -display none -no-reboot -monitor none)
probe_kvm() {
	local log rc=0
	log=$(mktemp "$vmdir/tmp/kvm-probe.XXXXXX")
	# in a (real, not exec-optimised) subshell with stderr to /dev/null: QEMU
	# may abort (SIGABRT), and bash would report that on our stderr
	(timeout -k 2 20 "$qemu" "${qemu_common[@]}" -M q35 -accel kvm -cpu host -smp 1 -m 256 \
		-kernel "$kernel" -initrd "$initrd" -serial "file:$log" \
		-append "console=ttyS0 panic=-1 quiet refnic.probe" </dev/null >/dev/null 2>&1
		exit $?) 2>/dev/null || rc=$?
	grep -q REFNIC-VM-PROBE-OK "$log" && rc=0 || rc=1
	rm -f "$log"
	return "$rc"
}
accel=${REFNIC_VM_ACCEL:-}
if [ -z "$accel" ]; then
	accel=tcg
	if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		vkey="$(cat /proc/sys/kernel/random/boot_id 2>/dev/null) $(stat -L -c '%Y %s' "$(command -v "$qemu")")"
		verdict=$vmdir/kvm-verdict
		if [ "$(head -n1 "$verdict" 2>/dev/null)" != "$vkey" ]; then
			lock
			if [ "$(head -n1 "$verdict" 2>/dev/null)" != "$vkey" ]; then
				v=tcg
				probe_kvm && v=kvm
				printf '%s\n%s\n' "$vkey" "$v" >"$verdict.tmp" && mv -f "$verdict.tmp" "$verdict"
				[ "$v" = kvm ] || say "note: /dev/kvm does not work here, using TCG (cached in $verdict)"
			fi
			unlock
		fi
		accel=$(sed -n 2p "$verdict")
	fi
fi
case $accel in
kvm) cpu=host accel_opt=kvm ;;
tcg)
	cpu=max
	# One host thread for all vCPUs by default. QEMU 7.2's multi-threaded
	# TCG can run a stale translation of kernel text that was just patched
	# (static keys / jump labels, text_poke_bp): the guest then dies with
	# "Oops: int3" (seen ~1 in 100 boots here, in sched_clock_cpu during
	# boot), and every static key flip at run time (module loads,
	# tracepoints) risks it again. Boot time is the same; parallel guest
	# work is ~1.7x faster with REFNIC_VM_TCG_THREAD=multi.
	tcg_thread=${REFNIC_VM_TCG_THREAD:-single}
	case $tcg_thread in single | multi) ;; *) die "REFNIC_VM_TCG_THREAD must be single or multi" ;; esac
	accel_opt=tcg,thread=$tcg_thread
	;;
*) die "REFNIC_VM_ACCEL must be kvm or tcg" ;;
esac

# ---- per-run directories -----------------------------------------------------
if [ -z "$out" ]; then
	# old default run dirs pile up; drop those untouched for a day
	find "$vmdir/runs" -mindepth 1 -maxdepth 1 -name 'run-*' -mtime +1 -exec rm -rf {} + 2>/dev/null || true
	# and control dirs of runs that were SIGKILLed
	find "$vmdir/tmp" -mindepth 1 -maxdepth 1 -mtime +1 -exec rm -rf {} + 2>/dev/null || true
	out=$(mktemp -d "$vmdir/runs/run-$(date +%Y%m%d-%H%M%S)-XXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
[ "$out" != / ] || die "--out / is not allowed"
[ -n "$console" ] || console=$out/console.log
mkdir -p "$(dirname "$console")"
: >"$console"
console=$(realpath "$console")
cwd=$(pwd -P)

ctl=$(mktemp -d "$vmdir/tmp/ctl.XXXXXX")
qpid='' spid='' relays=()
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
	[ -z "$spid" ] || kill "$spid" 2>/dev/null
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null
	rm -rf "$ctl"
	if [ -n "${saved_tty:-}" ]; then stty "$saved_tty" </dev/tty 2>/dev/null || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

rows='' cols='' saved_tty=''
if [ "$mode" = shell ] && [ -t 0 ]; then
	# (a command substitution keeps our stdin; a process substitution would not)
	size=$(stty size 2>/dev/null) || size=
	read -r rows cols <<<"$size" || true
	saved_tty=$(stty -g 2>/dev/null) || true
fi
# The guest side is busybox sh: quote for POSIX sh ('...' with ' as '\'').
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
# cmdfile FILE WORD...: a file that sets "$@" to WORD... when sourced
cmdfile() {
	local f=$1 w
	shift
	{
		printf 'set --'
		for w in "$@"; do printf ' %s' "$(shq "$w")"; done
		printf '\n'
	} >"$f"
}
{
	printf 'VM_MODE=%s\n' "$mode"
	printf 'VM_OUT=%s\n' "$(shq "$out")"
	printf 'VM_CWD=%s\n' "$(shq "$cwd")"
	printf 'VM_MODULES=%s\n' "$(shq "$modules")"
	printf 'VM_MSIZE=%d\n' "$msize"
	printf 'VM_ROWS=%s\n' "$(shq "$rows")"
	printf 'VM_COLS=%s\n' "$(shq "$cols")"
	printf 'VM_NSETUP=%d\n' "${#setups[@]}"
} >"$ctl/config"
# CMD's environment: nothing leaks in from the host except what we name.
envwords=(
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	HOME=/root USER=root LOGNAME=root SHELL=/bin/bash
	REFNIC_VM=1 "REFNIC_OUT=$out"
)
if [ "$mode" = run ]; then
	envwords+=(TERM=dumb)
	# bash execs CMD: PATH lookup with the guest PATH, ARGS untouched, and a
	# leading NAME=VALUE in CMD is not an assignment (it would be for env).
	cmdfile "$ctl/cmd.sh" "${envwords[@]}" "${envs[@]}" \
		/bin/bash -c 'exec "$@"' refnic-vm "${argv[@]}"
else
	envwords+=("TERM=${TERM:-linux}")
	# a new session with hvc0 as controlling tty: job control, ^C, ^Z work
	cmdfile "$ctl/cmd.sh" "${envwords[@]}" "${envs[@]}" /usr/bin/setsid -c -w /bin/bash -l
fi
for i in "${!setups[@]}"; do
	cmdfile "$ctl/setup.$((i + 1)).sh" "${envwords[@]}" "${envs[@]}" /bin/bash -c "${setups[$i]}"
done
# "PATH VALUE" lines: the guest writes VALUE to PATH without an exec
for kv in "${sysctls[@]}"; do
	name=${kv%%=*}
	printf '/proc/sys/%s %s\n' "${name//.//}" "${kv#*=}"
done >"$ctl/sysctl"
echo "$here/guest-setup.sh" >"$ctl/guest_setup"

# ---- QEMU ----------------------------------------------------------------------
qesc() { printf '%s' "${1//,/,,}"; } # QEMU option values: "," is written ",,"
fs9p() { # fs9p ID PATH TAG [extra fsdev options]: append a 9p share to args
	args+=(-fsdev "local,id=$1,path=$(qesc "$2"),security_model=none,multidevs=remap${4:+,$4}"
		-device "virtio-9p-pci,fsdev=$1,mount_tag=$3")
}

# Kernel command line: console on ttyS0 (the log file) at "quiet"-ish level
# 5 (errors and warnings incl. WARN splats; the dmesg ring gets everything
# anyway); panic=-1 + -no-reboot end QEMU at once on a panic. No oops=panic:
# the tests want to see an oops in dmesg and go on.
append="console=ttyS0 loglevel=5 panic=-1 rdinit=/init refnic.msize=$msize"
append+=" i8042.noaux i8042.nomux i8042.nopnp i8042.dumbkbd no_timer_check"
append+=" ${REFNIC_VM_APPEND:-}"

args=("${qemu_common[@]}" -M q35 -accel "$accel_opt" -cpu "$cpu" -smp "$cpus" -m "$mem"
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	-chardev "file,id=ser,path=$(qesc "$console")" -serial chardev:ser)
# NUMA nodes: node i has CPUs i*C/N .. (i+1)*C/N - 1 and M/N MB (SRAT).
if [ "$numa" -gt 1 ]; then
	for ((i = 0; i < numa; i++)); do
		per=$((cpus / numa))
		args+=(-object "memory-backend-ram,id=numa$i,size=$((mem / numa))M"
			-numa "node,nodeid=$i,memdev=numa$i,cpus=$((i * per))-$((i * per + per - 1))")
	done
fi
fs9p root / refnic_root readonly=on
fs9p out "$out" refnic_out
fs9p ctl "$ctl" refnic_ctl
# ioeventfd=off: guest writes to the ports reach the chardev synchronously,
# so nothing is still in flight when the guest powers off.
args+=(-device 'virtio-serial-pci,ioeventfd=off')

# relay NAME FD: a FIFO whose reader copies to our FD (inheriting the very
# same open file: exact bytes, correct interleaving with 2>&1 into a file);
# QEMU gets the FIFO's write end as a file chardev. Why not our fds
# directly: QEMU ignores SIGPIPE, so with `vm.sh run -- yes | head -1` the
# guest would never learn that the reader is gone; here the relay dies,
# we notice and stop the VM (exit 141, like a command killed by SIGPIPE).
# Also QEMU's file chardev cannot take ttys (read-write fds) or sockets.
relay() {
	local fifo=$ctl/$1.fifo fd=$2
	mkfifo "$fifo"
	cat <"$fifo" >&"$fd" &
	relays+=("$!")
	# opening the write end completes once cat has opened the read end
	exec {wfd}>"$fifo"
	wfds+=("$wfd")
	args+=(-add-fd "fd=$wfd,set=$wfd" -chardev "file,id=$1,path=/dev/fdset/$wfd,append=on"
		-device "virtserialport,chardev=$1,name=refnic.$1")
}
wfds=()
if [ "$mode" = run ]; then
	relay stdout 1
	relay stderr 2
else
	# signal=off: ^C/^Z go to the guest's shell, not to QEMU
	args+=(-chardev 'stdio,id=ctty,signal=off' -device 'virtconsole,chardev=ctty')
fi

tail_console() {
	say "---- last 60 lines of the console log ($console) ----"
	tail -n 60 "$console" | sed 's/\r$//' >&2 || true
	say "---- end of console log ----"
}

# If we die (even SIGKILL), QEMU gets SIGTERM instead of running on without
# its timeout (setpriv is util-linux, present on Debian).
pdeath=()
command -v setpriv >/dev/null && pdeath=(setpriv --pdeathsig TERM)
# QEMU's own messages go to a file, printed at the end (minus the expected
# "terminating on signal" when we stop it), so they never interleave with
# the guest's stderr and do not litter a broken-pipe exit.
qerr=$ctl/qemu.err
qemu_msgs() {
	grep -v 'terminating on signal' "$qerr" >&2 2>/dev/null || true
}
if [ "$mode" = run ]; then
	"${pdeath[@]}" "$qemu" "${args[@]}" </dev/null 2>"$qerr" &
else
	# explicit redirection: a background job's stdin would be /dev/null
	"${pdeath[@]}" "$qemu" "${args[@]}" <&0 2>"$qerr" &
fi
qpid=$!
# QEMU has its own copies now; the relays see EOF once QEMU exits.
for fd in "${wfds[@]}"; do exec {fd}>&-; done
sleep "$timeout" &
spid=$!

qrc=0
live=("$qpid" "$spid" "${relays[@]}")
while :; do
	finished='' st=0
	wait -n -p finished "${live[@]}" || st=$?
	if [ "$finished" != "$qpid" ] && ! kill -0 "$qpid" 2>/dev/null; then
		# QEMU ended together with what wait -n reported (a relay seeing
		# EOF); wait -n will not report an already reaped job again
		finished=$qpid st=0
		wait "$qpid" || st=$?
	fi
	if [ "$finished" = "$qpid" ]; then
		qrc=$st qpid=''
		break
	elif [ "$finished" = "$spid" ]; then
		spid=''
		say "timeout: the VM ran longer than ${timeout}s, killing QEMU"
		kill "$qpid" 2>/dev/null || true
		# QEMU restores the terminal on SIGTERM; insist if it does not go away
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$qpid" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
		qpid=''
		qemu_msgs
		tail_console
		exit 124
	elif [ -n "$finished" ]; then
		# a relay ended before QEMU: our reader went away (or write error)
		if [ "$st" -ne 0 ]; then
			kill "$qpid" 2>/dev/null || true
			wait "$qpid" 2>/dev/null || true
			qpid=''
			exit 141
		fi
		rest=()
		for p in "${live[@]}"; do [ "$p" = "$finished" ] || rest+=("$p"); done
		live=("${rest[@]}")
	fi
done
kill "$spid" 2>/dev/null || true
wait "$spid" 2>/dev/null || true
spid=''
# all output copied before we report anything or exit
[ ${#relays[@]} -eq 0 ] || wait "${relays[@]}" 2>/dev/null || true
qemu_msgs

if [ -s "$ctl/setup_failed" ]; then
	read -r n src <"$ctl/setup_failed"
	say "--setup command #$n failed with exit status $src: ${setups[$((n - 1))]}"
	exit 126
fi
if [ -s "$ctl/status" ]; then
	status=$(<"$ctl/status")
	[[ $status =~ ^[0-9]+$ ]] && exit "$status"
fi
say "the guest died without reporting an exit status (QEMU exit status $qrc)"
tail_console
exit 125
