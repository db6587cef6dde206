// The instruction generator (docs/generator.md): one decoder layer + the inference request +
// the parallelism -> per-core SG2260 TIU/GDMA/SDMA command streams, in two passes.
//
//   SizedLayer layer;  GenError err;
//   size_layer(model, inference, parallel, layer, err);  // pass 1: exact sizes + memory map
//   ... caller provides layer.stream_bytes[c][e] bytes per stream ...
//   emit_layer(layer, buffers, err);                       // pass 2: writes the commands
//
// Pure: no heap, no port; the streams go through the cmd builders into caller buffers, so the
// same code regenerates a layer on the control core (Cortex-M) byte-identically to the host.
// How the layer is mapped (graph, tiling, schedule, dependencies, tensor parallelism) is
// described in README.md ("The instruction generator") and at the top of each src/gen file.
#pragma once

#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/gen/config.hpp"

namespace tilefw::cmd {
struct ValidateOptions;
}  // namespace tilefw::cmd

namespace tilefw::gen {

inline constexpr uint32_t kMaxCores = chip::sg2260::kCores;
inline constexpr uint32_t kEngines = 3;  // tiu, gdma, sdma (cmd::Engine order)

/// Every DDR tensor the streams read or write.
enum class TensorId : uint8_t {
  // inputs (DDR tag 2, "neuron")
  hidden_states, past_key, past_value, rope_cos, rope_sin, attn_mask,
  // outputs (tag 2)
  hidden_states_out, present_key, present_value,
  // weights of model.layers.N (tag 1, "coeff"), in the checkpoint's layout
  input_layernorm, q_proj_w, q_proj_b, k_proj_w, k_proj_b, v_proj_w, v_proj_b, o_proj_w, o_proj_b,
  q_norm, k_norm, post_attention_layernorm, gate_proj_w, gate_proj_b, up_proj_w, up_proj_b,
  down_proj_w, down_proj_b,
  // MoE layers (mixtral, qwen3_moe): the router and the routed experts, stored per expert as
  // the checkpoint holds them ([E, out, in]: expert e's tensor at e x out x in elements)
  router_w, experts_gate, experts_up, experts_down,
  // generator constants (tag 1): the exp Taylor table, for gelu (erf) the erf polynomial, for
  // MoE the strictly lower triangular ones [T, T] (token prefix sums) and 0..E-1 (see
  // fill_constant)
  exp_taylor, erf_poly, tri_lower, iota,
  // MoE output (tag 2): tokens routed to each expert (f32, one per expert), for the dropped-token
  // report
  expert_tokens,
  // MoE scratch (tag 2), one slice per core: the normalised tokens, the routing indices, the
  // dispatched tokens [C, hidden], the experts' outputs [C, hidden] (the combine gathers them
  // into LMEM)
  moe_x, moe_idx, moe_xe, moe_ye,
  // deepseek_v3 (MLA; appended so the ids above keep their values): the latent cache in and
  // out (tag 2), the MLA projections and norms, the router's correction bias (f32) and the
  // shared experts (tag 1). Without q LoRA the query uses q_proj_w ([heads x qk, hidden]);
  // o_proj_w is [hidden, heads x v_head_dim].
  past_kv_latent, past_k_rope, present_kv_latent, present_k_rope,
  q_a_proj_w, q_a_layernorm, q_b_proj_w, kv_a_proj_w, kv_a_layernorm, kv_b_proj_w,
  router_bias, shared_gate_w, shared_up_w, shared_down_w,
  // sliced residual (dense tensor-parallel prefill) scratch (tag 2): the pass's normalised x
  // [T, hidden] in the model dtype, where each core writes its slice and reads the others'
  xn_exchange,
  // MoE over a request run in passes (moe_passes.cpp; scratch, tag 2, one slice per core): each
  // pass's residual x [tokens, hidden] f32 and routing weights [tokens, experts] f32 wait for the
  // combine, and the running count of tokens routed to each expert ([experts] f32) carries the
  // slots across passes
  moe_res, moe_rw, moe_cnt,
  // The model's ends (the embedding and head programs, model.cpp): token ids in (int32 [B, S],
  // tag 2), the embedding table and final norm (tag 1, "model." names), the LM head (tag 1;
  // absent when tied: the head reads embed_tokens), the logits and the next token out (tag 2),
  // each core's best (logit, index) per token row (scratch, tag 2), and the head's column index
  // constant [kHeadTile] (col - kHeadTile, f32).
  input_ids, embed_tokens, final_norm, lm_head_w, logits, next_token, head_cand, head_iota,
  // A MoE layer in passes on a chip of an expert-parallel group (moe_passes.cpp; constant, tag
  // 1, present only there): [2 x experts] f32, 1 for the experts the chip holds and 0 for the
  // others, then e / (experts / expert_count) for every expert e (see fill_constant). The
  // routing phase reads which experts the chip holds from it, so its commands are the same on
  // every chip.
  moe_local,
  // The token-selective combine of an expert-parallel group with data-parallel attention
  // (present only there): the MoE part's top-k expert ids of every token ([T, top_k] f32
  // integers, output, tag 2; stored by core 0 before its counts, for the control cores that
  // generate the combine's transfers), and which token rows the chip owns ([tokens] f32, 1 or 0,
  // constant, tag 1): the residual and the shared experts are added on those rows only, so a
  // row's sum over the group counts them once wherever its routed experts ran. The mask is data,
  // so the streams are the same on every chip of the group.
  moe_choice, moe_own,
  count,
};
inline constexpr uint32_t kTensorCount = static_cast<uint32_t>(TensorId::count);

enum class TensorRole : uint8_t { input, output, weight, constant, scratch };

/// One DDR tensor: where it lives and what it holds. Weights use the checkpoint's layout
/// (row-major, `[out, in]` for linear layers), which is also the device layout: the matmul
/// tiles are loaded straight from it (nt form), so `weights[]` and the DDR image are the same
/// bytes.
struct TensorInfo {
  TensorId id = TensorId::count;
  TensorRole role = TensorRole::input;
  bool present = false;    // false: this layer has no such tensor (e.g. no bias)
  const char* name = "";   // weights: the checkpoint name after "model.layers.N." ("{e}" = expert)
  uint8_t rank = 0;
  uint32_t shape[4] = {};
  DType dtype = DType::f32;
  uint64_t device_addr = 0;  // 45-bit DMA address (tag in bits 44:40)
  uint64_t bytes = 0;
};

/// The DDR and L2 memory the streams use. DDR tag 1 holds weights and constants, tag 2 the
/// inputs and outputs; L2 holds the tensor-parallel partial sums.
struct MemoryMap {
  TensorInfo tensors[kTensorCount];
  uint64_t coeff_bytes = 0;   // size of DDR region tag 1
  uint64_t neuron_bytes = 0;  // size of DDR region tag 2
  uint64_t l2_offset = 0;     // from chip::sg2260::kL2Base
  uint64_t l2_bytes = 0;
  uint32_t lmem_bytes_per_lane = 0;  // LMEM used by the biggest core
  const TensorInfo& operator[](TensorId id) const noexcept { return tensors[static_cast<uint32_t>(id)]; }
};

/// What a plan's streams compute: one decoder layer, or an end of the whole model (model.cpp):
/// the embedding lookup (token ids -> hidden_states_out), or the head (hidden_states -> final
/// norm -> logits -> greedy next token).
enum class Program : uint8_t { layer, embed, head, head_merge };

struct SizedLayer {
  Program program = Program::layer;
  ModelConfig model;
  InferenceConfig inference;
  ParallelConfig parallel;  // tp resolved (never 0)
  MemoryMap memory;
  uint64_t stream_bytes[kMaxCores][kEngines] = {};
  uint32_t stream_commands[kMaxCores][kEngines] = {};
  /// Prefill in chunks (batch 1, when the whole sequence does not fit LMEM / L2): the layer
  /// runs over tokens [i x chunk_tokens, (i+1) x chunk_tokens) in turn, each chunk attending to
  /// the past cache and the earlier chunks' present rows (read back from DDR). chunk_tokens =
  /// seq (one chunk) otherwise.
  uint32_t chunk_tokens = 0;
  /// Decode in passes of batch rows (when the whole batch does not fit LMEM): pass i runs
  /// rows [i x chunk_batch, (i+1) x chunk_batch). chunk_batch = batch (one pass) otherwise; a
  /// layer is chunked by tokens or by rows, never both.
  uint32_t chunk_batch = 0;
  /// Whether the passes split the batch rows (decode) rather than the tokens.
  constexpr bool row_passes() const noexcept { return chunk_batch < inference.batch; }
  uint32_t chunks = 1;     // passes: seq / chunk_tokens or batch / chunk_batch
  uint32_t capacity = 0;   // MoE: token slots per expert over the whole request (Rule: capacity)
  uint64_t flops = 0;      // 2 x multiply-adds of the layer's matmuls and attention (analytic)
  uint64_t bytes_ddr = 0;  // DDR bytes the layer must move at least (weights + activations)
};

/// What failed: the Status, the key / tensor / option it concerns and a number when useful.
struct GenError {
  Status status = Status::ok;
  const char* what = "";
  uint64_t value = 0;
};

/// The layer op a run of commands belongs to, for traces a person reads (e.g. `q_proj m2 n0 k5`:
/// the matmul's row group m, weight-row tile n and column tile k; kNoTile where it has none).
inline constexpr uint32_t kNoTile = 0xFFFFFFFFu;
struct OpMark {
  uint32_t core = 0;
  uint32_t engine = 0;         // 0 tiu, 1 gdma, 2 sdma
  uint32_t first_command = 0;  // 1-based index in the engine's stream (the command id)
  const char* op = "";         // static string: "input_layernorm", "q_proj", "attention", ...
  uint32_t m = kNoTile, n = kNoTile, k = kNoTile;
  uint32_t expert = kNoTile;   // MoE: the routed expert
};
/// A block of commands copied from earlier commands of the same stream (the experts' phase's
/// reused expert blocks): commands [to, to + count) carry the ops of [from, from + count), with
/// the expert of each expert-labelled op replaced by `expert`.
struct OpCopy {
  uint32_t core = 0, engine = 0;
  uint32_t from = 0, count = 0, to = 0;  // 1-based command ids
  uint32_t expert = kNoTile;
};
/// Receives an OpMark whenever the op of an engine's next command differs from its last one
/// (pass 2 only). Optional: a plain function pointer, no allocation.
struct OpSink {
  void (*fn)(void* user, const OpMark& mark) = nullptr;
  void* user = nullptr;
  /// Optional: without it the generator builds every block while this sink listens.
  void (*copy)(void* user, const OpCopy& block) = nullptr;
};

/// Caller buffers for pass 2, exactly plan.stream_bytes[c][e] bytes each.
struct StreamBuffers {
  ByteSpan stream[kMaxCores][kEngines];
};

/// The default tensor-parallel degree (docs/generator.md section 3, Rule: Megatron tensor
/// parallelism): the largest T <= cores
/// that divides the attention heads and either divides the kv heads or is a multiple of them.
/// With `parallel.tp` != 0, checks that value against the same rule (gen_bad_config, "tp").
[[nodiscard]] Status resolve_tp(const ModelConfig& model, const ParallelConfig& parallel, uint32_t& tp,
                                GenError& error) noexcept;

/// Pass 1: checks the request, resolves tp, plans memory and counts every stream exactly.
[[nodiscard]] Status size_layer(const ModelConfig& model, const InferenceConfig& inference,
                                const ParallelConfig& parallel, SizedLayer& plan, GenError& error) noexcept;

/// Pass 2: writes every stream into `buffers` (sizes must equal the plan's: gen_plan_mismatch).
[[nodiscard]] Status emit_layer(const SizedLayer& plan, const StreamBuffers& buffers, GenError& error,
                               const OpSink& ops = OpSink{}) noexcept;
/// Pass 2 for one core: writes core `core`'s streams into buffers.stream[core] (the other
/// cores' entries are not touched), so a caller can hold one core's streams at a time.
[[nodiscard]] Status emit_core(const SizedLayer& plan, uint32_t core, const StreamBuffers& buffers, GenError& error,
                              const OpSink& ops = OpSink{}) noexcept;

/// How much of an experts' phase was copied instead of built (emit_phase, PhaseRequest::stats):
/// the control core's time depends on it (docs/moe-phases.md).
struct PhaseStats {
  uint32_t blocks_copied = 0;     // expert blocks copied from an earlier block of the same shape
  uint32_t commands_copied = 0;   // their commands (the rest of the phase was built field by field)
  uint32_t fields_relocated = 0;  // fields rewritten in the copies (addresses, dependencies)
  uint32_t commands_checked = 0;  // copied commands marked in PhaseRequest::checked
};

/// A MoE layer as it runs: two phases joined by the control core. Phase 1 is the layer up to
/// the routing (attention, router, top-k, the shared experts, the per-expert token counts in
/// `expert_tokens` and the slot indices in DDR); the control core then reads the counts and
/// generates phase 2: for each expert with tokens, its dispatch, its SwiGLU on exactly its
/// rows (at most the capacity) and its combine, then the reduction and the layer's output.
/// An expert with no tokens gets no command and no weight load. Over a request run in passes
/// the counts are the whole request's (the experts run once, after every pass was routed).
/// `phase` 0 is the static layer: every expert on its capacity slots, one program.
struct PhaseRequest {
  uint8_t phase = 0;                        // 0 static, 1 routing, 2 experts
  const uint32_t* expert_tokens = nullptr;  // phase 2: tokens routed to each expert ([experts])
  /// Phase 2 by replaying the whole layer program with phase 1 muted, instead of starting at the
  /// boundary (the control core's way). Same bytes, much slower: the tests' reference.
  bool replay = false;
  /// Phase 2: each expert on its owner core (e mod ep) instead of the load-balancing placement
  /// (the experts that received tokens spread over the ep cores by their load, in expert order;
  /// docs/moe-phases.md). In passes the owners always run their experts (the tokens were
  /// dispatched to them pass by pass in phase 1).
  bool owner_placement = false;
  /// Phase 2 with the placement by load, in one pass: when fewer of the chip's experts received
  /// tokens than there are cores that hold an expert in the worst case (every expert on its
  /// capacity), each such expert's intermediate columns are split over several cores (core
  /// ranges in expert order, the columns evenly): each runs gate/up on its columns and the
  /// matching rows of down_proj, and the reduction over the cores sums the slices. Off: every
  /// expert whole on one core.
  bool split_experts = true;
  /// Phase 2: an expert block with the same rows (and the same place in the partial) as two
  /// blocks already written on this core is copied from the later one with its expert's
  /// addresses and its dependencies relocated, instead of being built again: the same bytes
  /// (every block starts from a settled dependency state; tests hold the two ways equal), a
  /// fraction of the control core's work. Off while counting, and while an OpSink without a
  /// `copy` callback listens.
  bool reuse_blocks = true;
  /// Phase 2: adds what was copied (accumulates over cores; null: not reported).
  PhaseStats* stats = nullptr;
  /// Phase 2 copies: room for their relocation plans (each derived once per block shape from
  /// two built blocks, then applied to every copy; kCopyPlanWords holds eight shapes of up to
  /// 512 moved fields per engine, less only re-derives plans more often, and a shape whose plan
  /// does not fit is built). Empty: nothing is copied.
  Span<uint64_t> copy_plans{};
  /// Phase 2 copies, when `memory` (the rules the phase will be validated under) is set: bit
  /// `id - 1` of checked[engine] (TIU, GDMA) is set for each copied command whose moved operands
  /// pass cmd::dma_linear_operand_ok under *memory, cleared (by emit_phase, before anything is
  /// generated) for every other command; a span
  /// holds a bit per command of its stream (size_phase's counts). Validation then skips those
  /// commands' operand checks (cmd::ValidateOptions::checked_copies): they are the operands of
  /// a built command of the same stream, moved within the memory rule.
  const cmd::ValidateOptions* memory = nullptr;
  Span<uint8_t> checked[kEngines]{};
};

/// PhaseRequest::copy_plans words that hold the plans of every shape an experts' phase keeps
/// at once (eight shapes of up to 512 relocations per engine).
inline constexpr uint32_t kCopyPlanWords = 8 * 2 * 512 * 2;

/// Exact sizes of core `core`'s streams for one phase (pass 1 of that phase: no buffers, no heap;
/// the control core sizes its static buffers from the worst case, phase 0).
[[nodiscard]] Status size_phase(const SizedLayer& plan, uint32_t core, const PhaseRequest& phase,
                                uint64_t (&bytes)[kEngines], uint32_t (&commands)[kEngines], GenError& error) noexcept;
/// Pass 2 of one phase for core `core`, in one pass: writes into buffers.stream[core], each at
/// least as large as the phase needs (e.g. sized once, at load time, by size_phase for the worst
/// case: every expert on its capacity), and returns the bytes written per engine in `used`.
/// buffer_too_small (naming the engine's stream) when a buffer is too short.
[[nodiscard]] Status emit_phase(const SizedLayer& plan, uint32_t core, const PhaseRequest& phase,
                                const StreamBuffers& buffers, uint64_t (&used)[kEngines], GenError& error,
                                const OpSink& ops = OpSink{}) noexcept;

/// The whole model's ends (model.cpp; docs/whole-model.md). Both take the layer's model config
/// (hidden, dtype, rms_eps; `vocab`, `tie_embeddings`) and the request; tokens are split over the
/// cores in row groups of 64. size_embed plans the lookup: hidden_states_out[t] = f32(embed
/// table row input_ids[t]) (an id >= vocab gives a zero row). size_head plans final norm + LM
/// head + argmax: logits of every token row, and next_token[b] = the lowest index of the
/// largest logit of batch row b's last token; the vocabulary is split over the cores, each
/// core's best (logit, index) meets on core 0 after one barrier. emit_core / emit_layer write
/// them as they write a layer.
[[nodiscard]] Status size_embed(const ModelConfig& model, const InferenceConfig& inference, const ParallelConfig& parallel,
                                SizedLayer& plan, GenError& error) noexcept;
[[nodiscard]] Status size_head(const ModelConfig& model, const InferenceConfig& inference, const ParallelConfig& parallel,
                               SizedLayer& plan, GenError& error) noexcept;
/// The head split over parallel.vocab_ranks chips (ParallelConfig::vocab_rank): after every
/// chip's head ran and their candidates (head_cand, [vocab_ranks x cores, tokens, 2]) were
/// gathered on one chip, core 0 there picks next_token[b] from all of them (the lowest index of
/// the largest logit; chips and cores in vocabulary order).
[[nodiscard]] Status size_head_merge(const ModelConfig& model, const InferenceConfig& inference,
                                     const ParallelConfig& parallel, SizedLayer& plan, GenError& error) noexcept;
/// The LM head's vocabulary columns per MM2 tile (and the length of the head_iota constant).
inline constexpr uint32_t kHeadTile = 512;

/// Moves tensor `id` of a plan to `device_addr` (same tag rules as the plan's: the caller keeps
/// regions disjoint). Stream sizes do not depend on addresses, so a plan may be relocated after
/// sizing and before emission: the whole model places every layer's tensors in one memory map.
/// invalid_argument when the tensor is absent or the address is not a DDR address.
[[nodiscard]] Status set_tensor_address(SizedLayer& plan, TensorId id, uint64_t device_addr) noexcept;

/// Bytes of a generator constant (TensorRole::constant), e.g. the exp Taylor coefficients.
/// invalid_argument when `id` is not a constant; buffer_too_small when `out` is shorter.
[[nodiscard]] Status fill_constant(const SizedLayer& plan, TensorId id, ByteSpan out) noexcept;

}  // namespace tilefw::gen
