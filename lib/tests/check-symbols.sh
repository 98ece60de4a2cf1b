#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# librefnic's dynamic symbol table holds its ABI and nothing else (lib/refnic.map): every symbol
# it defines is in namespace refnic (functions, typeinfo, vtables, thunks) or one of the C
# functions of refnic/version.h, and carries the version node VERSION; nothing of the standard
# library's template instantiations (std::..., __gnu_cxx::...) is exported. And its SONAME.
# Usage: check-symbols.sh LIBRARY VERSION_NODE SONAME
set -eu
lib=$1 node=$2 soname=$3

# "ADDRESS TYPE NAME@@NODE", demangled
nm -D --defined-only -C "$lib" | cut -d' ' -f3- >"${TMPDIR:-/tmp}/refnic-symbols.$$"
trap 'rm -f "${TMPDIR:-/tmp}/refnic-symbols.$$"' EXIT
symbols=${TMPDIR:-/tmp}/refnic-symbols.$$

count=$(wc -l <"$symbols")
[ "$count" -gt 100 ] || { echo "only $count dynamic symbols in $lib"; exit 1; }
grep -qx "refnic_version@@$node" "$symbols" || { echo "no refnic_version@@$node"; exit 1; }
grep -qx "typeinfo for refnic::Error@@$node" "$symbols" ||
    { echo "refnic::Error's typeinfo is not exported: exceptions would not be caught by type"; exit 1; }

bad=$(sed 's/@@[^@]*$//' "$symbols" | grep -Ev '^(refnic::|(typeinfo|typeinfo name|vtable|VTT) for refnic::|(non-)?virtual thunk to refnic::|refnic_version$|refnic_version_string$)' |
    grep -vx "$node" || true)
if [ -n "$bad" ]; then
    echo "exported, but not librefnic's ABI:"
    echo "$bad"
    exit 1
fi
unversioned=$(grep -v "@@$node\$" "$symbols" | grep -vx "$node" || true)
if [ -n "$unversioned" ]; then
    echo "defined without the version node $node:"
    echo "$unversioned"
    exit 1
fi
readelf -d "$lib" | grep -q "Library soname: \[$soname\]" ||
    { echo "SONAME is not $soname:"; readelf -d "$lib" | grep SONAME; exit 1; }
echo "$count symbols, all refnic's, all $node; SONAME $soname"
