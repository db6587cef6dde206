// libFuzzer targets for `tilefw gen`'s input readers (tools/formats/gen_config, tools/formats/safetensors).
// TILEFW_FUZZ_TARGET_CONFIG selects one:
//   1 (config):      byte 0 picks the --dtype override (none / f16 / bf16), the rest is a
//                    config.json text; parse_hf_config must return a bool (never throw, never
//                    crash), give a message on failure, and on success the rotary tables of a few
//                    positions must be finite.
//   0 (safetensors): the input is a .safetensors file (written to a per-process temporary
//                    file); open() must succeed or give a message; every entry of a sane size is
//                    then read to bf16, f16 and f32 with its own shape, and must convert.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

#include "formats/gen_config.hpp"
#include "formats/safetensors.hpp"

using namespace tilefw;
using namespace tilefw::tools;

namespace {
void require(bool c) {
  if (!c) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
#if TILEFW_FUZZ_TARGET_CONFIG
  std::optional<DType> dt;
  if (data[0] % 3 == 1) dt = DType::f16;
  if (data[0] % 3 == 2) dt = DType::bf16;
  HfConfig cfg;
  std::string error;
  if (!parse_hf_config(std::string(reinterpret_cast<const char*>(data + 1), size - 1), dt, cfg, error)) {
    require(!error.empty());
    return 0;
  }
  require(cfg.model.hidden > 0 && cfg.model.heads > 0 && cfg.model.kv_heads > 0 && cfg.rope_dim % 2 == 0);
  std::vector<float> cos, sin;
  rope_tables(cfg, 0, 3, cos, sin);
  require(cos.size() == 3u * cfg.rope_dim && sin.size() == cos.size());
  for (size_t i = 0; i < cos.size(); ++i) require(std::isfinite(cos[i]) && std::isfinite(sin[i]));
#else
  static const std::string path = "/tmp/fuzz_gen_inputs." + std::to_string(::getpid()) + ".safetensors";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  require(f != nullptr && std::fwrite(data, 1, size, f) == size);
  std::fclose(f);
  SafetensorsFile st;
  std::string error;
  if (!st.open(path, error)) {
    require(!error.empty());
    return 0;
  }
  for (const auto& [name, e] : st.entries()) {
    require(e.begin <= e.end && e.end <= size);
    if (e.end - e.begin > (1u << 20)) continue;
    for (DType t : {DType::bf16, DType::f16, DType::f32}) {
      std::vector<uint8_t> out;
      const bool ok = st.read(name, e.shape, t, out, error);
      const bool convertible = e.dtype == "F32" || e.dtype == "F16" || e.dtype == "BF16";
      require(ok == convertible);
      if (ok) require(out.size() == (e.end - e.begin) / (e.dtype == "F32" ? 4 : 2) * dtype_size(t));
    }
  }
#endif
  return 0;
}
