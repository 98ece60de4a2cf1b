#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The hard boundary inside refnic.ko: the driver reaches the device model
# only through the datasheet (refnic_hw.h) and the bus (refnic_bus.h), as a
# real driver reaches hardware only through registers, DMA memory and its
# bus; the model knows nothing of the driver. This check fails on any local
# include that crosses the line.
set -uo pipefail

kmod=${1:-$(cd "$(dirname "$0")/../kmod" && pwd)}
shared='refnic_hw\.h|refnic_bus\.h|refnic_kcompat\.h'
bad=0

# Driver: kmod/*.c and kmod/*.h may include driver headers and the shared
# ones (refnic_hw.h, refnic_bus.h, refnic_kcompat.h), never anything under
# model/.
for f in "$kmod"/*.c "$kmod"/*.h; do
	[ -e "$f" ] || continue
	while IFS= read -r line; do
		echo "${f#"$kmod"/}: driver includes a device-model header: $line"
		bad=1
	done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*model/' "$f")
done

# Management plane (kmod/mgmt/: the refnic netlink family, the "test
# equipment" side of the card): driver headers, and from the model only its
# control API, model/refnic_model.h, never the model's internals.
for f in "$kmod"/mgmt/*.c "$kmod"/mgmt/*.h; do
	[ -e "$f" ] || continue
	while IFS= read -r line; do
		echo "mgmt/${f#"$kmod"/mgmt/}: includes a device-model internal: $line"
		bad=1
	done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*model/' "$f" |
		grep -v '"\.\./model/refnic_model\.h"')
done

# Model: kmod/model/ may include its own headers and the shared ones only.
for f in "$kmod"/model/*.c "$kmod"/model/*.h; do
	[ -e "$f" ] || continue
	while IFS= read -r line; do
		inc=$(echo "$line" | sed -E 's/.*"([^"]*)".*/\1/')
		case $inc in
		../*) echo "$inc" | grep -Eq "^\.\./($shared)$" && continue ;;
		*/*) ;;
		*) [ -e "$kmod/model/$inc" ] && continue ;;
		esac
		echo "model/${f#"$kmod"/model/}: model includes a driver header: $line"
		bad=1
	done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
done

[ "$bad" -eq 0 ] && echo "driver/model boundary: clean"
exit "$bad"
