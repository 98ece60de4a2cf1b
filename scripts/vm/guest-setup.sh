# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# refnic test VM, guest side. Run as root inside the VM by the initramfs
# /init (stage 2, PID 1) after switch_root into the host's root (shared
# read-only over 9p), as "busybox sh guest-setup.sh". It is read from the 9p
# root at run time, so editing it needs no initramfs rebuild.
#
# Why busybox sh and busybox applets, not bash + coreutils: under TCG every
# exec of a dynamically linked binary from the 9p root costs ~50-100 ms (the
# loader opens and maps several files over 9p); busybox is static and runs
# from tmpfs (and Debian's build runs most applets in-process). This script
# only ever execs busybox; the user's command starts through bash.
# Caveat: Debian's busybox prefers its applets over $PATH, so never exec a
# user command by bare name from here: the command files below use absolute
# paths (/bin/bash ...), busybox env then execs the real binary.
#
# It finishes the environment (pseudo file systems, fresh tmpfs on the
# writable places, /lib/modules/$(uname -r) showing vm.sh's --modules dir,
# the writable --out share at its host path), runs the --setup commands and
# then CMD (mode run) or an interactive login shell (mode shell), and writes
# the exit status to $ctl/status. It does not power off: PID 1 does that when
# we return. Returning without a status makes vm.sh exit 125 and print the
# console tail, so fatal errors go to our stdout, the serial console.
#
# Files on the control share ($ctl), written by vm.sh, POSIX-sh quoted:
#   guest_setup the path of this script (read by init)
#   config      VM_MODE VM_OUT VM_CWD VM_MODULES VM_MSIZE VM_ROWS VM_COLS
#               VM_NSETUP
#   cmd.sh      "set -- ENV... /bin/bash -c 'exec \"\$@\"' refnic-vm CMD ARGS"
#               (mode shell: "set -- ENV... /usr/bin/setsid -c -w /bin/bash -l")
#   setup.N.sh  "set -- ENV... /bin/bash -c 'SETUP COMMAND N'", N = 1..VM_NSETUP
#   sysctl      "PATH VALUE" lines (vm.sh --sysctl), written here before
#               the setup commands run
#   status      written here: the exit status (decimal)
#   setup_failed  written here: "N STATUS" when --setup N failed (then 126)

if [ "${REFNIC_VM_DEBUG:-}" = 1 ]; then set -x; fi
ctl=/run/refnic-vm/ctl
bb=/run/refnic-vm/busybox # PID 1 runs from this copy, so it is always there

fatal() {
	echo "refnic-vm guest-setup: FATAL: $*"
	exit 1
}
warn() { echo "refnic-vm guest-setup: warning: $*"; }

# shellcheck source=/dev/null
. "$ctl/config" || fatal "cannot read $ctl/config"

# mnt FSTYPE DIR [OPTIONS]: mount a pseudo/tmp file system (a fresh VM: no
# need to check whether something is mounted there already).
mnt() {
	[ -d "$2" ] || mkdir -p "$2" 2>/dev/null
	mount -t "$1" ${3:+-o "$3"} "$1" "$2"
}

# ---- essentials (fatal on failure) ----------------------------------------
# /proc, /sys and /dev (devtmpfs) were moved here by init.
if ! [ -e /dev/null ] || ! [ -d /sys/class ] || ! [ -e /proc/self/mountinfo ]; then
	fatal "/proc, /sys or /dev not mounted by init"
fi
# A private devpts instance; /dev/ptmx must point into it.
mnt devpts /dev/pts newinstance,ptmxmode=0666,mode=0620,gid=5,nosuid,noexec ||
	fatal "mount /dev/pts"
ln -sfn pts/ptmx /dev/ptmx || fatal "/dev/ptmx"
# Upstream selftests (and bash process substitution) need these links.
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
ln -sfn /proc/kcore /dev/core
mnt tmpfs /dev/shm mode=1777,nosuid,nodev || fatal "mount /dev/shm"

