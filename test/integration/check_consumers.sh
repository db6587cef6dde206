#!/usr/bin/env bash
# check_consumers.sh SOURCE_ROOT BUILD_DIR: a user's view of tilefw, three ways:
#   1. an installed tilefw (meson install --destdir, then pkg-config): build and run a
#      consumer; the install also holds share/tilefw/tilefw_device.ld, named by the .pc
#      variable `linkerdir`;
#   2. tilefw as a Meson subproject through dependency('tilefw', fallback : [...]) (configure
#      only: meson must fall back to the subproject, whose override then answers);
#   3. subproject('tilefw') followed by a plain dependency('tilefw', allow_fallback : false),
#      which only meson.override_dependency('tilefw', ...) can satisfy: build and run.
# In 2 and 3 pkg-config can see no tilefw at all (empty PKG_CONFIG_LIBDIR), and meson's output
# must say where the dependency came from, so a lookup that silently found an installed copy
# cannot pass.
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. install + pkg-config
meson install -C "$build" --destdir "$work/root" --no-rebuild >/dev/null
pcdir=$(dirname "$(find "$work/root" -name tilefw.pc | head -1)")
(
  export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$work/root"  # the staged install
  prefix=$(pkg-config --variable=prefix tilefw)
  flags=$(pkg-config --cflags --libs tilefw)
  g++ -std=c++20 -fno-exceptions -fno-rtti "$src/test/integration/consumer/main.cpp" $flags \
    -o "$work/consumer-pc"
  "$work/consumer-pc"
  linkerdir=$(pkg-config --variable=linkerdir tilefw)
  test -f "$linkerdir/tilefw_device.ld" || { echo "no tilefw_device.ld in $linkerdir"; exit 1; }
  echo "installed consumer OK (prefix $prefix, linker scripts in $linkerdir)"
)

# Parts 2 and 3: no tilefw visible to pkg-config.
mkdir -p "$work/empty-pc"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
export PKG_CONFIG_LIBDIR="$work/empty-pc"
sub_opts=(-Dtilefw:tests=disabled -Dtilefw:tools=disabled -Dtilefw:benchmarks=disabled)

# make_project DIR MESON_BODY: a firmware project with tilefw under subprojects/.
make_project() {
  mkdir -p "$1/subprojects"
  ln -s "$src" "$1/subprojects/tilefw"
  cp "$src/test/integration/consumer/main.cpp" "$1/"
  printf '%s\n' "project('firmware', 'cpp', default_options : ['cpp_std=c++20', 'cpp_eh=none', 'cpp_rtti=false'])" "$2" > "$1/meson.build"
}

# 2. dependency() with a fallback, as the README shows it
make_project "$work/fw-fallback" "tilefw_dep = dependency('tilefw', fallback : ['tilefw', 'tilefw_dep'])
executable('consumer', 'main.cpp', dependencies : tilefw_dep)"
meson setup "$work/fw-fallback/build" "$work/fw-fallback" "${sub_opts[@]}" > "$work/fallback.log" 2>&1 || {
  cat "$work/fallback.log"; echo "configuring the fallback consumer failed"; exit 1; }
grep -q "Looking for a fallback subproject for the dependency tilefw" "$work/fallback.log" &&
  grep -qE "Dependency tilefw (from subproject \S+ )?found: YES" "$work/fallback.log" || {
  cat "$work/fallback.log"; echo "dependency('tilefw', fallback) did not use the subproject"; exit 1; }
echo "subproject consumer (fallback) OK"

# 3. subproject() first, then the plain name: resolved by meson.override_dependency
make_project "$work/fw-override" "subproject('tilefw')
tilefw_dep = dependency('tilefw', allow_fallback : false)
executable('consumer', 'main.cpp', dependencies : tilefw_dep)"
meson setup "$work/fw-override/build" "$work/fw-override" "${sub_opts[@]}" > "$work/override.log" 2>&1 || {
  tail -5 "$work/override.log"; echo "dependency('tilefw') after subproject('tilefw') not found"; exit 1; }
grep -q "Dependency tilefw found: YES .*(overridden)" "$work/override.log" &&
  ! grep -q "Looking for a fallback" "$work/override.log" || {
  cat "$work/override.log"; echo "dependency('tilefw') was not the override"; exit 1; }
ninja -C "$work/fw-override/build" >/dev/null
"$work/fw-override/build/consumer"
echo "subproject consumer (override_dependency) OK"
