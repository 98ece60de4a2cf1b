#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Installs the build tree into a scratch prefix, then builds and runs a small consumer of
# librefnic twice: through pkg-config (refnic.pc) and through find_package(refnic).
# Usage: check-consumer.sh BUILD_DIR SCRATCH_DIR CONSUMER_SOURCE_DIR CMAKE CXX
set -eu
build_dir=$1 scratch=$2 source_dir=$3 cmake=$4 cxx=$5
prefix=$scratch/prefix

rm -rf "$scratch"
mkdir -p "$scratch"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$scratch/install.log"

pc_dir=$(dirname "$(find "$prefix" -name refnic.pc)")
libdir=$(PKG_CONFIG_PATH=$pc_dir pkg-config --variable=libdir refnic)
# shellcheck disable=SC2046 # pkg-config output is meant to be split into arguments
"$cxx" -std=c++20 -o "$scratch/consumer-pkgconfig" "$source_dir/consumer.cpp" \
    $(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs refnic) -Wl,-rpath,"$libdir"
"$scratch/consumer-pkgconfig"
# shellcheck disable=SC2046
"$cxx" -std=c++20 -Wall -Wextra -Werror -o "$scratch/example-pkgconfig" "$source_dir/example.cpp" \
    $(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs refnic) -Wl,-rpath,"$libdir"

"$cmake" -S "$source_dir" -B "$scratch/cmake-consumer" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_COMPILER="$cxx" >"$scratch/configure.log"
"$cmake" --build "$scratch/cmake-consumer" >"$scratch/build.log"
"$scratch/cmake-consumer/consumer"

# The installed tool finds the installed library by its relative RPATH.
"$prefix/bin/refnic-ethtool" --help >/dev/null
"$prefix/bin/refnicctl" --help >/dev/null
"$prefix/bin/refnic-devmem" --help >/dev/null
"$prefix/bin/refnic-bypass" --help >/dev/null
for header in bypass.hpp control.hpp devmem.hpp netdev.hpp fd.hpp types.hpp; do
    [ -f "$prefix/include/refnic/$header" ] || { echo "not installed: refnic/$header"; exit 1; }
done
echo "install check passed: $prefix"
