// `tilefw gen --model`: the CDMA streams between chips (model_transfers.cpp). Each writes its
// streams into the output directory and adds its transfer step to the manifest.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "gen/model_writer.hpp"

namespace tilefw::tools {

// One tensor-parallel group's all-reduce: its first chip (the others follow it) and where each
// chip's partial sums are (f32 [rows x seq, hidden]; the sum replaces them).
struct AllReduce {
  uint32_t first = 0;
  std::vector<uint64_t> addr;
  Collective kind = Collective::all_reduce;  // or its halves (data-parallel attention)
  /// a2a_combine: each chip's top-k ids (moe_choice of the step, at its micro-batch), the
  /// layer and the micro-batch.
  std::vector<uint64_t> choices{};
  uint32_t layer = 0, microbatch = 0;
};

/// Whether a functional decode on an expert-parallel group copies a past cache to the group.
bool any_cast_cache(const Writer& w);
/// The past caches of a functional decode on an expert-parallel group, from the group's first
/// chip to the others (transfer slot `slot`).
std::optional<Failure> write_cache_cast(Writer& w, uint32_t slot);
/// One transfer slot of the groups: the collectives of `groups`, the broadcasts `casts` (first
/// chip, stage) and the head's gathers `gathers` (first chip, micro-batch).
std::optional<Failure> write_collectives(Writer& w, const std::vector<AllReduce>& groups,
                                         const std::vector<std::pair<uint32_t, uint32_t>>& casts,
                                         const std::vector<std::pair<uint32_t, uint32_t>>& gathers, uint32_t slot);
/// The pipeline's stage boundaries of time step t (transfer slot `slot`).
std::optional<Failure> write_transfers(Writer& w, uint32_t t, uint32_t slot);

}  // namespace tilefw::tools
