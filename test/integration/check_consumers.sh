#!/usr/bin/env bash
# check_consumers.sh SOURCE_ROOT BUILD_DIR: builds and runs a consumer program two ways,
#   1. against an installed tilefw (meson install --destdir, then pkg-config), and
#   2. with tilefw as a Meson subproject (dependency('tilefw') resolved by override).
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. install + pkg-config
meson install -C "$build" --destdir "$work/root" --no-rebuild >/dev/null
pcdir=$(dirname "$(find "$work/root" -name tilefw.pc | head -1)")
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$work/root"  # the staged install
prefix=$(pkg-config --variable=prefix tilefw)
flags=$(pkg-config --cflags --libs tilefw)
g++ -std=c++20 -fno-exceptions -fno-rtti "$src/test/integration/consumer/main.cpp" $flags -o "$work/consumer-pc"
"$work/consumer-pc"
echo "installed consumer OK (prefix $prefix)"

# 2. subproject
mkdir -p "$work/fw/subprojects"
ln -s "$src" "$work/fw/subprojects/tilefw"
cp "$src/test/integration/consumer/main.cpp" "$work/fw/"
cat > "$work/fw/meson.build" <<'MESON'
project('firmware', 'cpp', default_options : ['cpp_std=c++20', 'cpp_eh=none', 'cpp_rtti=false'])
tilefw_dep = dependency('tilefw', fallback : ['tilefw', 'tilefw_dep'])
executable('consumer', 'main.cpp', dependencies : tilefw_dep)
MESON
meson setup "$work/fw/build" "$work/fw" -Dtilefw:tests=disabled -Dtilefw:tools=disabled \
  -Dtilefw:benchmarks=disabled >/dev/null
ninja -C "$work/fw/build" >/dev/null
"$work/fw/build/consumer"
echo "subproject consumer OK"