# Host directories the guest must still see although they lie below a
# directory that gets a fresh tmpfs next: the working directory (a CI clone
# under /tmp, say) and the modules tree. Bind them aside now and put them
# back on top of the tmpfs afterwards.
kept=
keep_n=0
for keep in "$VM_CWD" "$VM_MODULES"; do
	case $keep in /tmp/* | /var/tmp/* | /root/*) ;; *) continue ;; esac
	[ -d "$keep" ] || continue
	keep_n=$((keep_n + 1))
	mkdir -p "/run/refnic-vm/keep/$keep_n"
	mount --bind "$keep" "/run/refnic-vm/keep/$keep_n" || fatal "bind $keep"
	kept="$kept $keep_n"
	eval "keep_path_$keep_n=\$keep"
done

# Fresh writable scratch space: the 9p root is read-only. /run is already a
# tmpfs (init put it there to hold busybox and the control share).
mnt tmpfs /tmp mode=1777,nosuid,nodev || fatal "mount /tmp"
mnt tmpfs /var/tmp mode=1777,nosuid,nodev || fatal "mount /var/tmp"
mnt tmpfs /root mode=0700 || fatal "mount /root"

for n in $kept; do
	eval "keep=\$keep_path_$n"
	mkdir -p "$keep" || fatal "mkdir $keep"
	mount --move "/run/refnic-vm/keep/$n" "$keep" || fatal "move back $keep"
done
mkdir -p /run/lock /run/netns /run/user && chmod 1777 /run/lock

# /lib/modules/$(uname -r) must show the --modules tree so that modprobe and
# kernel module autoloading work for Debian's and for a custom kernel. Stage
# the tree first: for Debian's kernel it lives in /lib/modules itself, which
# the tmpfs is about to hide.
kver=$(uname -r)
stage=/run/refnic-vm/modules
mkdir -p "$stage"
mount --bind "$VM_MODULES" "$stage" || fatal "bind $VM_MODULES"
mount -t tmpfs -o mode=0755 tmpfs /lib/modules || fatal "tmpfs on /lib/modules"
mkdir -p "/lib/modules/$kver"
mount --move "$stage" "/lib/modules/$kver" || fatal "move $stage to /lib/modules/$kver"
rmdir "$stage"

# The writable share at the same absolute path as on the host. Mounted after
# the tmpfs mounts so that an --out below /tmp etc. still works (mkdir then
# happens in the tmpfs). cache=mmap: writable shared mmap works (PID 1 syncs
# before powering off).
[ -d "$VM_OUT" ] || mkdir -p "$VM_OUT"
mount -t 9p -o "trans=virtio,version=9p2000.L,msize=$VM_MSIZE,cache=mmap" \
	refnic_out "$VM_OUT" || fatal "cannot mount the --out share at $VM_OUT"

# ---- nice to have (warn on failure) ---------------------------------------
mnt mqueue /dev/mqueue || warn "mount /dev/mqueue"
mnt debugfs /sys/kernel/debug || warn "mount debugfs"
mnt tracefs /sys/kernel/tracing || warn "mount tracefs"
mnt securityfs /sys/kernel/security 2>/dev/null
mnt cgroup2 /sys/fs/cgroup nsdelegate || warn "mount cgroup2"
# configfs is loaded by init when it is a module (modprobe would cost an exec)
while read -r _ fs; do
	case $fs in
	bpf) mnt bpf /sys/fs/bpf mode=0700 || warn "mount bpffs" ;;
	configfs) mnt configfs /sys/kernel/config || warn "mount configfs" ;;
	esac
done </proc/filesystems

# Device nodes that load their module on first open (/dev/net/tun, fuse,
# ...), as systemd-tmpfiles does from `kmod static-nodes` on a real system.
if [ -r "/lib/modules/$kver/modules.devname" ]; then
	while read -r _mod name dev; do
		# e.g. "tun net/tun c10:200"
		case $_mod in '#'* | '') continue ;; esac
		[ -e "/dev/$name" ] && continue
		case $name in */*) mkdir -p "/dev/${name%/*}" ;; esac
		mode=0600
		case $name in net/tun | fuse) mode=0666 ;; esac
		majmin=${dev#?}
		mknod -m "$mode" "/dev/$name" "${dev%"$majmin"}" "${majmin%%:*}" "${majmin#*:}" ||
			warn "mknod /dev/$name"
	done <"/lib/modules/$kver/modules.devname"
fi
echo refnic-vm >/proc/sys/kernel/hostname
# vm.sh --sysctl settings, e.g. the harness's hung-task timeout. A kernel
# without the knob (no CONFIG_DETECT_HUNG_TASK, say) still runs the command.
if [ -s "$ctl/sysctl" ]; then
	while read -r path value; do
		echo "$value" 2>/dev/null >"$path" || warn "cannot set $path to $value"
	done <"$ctl/sysctl"
fi
ip link set lo up || warn "cannot bring lo up"

# ---- the user's command ----------------------------------------------------
# Channels to vm.sh: mode run uses two virtio-serial ports that are NOT ttys
# (byte-exact output, isatty() false as in CI, stdout and stderr separate);
# mode shell uses the virtio console hvc0, a real tty on vm.sh's terminal.
# Whatever is used ends up on fds 3 (stdout) and 4 (stderr) of this shell.
port_dev() {
	for p in /sys/class/virtio-ports/*; do
		read -r n <"$p/name" 2>/dev/null || continue
		[ "$n" = "$1" ] && { echo "/dev/${p##*/}"; return 0; }
	done
	return 1
}
relays=
if [ "$VM_MODE" = run ]; then
	out_dev=$(port_dev refnic.stdout) || fatal "no virtio port refnic.stdout"
	err_dev=$(port_dev refnic.stderr) || fatal "no virtio port refnic.stderr"
	in_dev=/dev/null
	# A virtio port can be open only once (EBUSY), yet commands reopen their
	# stdout/stderr (echo >/dev/stderr, tee /dev/stdout: /proc/self/fd/N).
	# So CMD writes into FIFOs (reopenable) and a cat copies each to its port.
	fo=/run/refnic-vm/stdout.fifo fe=/run/refnic-vm/stderr.fifo
	mkfifo "$fo" "$fe" || fatal "mkfifo"
	cat <"$fo" >"$out_dev" &
	relays=$!
	cat <"$fe" >"$err_dev" &
	relays="$relays $!"
	exec 3>"$fo" 4>"$fe"
