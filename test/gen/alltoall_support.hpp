// What the all-to-all tests (test_gen_alltoall.cpp, test_gen_alltoall_plan.cpp) share: the
// choices and plans under test (globals: too large for a small target's stack) and the routing
// rule written out again (holder(e) = e mod chips, owner(t) = t / own).
#pragma once

#include <cstdint>

#include "tilefw/gen/alltoall.hpp"

namespace a2atest {

inline constexpr uint32_t kMaxChips = 64;
inline constexpr uint32_t kMaxTokens = 2 * kMaxChips;
inline constexpr uint32_t kMaxK = 8;
inline constexpr uint64_t kRowsOffset = 0x10000;

/// [tokens, k] expert ids, up to 64 a token (the dense case: every token choosing every chip).
extern uint32_t g_choices[kMaxTokens * kMaxChips];
/// The plan of the case under test, and one made by another rank to compare.
extern tilefw::gen::A2aPlan g_plan;
extern tilefw::gen::A2aPlan g_other;

/// k distinct expert ids per token from a fixed linear congruential sequence.
void make_choices(uint32_t tokens, uint32_t experts, uint32_t k, uint32_t seed) noexcept;
/// A group of `chips` chips of `own` rows each (tokens = chips x own), rows in DDR 1.
tilefw::gen::A2aGroup group(uint32_t chips, uint32_t rank, uint32_t own, uint32_t experts, uint32_t k,
                            uint32_t hidden, uint32_t format) noexcept;
tilefw::Span<const uint32_t> choices_of(const tilefw::gen::A2aGroup& g) noexcept;
/// The rule again, independently: does `chip` hold one of token t's chosen experts?
bool expect_holder(const tilefw::gen::A2aGroup& g, uint32_t t, uint32_t chip) noexcept;
/// Plans g's group into g_plan.
bool plan(const tilefw::gen::A2aGroup& g) noexcept;
/// Rounds planned by a rank other than 0 that differ from g_plan's (0: every rank the same).
uint32_t same_plan_on_every_rank(const tilefw::gen::A2aGroup& g0) noexcept;

}  // namespace a2atest
