#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs the built refnic-ethtool against a fake "real ethtool" that records its arguments.
# Offline by default; with --live it also reads tcp-data-split of lo from the kernel.
# Usage: end-to-end.sh REFNIC_ETHTOOL SCRATCH_DIR [--live]
set -eu
tool=$1 scratch=$2 live=${3:-}

rm -rf "$scratch"
mkdir -p "$scratch/bin"
fake=$scratch/fake-ethtool
record=$scratch/record
# The fake prints each argument on its own line into $record; its behaviour comes from
# FAKE_STDOUT (printed) and FAKE_STATUS (exit status).
cat >"$fake" <<'FAKE'
#!/bin/sh
: >"$FAKE_RECORD"
for arg in "$@"; do printf '%s\n' "$arg" >>"$FAKE_RECORD"; done
printf '%b' "${FAKE_STDOUT:-}"
exit "${FAKE_STATUS:-0}"
FAKE
chmod +x "$fake"
ln -s "$tool" "$scratch/bin/ethtool"

export FAKE_RECORD=$record REFNIC_REAL_ETHTOOL=$fake
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# run EXPECTED_STATUS ARGS...: runs the tool, keeping stdout and stderr in $out and $err.
run() {
    expected=$1; shift
    rm -f "$record"
    status=0
    "$tool" "$@" >"$scratch/out" 2>"$scratch/err" || status=$?
    out=$(cat "$scratch/out") err=$(cat "$scratch/err")
    [ "$status" = "$expected" ] || fail "$*: exit $status, expected $expected; stderr: $err"
}
recorded() { if [ -f "$record" ]; then cat "$record"; else echo "<not run>"; fi; }
expect_recorded() {
    want=$(printf '%s\n' "$@")
    [ "$(recorded)" = "$want" ] || fail "real ethtool got [$(recorded)], expected [$want]"
}
nl='
'

# Other commands reach the real ethtool unchanged, including awkward arguments and the status.
FAKE_STATUS=3 run 3 -i "eth 0" --debug "" 'x*'
expect_recorded -i "eth 0" --debug "" 'x*'
run 0 -G eth0 rx 512
expect_recorded -G eth0 rx 512
run 0 -j -S eth0
expect_recorded --json -S eth0
run 0 --debug 1 -i eth0
expect_recorded --debug 1 -i eth0
# -V is refnic-ethtool's own; --version the real ethtool's.
run 0 -V
expect_recorded "<not run>"
case $out in "refnic-ethtool "*" (real ethtool: $fake)") ;; *) fail "-V: $out" ;; esac
run 0 --version
expect_recorded --version

# Installed as `ethtool` first on PATH, it still runs the real one...
rm -f "$record"
PATH=$scratch/bin:$PATH ethtool -k eth1 >/dev/null
expect_recorded -k eth1
# ...and refuses to run itself.
REFNIC_REAL_ETHTOOL=$scratch/bin/ethtool run 127 -k eth1
case $err in *"is refnic-ethtool itself"*) ;; *) fail "self-reference not reported: $err" ;; esac
REFNIC_REAL_ETHTOOL=ethtool run 127 -k eth1
REFNIC_REAL_ETHTOOL=$scratch/missing run 127 -k eth1

# -G: other ring parameters go to the real ethtool first; its failure stops everything, so the
# kernel is never asked here.
FAKE_STATUS=81 run 81 -G eth0 rx 512 tcp-data-split on tx 64
expect_recorded -G eth0 rx 512 tx 64
# A bad tcp-data-split is refused before anything runs.
run 1 -G eth0 rx 512 tcp-data-split yes
expect_recorded "<not run>"
[ "$err" = "refnic-ethtool: invalid tcp-data-split value \"yes\": expected on, off or auto; see 'refnic-ethtool --help'" ] ||
    fail "bad value message: $err"
# Global flags before -G: they go with the other ring parameters.
FAKE_STATUS=81 run 81 --debug 1 -G eth0 rx 512 tcp-data-split on
expect_recorded --debug 1 -G eth0 rx 512

# -g: output that already has the line is passed through untouched.
ring_output="Ring parameters for eth0:\nRX:\t\t256\nTCP data split:\tn/a\n"
FAKE_STDOUT=$ring_output run 0 -g eth0
expect_recorded -g eth0
[ "$out" = "$(printf '%b' "$ring_output")" ] || fail "-g output changed: $out"
# With --json (or -j) too, when ethtool's JSON has the key already.
ring_json='[ {\n    "ifname": "eth0",\n    "tcp-data-split": "on"\n} ]\n'
FAKE_STDOUT=$ring_json run 0 -j -g eth0
expect_recorded --json -g eth0
[ "$out" = "$(printf '%b' "$ring_json")" ] || fail "-j -g output changed: $out"
# ethtool 6.1 refuses --json -g: its error and status stand.
FAKE_STATUS=1 run 1 --json -g eth0
expect_recorded --json -g eth0
# A failing real ethtool keeps its status, and nothing is appended.
FAKE_STDOUT="partial\n" FAKE_STATUS=75 run 75 --show-ring eth0
[ "$out" = "partial" ] || fail "-g failure output changed: $out"

# --help: ours, then the real one's.
FAKE_STDOUT="FAKE HELP\n" run 0 --help
case $out in *"tcp-data-split on|off|auto"*"FAKE HELP"*) ;; *) fail "help: $out" ;; esac
expect_recorded --help

if [ "$live" = "--live" ]; then
    # The kernel reports lo's ring parameters as unsupported (or, one day, readable).
    run_status=0
    rm -f "$record"
    FAKE_STDOUT="Ring parameters for lo:\n" "$tool" -g lo >"$scratch/out" 2>"$scratch/err" ||
        run_status=$?
    out=$(cat "$scratch/out") err=$(cat "$scratch/err")
    case "$run_status:$out:$err" in
        "1:Ring parameters for lo::refnic-ethtool: lo: cannot read tcp-data-split: "?*) ;;
        "0:Ring parameters for lo:${nl}TCP data split:	"*) ;;
        *) fail "-g lo: status $run_status, stdout [$out], stderr [$err]" ;;
    esac
    # Setting it on lo is refused by the kernel with its extack message, exit status 81.
    run 81 -G lo tcp-data-split on
    expect_recorded "<not run>"
    case $err in "refnic-ethtool: lo: cannot set tcp-data-split: "?*) ;; *) fail "-G lo: $err" ;; esac
fi

[ "$failures" = 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "refnic-ethtool end-to-end: all passed"