else
	in_dev=/dev/hvc0
	# Keep hvc0 open: the tty (and its window size) is reset on last close.
	exec 9<>/dev/hvc0 3>&9 4>&9
	stty sane <&9
	if [ -n "$VM_ROWS" ] && [ -n "$VM_COLS" ]; then
		stty rows "$VM_ROWS" cols "$VM_COLS" <&9
	fi
fi

set_status() {
	echo "$1" >"$ctl/status.tmp" && mv -f "$ctl/status.tmp" "$ctl/status"
}

# finish STATUS: let the relays drain, report STATUS, return to PID 1. The
# relays end when the last writer closes; a daemon left running by CMD may
# hold its stdout open for ever: give up on it after a second.
finish() {
	exec 3>&- 4>&- 9>&-
	if [ -n "$relays" ]; then
		(
			sleep 1
			# shellcheck disable=SC2086 # two pids
			kill $relays 2>/dev/null
		) &
		killer=$!
		# shellcheck disable=SC2086
		wait $relays
		kill "$killer" 2>/dev/null
	fi
	set_status "$1"
	exit 0
}

if ! cd "$VM_CWD" 2>/dev/null; then
	# e.g. a host cwd below /tmp: the guest has a fresh tmpfs there
	echo "refnic-vm: warning: cwd $VM_CWD does not exist in the guest, using /" >&4
	cd /
fi

# run FILE STDIN STDOUT_FD: source a command file (it sets "$@") and run that
# with exactly the environment it names, stdout on fd STDOUT_FD (3, or 4 to
# send it to stderr), stderr on fd 4; in a subshell so that we get its status
# back. The redirections are made inside the subshell: ash reports a child
# killed by a signal ("Killed") on the waiting shell's stderr, which must
# stay the console, not CMD's stderr.
run() {
	(
		if [ "$3" = 4 ]; then exec >&4; else exec >&3; fi
		exec <"$2" 2>&4 3>&- 4>&- 9>&-
		# shellcheck source=/dev/null
		. "$1" || exit 125
		exec "$bb" env -i "$@"
	)
}

i=1
while [ "$i" -le "$VM_NSETUP" ]; do
	# stdout to stderr as well: CMD's stdout must be CMD's output only
	run "$ctl/setup.$i.sh" /dev/null 4
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "$i $rc" >"$ctl/setup_failed"
		finish 126
	fi
	i=$((i + 1))
done

run "$ctl/cmd.sh" "$in_dev" 3
finish "$?"
