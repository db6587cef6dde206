// Compile-time self-check of the constexpr validator under the core's flags (no exceptions,
// no RTTI, every target): the rules live in inc/tilefw/desc/validate_vector.hpp.

#include "tilefw/desc/validate_vector.hpp"

namespace tilefw::desc {
namespace {

// The worked example of the vector descriptor (docs/a2a3-vector-semantics.md): f32 64x64, repeat 64, block stride 1, repeat stride 8.
constexpr BinIntrinsicDesc kSeedExample{.repeat = 64, .dst = {chip::MemSpace::UB, 0},
                                        .src0 = {chip::MemSpace::UB, 16384},
                                        .src1 = {chip::MemSpace::UB, 32768}};
static_assert(is_valid<float>(kSeedExample));
static_assert(validate<float>(BinIntrinsicDesc{.dst_block_stride = 0}) ==
              Status::desc_dst_block_stride_zero);

}  // namespace
}  // namespace tilefw::desc
