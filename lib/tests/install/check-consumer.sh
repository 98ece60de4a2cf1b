#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Installs the build tree into a scratch prefix, then builds and runs small consumers of
# librefnic the way an outside program would, from the installed files alone: C++ and C through
# pkg-config (refnic.pc) and through find_package(refnic), and the installed examples with their
# Makefile. Also checks that every header, the uAPI headers and the YNL spec are there.
# Usage: check-consumer.sh BUILD_DIR SCRATCH_DIR CONSUMER_SOURCE_DIR CMAKE CXX CC
set -eu
build_dir=$1 scratch=$2 source_dir=$3 cmake=$4 cxx=$5 cc=$6
prefix=$scratch/prefix

rm -rf "$scratch"
mkdir -p "$scratch"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$scratch/install.log"

pc_dir=$(dirname "$(find "$prefix" -name refnic.pc)")
export PKG_CONFIG_PATH="$pc_dir"
libdir=$(pkg-config --variable=libdir refnic)
# shellcheck disable=SC2046 # pkg-config output is meant to be split into arguments
"$cxx" -std=c++20 -o "$scratch/consumer-pkgconfig" "$source_dir/consumer.cpp" \
    $(pkg-config --cflags --libs refnic) -Wl,-rpath,"$libdir"
"$scratch/consumer-pkgconfig"
# shellcheck disable=SC2046
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$scratch/consumer-c-pkgconfig" \
    "$source_dir/consumer.c" $(pkg-config --cflags --libs refnic) -Wl,-rpath,"$libdir"
"$scratch/consumer-c-pkgconfig"

"$cmake" -S "$source_dir" -B "$scratch/cmake-consumer" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" >"$scratch/configure.log"
"$cmake" --build "$scratch/cmake-consumer" >"$scratch/build.log"
"$scratch/cmake-consumer/consumer"
"$scratch/cmake-consumer/consumer_c"

# The installed examples build with their installed Makefile (and run only with refnic.ko).
examples=$prefix/share/doc/refnic/examples
cp -r "$examples" "$scratch/examples"
make -s -C "$scratch/examples" CC="$cc" CXX="$cxx" CFLAGS="-O2 -Wall -Wextra -Werror" \
    CXXFLAGS="-O2 -Wall -Wextra -Werror" LDFLAGS="-Wl,-rpath,$libdir" >"$scratch/examples.log"
for example in control devmem_rx bypass_rx bypass_rx_ring; do
    [ -x "$scratch/examples/$example" ] || { echo "example not built: $example"; exit 1; }
done

# The installed tool finds the installed library by its relative RPATH.
"$prefix/bin/refnic-ethtool" --help >/dev/null
"$prefix/bin/refnicctl" --help >/dev/null
"$prefix/bin/refnic-devmem" --help >/dev/null
"$prefix/bin/refnic-bypass" --help >/dev/null
[ "$("$prefix/bin/refnicctl" -V)" = "refnicctl $(cat "$source_dir/../../../kmod/VERSION")" ] ||
    { echo "refnicctl -V: $("$prefix/bin/refnicctl" -V)"; exit 1; }
for file in include/refnic/bypass.hpp include/refnic/control.hpp include/refnic/devmem.hpp \
    include/refnic/netdev.hpp include/refnic/fd.hpp include/refnic/types.hpp \
    include/refnic/bypass.h include/refnic/version.h include/refnic/export.hpp \
    include/refnic/uapi/linux/refnic.h include/refnic/uapi/linux/refnic_bypass.h \
    include/refnic/uapi/linux/if_refnic.h share/ynl/specs/refnic.yaml \
    share/man/man8/refnicctl.8 share/man/man8/refnic-devmem.8 share/man/man8/refnic-bypass.8 \
    share/man/man8/refnic-ethtool.8 share/man/man4/refnic.4 share/man/man3/librefnic.3 \
    share/bash-completion/completions/refnicctl share/bash-completion/completions/refnic-devmem \
    share/bash-completion/completions/refnic-bypass \
    share/bash-completion/completions/refnic-ethtool; do
    [ -f "$prefix/$file" ] || { echo "not installed: $file"; exit 1; }
done
cmp "$prefix/share/ynl/specs/refnic.yaml" "$source_dir/../../../uapi/refnic.yaml"
echo "install check passed: $prefix"
