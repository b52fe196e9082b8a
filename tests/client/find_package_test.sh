#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the `client` component of BUILD_DIR into a temporary prefix, builds the consumer
# project in find_package/ against it (find_package, then pkg-config's flags), and runs it. FLAGS (optional) are the
# sanitizer flags the library was built with: its consumer must be built with them too.
set -eu
cmake=$1 build_dir=$2 flags=${3:-} here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cmake" --install "$build_dir" --component client --prefix "$work/prefix"
"$cmake" -S "$here/find_package" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags"
"$cmake" --build "$work/build"
"$work/build/consumer"
# The same consumer built with pkg-config's flags alone, as a Makefile would.
pc_dir=$(dirname "$(find "$work/prefix" -name gpumeter-client.pc)")
set -- $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs gpumeter-client)
cc -std=c99 $flags -o "$work/pc_consumer" "$here/find_package/consumer.c" "$@"
lib_dir=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --variable=libdir gpumeter-client)
LD_LIBRARY_PATH="$lib_dir" "$work/pc_consumer"
