// Weights and inputs of a generated layer (see gen_data.hpp).
#include "gen/gen_data.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "formats/safetensors.hpp"
#include "common/splitmix.hpp"
#include "tilefw/base/float16.hpp"

namespace tilefw::tools {

namespace {

using gen::TensorId;
using gen::TensorInfo;
using gen::TensorRole;

// A fixed, portable sequence per (seed, tensor), so a seed names the same data on every machine.
struct Rng {
  SplitMix64 mix;
  double uniform() { return mix.unit() * 2.0 - 1.0; }  // [-1, 1)
};

uint64_t elements(const TensorInfo& t) {
  uint64_t n = 1;
  for (uint32_t i = 0; i < t.rank; ++i) n *= t.shape[i];
  return n;
}

void put(std::vector<uint8_t>& out, uint64_t i, float v, DType dt) {
  if (dt == DType::f32) {
    std::memcpy(out.data() + i * 4, &v, 4);
    return;
  }
  const uint32_t f = std::bit_cast<uint32_t>(v);
  const uint16_t h = dt == DType::bf16 ? float_bits_to_bf16_bits(f) : float_bits_to_half_bits(f);
  std::memcpy(out.data() + i * 2, &h, 2);
}

std::vector<uint8_t> draw(const TensorInfo& t, uint64_t seed, double scale, double offset) {
  std::vector<uint8_t> out(t.bytes);
  Rng rng{seed ^ (0xD1B54A32D192ED03ull * (static_cast<uint64_t>(t.id) + 1))};
  const uint64_t n = elements(t);
  for (uint64_t i = 0; i < n; ++i) put(out, i, static_cast<float>(offset + scale * rng.uniform()), t.dtype);
  return out;
}

bool is_norm(TensorId id) {
  return id == TensorId::input_layernorm || id == TensorId::post_attention_layernorm || id == TensorId::q_norm ||
         id == TensorId::k_norm || id == TensorId::q_a_layernorm || id == TensorId::kv_a_layernorm ||
         id == TensorId::final_norm;
}

}  // namespace

uint32_t weight_parts(const TensorInfo& t) { return t.rank == 3 ? t.shape[0] : 1; }

std::vector<uint64_t> part_shape(const TensorInfo& t) {
  return t.rank == 3 ? std::vector<uint64_t>{t.shape[1], t.shape[2]} : std::vector<uint64_t>(t.shape, t.shape + t.rank);
}

std::string weight_name(uint32_t layer, const TensorInfo& t, uint32_t part) {
  std::string n = t.name;
  if (n.rfind("model.", 0) == 0 || n.rfind("lm_head.", 0) == 0) return n;  // the model's ends
  const size_t at = n.find("{e}");
  if (at != std::string::npos) n.replace(at, 3, std::to_string(part));
  return "model.layers." + std::to_string(layer) + "." + n;
}

bool load_weights(const gen::SizedLayer& plan, uint32_t layer, const std::string& weights_path, uint64_t seed,
                  LayerData& data, std::string& error) {
  SafetensorsFile file;
  if (!weights_path.empty() && !file.open(weights_path, error)) return false;
  for (const TensorInfo& t : plan.memory.tensors) {
    if (!t.present || t.role != TensorRole::weight) continue;
    std::vector<uint8_t>& out = data.bytes[static_cast<uint32_t>(t.id)];
    if (!weights_path.empty()) {
      out.clear();
      for (uint32_t part = 0; part < weight_parts(t); ++part) {  // experts: one tensor each
        const std::string name = weight_name(layer, t, part);
        if (file.find(name) == nullptr) {
          error = weights_path + ": tensor " + name + " is missing";
          return false;
        }
        std::vector<uint8_t> one;
        if (!file.read(name, part_shape(t), t.dtype, one, error)) return false;
        out.insert(out.end(), one.begin(), one.end());
      }
      continue;
    }
    // Linear weights [out, in]: uniform with variance 1 / in keeps each output O(1).
    const double in = t.rank >= 2 ? t.shape[t.rank - 1] : 1.0;
    if (is_norm(t.id)) {
      out = draw(t, seed, 0.1, 1.0);
    } else if (t.id == TensorId::embed_tokens) {
      out = draw(t, seed, std::sqrt(3.0), 0.0);  // hidden states of variance 1, as drawn inputs
    } else if (t.rank >= 2) {
      out = draw(t, seed, std::sqrt(3.0 / in), 0.0);
    } else {
      out = draw(t, seed, 0.1, 0.0);  // biases
    }
  }
  return true;
}

bool check_weights(const gen::SizedLayer& plan, uint32_t layer, const std::string& weights_path,
                   std::string& error) {
  SafetensorsFile file;
  if (!file.open(weights_path, error)) return false;
  for (const TensorInfo& t : plan.memory.tensors) {
    if (!t.present || t.role != TensorRole::weight) continue;
    for (uint32_t part = 0; part < weight_parts(t); ++part) {
      const std::string name = weight_name(layer, t, part);
      if (file.find(name) == nullptr) {
        error = weights_path + ": tensor " + name + " is missing";
        return false;
      }
      if (!file.check(name, part_shape(t), error)) return false;
    }
  }
  return true;
}

void make_inputs(const gen::SizedLayer& plan, const HfConfig& cfg, uint64_t seed, LayerData& data) {
  const gen::MemoryMap& mp = plan.memory;
  auto slot = [&](TensorId id) -> std::vector<uint8_t>& { return data.bytes[static_cast<uint32_t>(id)]; };
  slot(TensorId::hidden_states) = draw(mp[TensorId::hidden_states], seed, std::sqrt(3.0), 0.0);
  for (TensorId id : {TensorId::past_key, TensorId::past_value, TensorId::past_kv_latent, TensorId::past_k_rope}) {
    if (mp[id].present) slot(id) = draw(mp[id], seed, 1.0, 0.0);
  }
  const uint32_t K = plan.inference.kv_len, S = plan.inference.seq;
  std::vector<float> cos, sin;
  rope_tables(cfg, K, S, cos, sin);
  auto floats = [](const std::vector<float>& v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  slot(TensorId::rope_cos) = floats(cos);
  slot(TensorId::rope_sin) = floats(sin);
  if (mp[TensorId::attn_mask].present) {
    std::vector<float> m(uint64_t{S} * (K + S));
    for (uint32_t s = 0; s < S; ++s) {
      for (uint32_t j = 0; j < K + S; ++j) m[uint64_t{s} * (K + S) + j] = j <= K + s ? 0.0f : -1e9f;
    }
    slot(TensorId::attn_mask) = floats(m);
  }
  for (const TensorInfo& t : mp.tensors) {
    if (!t.present || t.role != TensorRole::constant) continue;
    slot(t.id).assign(t.bytes, 0);
    (void)gen::fill_constant(plan, t.id, ByteSpan(slot(t.id).data(), t.bytes));
  }
}

}  // namespace tilefw::tools
