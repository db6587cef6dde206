// Tensor data for `tilefw gen`: the layer's weights (from a .safetensors file or drawn from a
// seed), the inputs (hidden states, past cache, rotary tables, causal mask) and the DDR images
// the manifest points at. Host-only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/gen_config.hpp"
#include "tilefw/gen/generator.hpp"

namespace tilefw::tools {

/// Bytes of every present tensor of the plan, indexed by TensorId (empty when absent).
struct LayerData {
  std::vector<uint8_t> bytes[gen::kTensorCount];
};

/// The checkpoint name of a weight: "model.layers.<layer>.<suffix>", with "{e}" replaced by
/// `part` for the per-expert tensors (rank 3 [E, out, in]: one checkpoint tensor per expert).
std::string weight_name(uint32_t layer, const gen::TensorInfo& t, uint32_t part = 0);
/// Checkpoint tensors a weight is made of (experts: E) and the shape of each.
uint32_t weight_parts(const gen::TensorInfo& t);
std::vector<uint64_t> part_shape(const gen::TensorInfo& t);

/// Fills the weights: from `weights_path` (.safetensors; every tensor of the layer must be
/// there with the checkpoint shape, F32/F16/BF16 converted to the model dtype) or, when the
/// path is empty, drawn deterministically from `seed` (linear layers uniform with variance
/// 1/in, norm weights 1 +- 0.1, biases +- 0.1, so activations stay O(1)). false + `error`
/// naming the tensor or the file.
bool load_weights(const gen::SizedLayer& plan, uint32_t layer, const std::string& weights_path, uint64_t seed,
                  LayerData& data, std::string& error);

/// --timing-only with --weights: checks that `weights_path` holds every tensor of the layer
/// with the checkpoint shape and a convertible dtype (the header only; no data is read).
bool check_weights(const gen::SizedLayer& plan, uint32_t layer, const std::string& weights_path,
                   std::string& error);

/// Fills the inputs: hidden states (uniform, variance 1) and the past cache (keys and values,
/// or deepseek_v3's latent and k_pe rows: uniform in [-1, 1), model dtype) from `seed`; cos/sin of the positions kv_len .. kv_len + seq - 1 from
/// the config's rope parameters; the additive causal mask (0 where position j <= kv_len + s,
/// -1e9 elsewhere); and the generator's constants.
void make_inputs(const gen::SizedLayer& plan, const HfConfig& cfg, uint64_t seed, LayerData& data);

}  // namespace tilefw::tools
