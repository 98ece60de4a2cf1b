#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Generate the code of the refnic generic netlink family from its YNL spec,
# uapi/refnic.yaml, with the kernel's own generator (tools/net/ynl/
# ynl-gen-c.py from linux-source-6.12), as upstream families are:
#
#   uapi/linux/refnic.h       the uAPI: commands, attributes, enums
#   kmod/refnic_nl_gen.h/.c   the kernel's policies and genl_split_ops
#
#   scripts/ynl-gen.sh           regenerate the files in place
#   scripts/ynl-gen.sh --check   validate the spec against the kernel's
#                                genetlink schema and fail if a generated
#                                file differs from what is committed
#
# The generator finds the schema two directories above the spec, and loops
# forever unless a MAINTAINERS file exists in a parent directory: it runs in
# a scratch tree laid out as Documentation/netlink/ is.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
ksrc=$repo/build/linux-source
[ -f "$ksrc/tools/net/ynl/ynl-gen-c.py" ] || "$repo/scripts/kernel-source.sh" >/dev/null
gen=$ksrc/tools/net/ynl/ynl-gen-c.py
check=0
[ "${1:-}" = --check ] && check=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/netlink/specs" "$tmp/out"
cp "$ksrc"/Documentation/netlink/*.yaml "$tmp/netlink/"
cp "$repo/uapi/refnic.yaml" "$tmp/netlink/specs/refnic.yaml"
touch "$tmp/MAINTAINERS"
spec=$tmp/netlink/specs/refnic.yaml

run_gen() { # run_gen MODE --header|--source OUT
	(cd "$tmp" && timeout 120 python3 "$gen" --mode "$1" "$2" \
		--spec "$spec" -o "$3")
}
run_gen uapi --header "$tmp/out/refnic.h"
run_gen kernel --header "$tmp/out/refnic_nl_gen.h"
run_gen kernel --source "$tmp/out/refnic_nl_gen.c"

# The generator names the spec by its path relative to the scratch tree and
# includes the uAPI as the kernel tree has it; refnic builds out of tree
# with uapi/ on the include path.
sed -i 's|^/\*\tnetlink/specs/refnic.yaml \*/|/*\tuapi/refnic.yaml */|' "$tmp"/out/*
sed -i 's|#include <uapi/linux/refnic.h>|#include <linux/refnic.h>|' \
	"$tmp"/out/refnic_nl_gen.[ch]

declare -A dest=(
	[refnic.h]=$repo/uapi/linux/refnic.h
	[refnic_nl_gen.h]=$repo/kmod/refnic_nl_gen.h
	[refnic_nl_gen.c]=$repo/kmod/refnic_nl_gen.c
)
rc=0
for f in "${!dest[@]}"; do
	if [ "$check" -eq 1 ]; then
		if ! diff -u "${dest[$f]}" "$tmp/out/$f"; then
			echo "${dest[$f]#"$repo"/} is not what uapi/refnic.yaml generates: run scripts/ynl-gen.sh" >&2
			rc=1
		fi
	else
		cp "$tmp/out/$f" "${dest[$f]}"
	fi
done
[ "$check" -eq 0 ] || [ "$rc" -ne 0 ] || echo "uapi/refnic.yaml: valid; generated files up to date"
exit "$rc"
