// One `tilefw gen` request: the options of the command line, and the sized layer they give
// for a Hugging Face config. Shared by `gen` and by `run`, which plans the same layer again to
// generate a MoE layer's experts' phase the way the control core does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats/gen_config.hpp"
#include "tilefw/gen/generator.hpp"

namespace tilefw::tools {

struct GenCli {
  std::string config, out, phase = "prefill", dtype, weights;
  uint32_t layer = 0, batch = 1, cores = 8, tp = 0, ep = 0, chunk = 0, decode_chunk = 0;
  std::optional<uint32_t> seq, kv_len;
  uint64_t seed = 0;
  double capacity_factor = 0;
  bool timing_only = false, force = false;
  /// MoE layers: one static program with every expert on its capacity slots, instead of the two
  /// phases joined by the control core (the default).
  bool static_experts = false;
  /// An expert-parallel group with data-parallel attention: each chip adds the residual and the
  /// shared experts of its own token rows only, and the MoE part stores every token's top-k
  /// expert ids (the token-selective combine's first stage, docs/whole-model.md section 3.2; the
  /// combine's transfers are still the ring's). A development option (--ep-owner-rows).
  bool owner_rows = false;
  /// --ep-comm: "ring" (the all-gather and reduce-scatter of every row) or "alltoall" (owner
  /// rows, and the combine sized by the routing, generated at run time; data-parallel attention
  /// only: other schemes keep the all-reduces).
  std::string ep_comm = "ring";
  /// The whole model (tilefw gen --model): embedding, every layer, head.
  bool model = false;
  /// An expert group whose rows do not split keeps the attention replicated instead of
  /// splitting it by heads: gen's fallback when the tensor-parallel scheme's manifest would be
  /// more than `run` reads (docs/whole-model.md section 3.2), recorded for `run`'s re-plan.
  bool replicated_attention = false;
  /// Each chip's DDR capacity in GiB (--ddr-capacity-gib; 0: the chip what-if's, default 128:
  /// see docs/whole-model.md), and the chip what-if file (--chip-config).
  uint64_t ddr_capacity_gib = 0;
  std::string chip_config;
  /// --model on several chips: chips, pipeline stages, data-parallel replicas, micro-batches per
  /// stage (0: the default), and the system of chips (--system FILE.json; default ring:chips).
  uint32_t chips = 0, pp = 0, dp = 0, microbatches = 0;
  std::string system;
};

struct Failure {
  int code;
  std::string message;
};

/// Largest config.json gen reads (published ones are a few KB).
inline constexpr uint64_t kMaxConfigBytes = uint64_t{4} << 20;

/// Reads the config, checks the options and plans the layer (pass 1). A Failure names the
/// option or config key (exit 2) or the mapping problem (exit 1).
std::optional<Failure> generate(const GenCli& cli, gen::SizedLayer& plan, HfConfig& cfg);
/// The first half of generate(): the config read and the options checked into `inf`.
std::optional<Failure> read_request(const GenCli& cli, HfConfig& cfg, gen::InferenceConfig& inf);
/// The second half: layer `layer` of the checked request planned (its kind from the config).
/// `part` other than whole: that part of the layer (the attention part of a MoE layer is
/// planned as the layer without its MoE block).
std::optional<Failure> size_request_layer(const GenCli& cli, uint32_t layer, HfConfig& cfg,
                                          const gen::InferenceConfig& inf, gen::SizedLayer& plan,
                                          gen::LayerPart part = gen::LayerPart::whole);

}  // namespace tilefw::tools
