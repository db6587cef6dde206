// The whole model as a sequence of steps on one chip (docs/whole-model.md): the embedding, every
// decoder layer with its kind from the config, and the head, each a gen plan, placed in one DDR
// memory map. Shared by `tilefw gen --model` (which writes the steps' streams) and `tilefw run`
// (which plans the same model again to generate a MoE layer's experts' phase as the control
// core does). Host-only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gen/gen_request.hpp"

namespace tilefw::tools {

struct ModelStep {
  std::string name;  // "embed", "layer.3", "head"
  gen::Program kind = gen::Program::layer;
  uint32_t layer = 0;
  bool two_phase = false;  // a MoE layer whose experts' phase the control core generates
  gen::SizedLayer plan;    // relocated into the model's memory map
};

/// The memory map of the whole model on one chip:
///   DDR tag 1 (coeff): the embedding table, then each layer's weights and constants in layer
///     order (each as its own plan places them), then the final norm, the LM head (absent
///     when tied) and the head's constant;
///   DDR tag 2 (neuron): input_ids, two f32 hidden-state buffers the layers alternate
///     between (layer L reads buffer L mod 2 and writes the other), the rotary tables and
///     mask every layer shares, each layer's cache in and out, one scratch area the layers
///     share (they run one after the other), then logits, next_token and the head's scratch.
struct ModelPlan {
  HfConfig cfg;
  gen::InferenceConfig inference;
  std::vector<ModelStep> steps;
  uint64_t coeff_bytes = 0;
  uint64_t neuron_bytes = 0;
  uint64_t weight_bytes = 0;  // every weight tensor (the checkpoint's bytes in the model dtype)
  uint64_t cache_bytes = 0;   // every layer's past and present cache
  double flops = 0;           // the steps' analytic figures summed (static MoE: every expert)
  double bytes_ddr = 0;
  const ModelStep& head() const { return steps.back(); }
};

/// Reads the config, checks the options and plans every step (pass 1 of each, sized once per
/// distinct layer kind: layers of one kind differ only in their addresses). A Failure names
/// the option or config key (exit 2) or what cannot be mapped (exit 1).
std::optional<Failure> plan_model(const GenCli& cli, ModelPlan& out);

/// The checkpoint name of a weight of step `s` ("model.layers.L.<name>", or the model-level
/// name as the plan gives it), expert `part` for per-expert tensors.
std::string step_weight_name(const ModelStep& s, const gen::TensorInfo& t, uint32_t part = 0);

/// The name of a per-layer cache tensor in the whole model's inputs / outputs
/// ("past_key.3"); other tensors keep their name.
std::string model_tensor_name(const ModelStep& s, const gen::TensorInfo& t);

}  // namespace tilefw::tools
