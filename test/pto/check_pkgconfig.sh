#!/usr/bin/env bash
# check_pkgconfig.sh SOURCE_ROOT BUILD_DIR: a PTO author's view of an installed tilefw. Installs
# the build into a scratch prefix, then compiles the PTO documents' TROWSUM examples as written plus a
# driver with exactly `g++ -std=c++20 -O2 -Wall -Werror $(pkg-config --cflags --libs tilefw)` and
# runs the driver (it checks the row sums on the simulator and exits non-zero on a mismatch).
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

meson install -C "$build" --destdir "$work/root" --no-rebuild >/dev/null
pcdir=$(dirname "$(find "$work/root" -name tilefw.pc | head -1)")
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$work/root"
inc=$(pkg-config --variable=includedir tilefw)
test -f "$inc/pto/pto-inst.hpp" || { echo "pto/pto-inst.hpp is not installed under $inc"; exit 1; }
test -f "$inc/pto/host.hpp" || { echo "pto/host.hpp is not installed under $inc"; exit 1; }

cat > "$work/driver.cpp" <<'CPP'
#include <cstdio>
#include <cstring>
#include <pto/host.hpp>
void example_auto();
void example_manual();
int main() {
  pto::host::Core core;
  float* src = reinterpret_cast<float*>(core.space(tilefw::chip::MemSpace::UB, 0x1000));
  for (int i = 0; i < 256; ++i) src[i] = static_cast<float>(i % 16);  // each row sums to 120
  example_manual();
  const float* dst = reinterpret_cast<const float*>(core.space(tilefw::chip::MemSpace::UB, 0x2000));
  for (int i = 0; i < 16; ++i) {
    if (dst[i] != 120.0f) { std::printf("row %d: %g\n", i, static_cast<double>(dst[i])); return 1; }
  }
  example_auto();
  if (pto::status() != tilefw::Status::ok || core.hazard_count() != 0) return 1;
  std::printf("pto consumer OK\n");
  return 0;
}
CPP
# shellcheck disable=SC2046  # pkg-config's output is a list of words
g++ -std=c++20 -O2 -Wall -Werror "$src/test/pto/doc_examples/trowsum_auto.cpp" \
  "$src/test/pto/doc_examples/trowsum_manual.cpp" "$work/driver.cpp" \
  $(pkg-config --cflags --libs tilefw) -o "$work/pto-consumer"
"$work/pto-consumer"
