// The token-selective all-to-all of an expert-parallel group (docs/sg2260-commands.md section
// 13.8): the CDMA port streams of one chip for the dispatch (each token's row from its owner to
// the chips holding its chosen experts) or the combine (those chips' partial rows added back
// into the owner's row), generated from the group's top-k expert choices.
//
//   A2aGroup g{...};  A2aPlan plan;  A2aError err;   // plan: ~22 KB, the caller's (no heap)
//   a2a_plan(g, choices, plan, err);                 // each pair's round, the same on every chip
//   for each round r in plan.round_mask:
//     A2aPorts p;  size_a2a(g, A2aDirection::combine, choices, plan, r, p, err);  // exact sizes
//     ... caller gives p.count buffers of p.bytes[i] bytes (port i talks to p.peer[i]) ...
//     emit_a2a(g, A2aDirection::combine, choices, plan, r, buffers, written, err);
//     ... submit the p.count streams, run them, wait before the next round ...
//
// Every chip of the group reads the same choices and derives the same plan, each generating
// only its own ports. Pure: no heap, no port, no global state, so the control cores (Cortex-M)
// produce the same bytes as the host.
#pragma once

#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/cdma.hpp"

namespace tilefw::gen {

enum class A2aDirection : uint8_t {
  /// The owner o of token t sends its row rows[t] once to each chip d != o holding at least one
  /// of t's chosen experts; d receives it into its rows[t] (plain copy).
  dispatch,
  /// Each chip d != o holding at least one of t's chosen experts sends its rows[t] (its experts'
  /// partial) to o, which adds it into its rows[t] (recv reduce add, send psum_op 1). The adds
  /// into one owner's rows are ordered by a chain of messages (chain_msg).
  combine,
};

/// The first message id of the combine's recv-add chain unless the group says otherwise (the
/// ring collectives use 100 and up, the chain cast 200 and up, the gather 300 and up, the cache
/// cast 400 and up, in other transfer slots).
inline constexpr uint32_t kA2aChainMsg = 450;
/// Peers a chip talks to in one round: its CDMA ports (one stream per peer per submission).
inline constexpr uint32_t kA2aPeersPerRound = cmd::kCdmaPorts;
/// Message ids a round's chain uses at most: chain_msg .. chain_msg + 8 (one per link between
/// two of the 10 ports).
inline constexpr uint32_t kA2aChainLinks = kA2aPeersPerRound - 1;
/// Chips a group may have: the system's (send and recv carry no chip id; the port is bound to
/// its peer by the PEER register, so the 4-bit cmodel chip ids, cmd::kCdmaMaxChips, do not apply).
inline constexpr uint32_t kA2aMaxChips = chip::sg2260::kMaxChips;
/// Pairs of chips of the largest group.
inline constexpr uint32_t kA2aMaxPairs = kA2aMaxChips * (kA2aMaxChips - 1) / 2;
/// Rounds a plan may need at most. The plan places a pair {a, b} in a new round only when every
/// open round has 10 of a's or 10 of b's other pairs; a has at most chips - 2 others, so at most
/// floor((chips - 2) / 10) rounds are full for a, as many for b, and the pair's round index is at
/// most 2 floor((chips - 2) / 10): 13 rounds at 64 chips (a perfect split would need 7).
inline constexpr uint32_t kA2aMaxRounds = 2 * ((kA2aMaxChips - 2) / kA2aPeersPerRound) + 1;
/// A2aPlan::round of a pair without traffic.
inline constexpr uint8_t kA2aNoRound = 0xFF;
/// Rows one command moves at most (the CDMA c size is 16 bits).
inline constexpr uint32_t kA2aMaxRowsPerCommand = 0xFFFF;
/// A2aError's token / choice when the failure is not about one choice.
inline constexpr uint32_t kA2aNoIndex = 0xFFFFFFFFu;

/// An expert-parallel group as one chip sees it.
struct A2aGroup {
  uint32_t chips = 0;  // chips of the group (ep), 1 .. kA2aMaxChips
  uint32_t rank = 0;   // this chip's place in the group, < chips
  uint32_t tokens = 0; // rows of the step (T), >= 1
  uint32_t own = 0;    // rows a chip owns: owner(t) = t / own, which must be < chips
  uint32_t experts = 0;  // E; holder(e) = e % chips (the strided expert share)
  uint32_t top_k = 0;    // choices per token, 1 .. experts
  uint32_t hidden = 0;   // elements of a row (H), >= 1
  /// CDMA data format of the rows (cmd::kCdmaFormat*): one with a byte size; the combine needs
  /// one the recv can add in (FP32, FP16, BF16 or INT32).
  uint32_t format = cmd::kCdmaFormatFp32;
  /// This chip's [tokens, hidden] buffer (a 45-bit device address with its tag): row t at
  /// rows + t * hidden * element size. Send source and recv destination alike, so no chip needs
  /// a peer's addresses.
  uint64_t rows = 0;
  /// The combine's first chain message id: the chain uses chain_msg .. chain_msg + 8 (all below
  /// 512); no other transfer of the slot may use them.
  uint32_t chain_msg = kA2aChainMsg;
};

/// What failed. `what` is a static text naming the field or the rule; a refused choice names
/// its token and its place among the token's top_k (`choice`), `value` the value refused.
struct A2aError {
  Status status = Status::ok;
  const char* what = "";
  uint32_t token = kA2aNoIndex;
  uint32_t choice = kA2aNoIndex;
  uint64_t value = 0;
};

/// One chip's ports in one round, in ascending peer order: port i talks to peer[i]. bytes and
/// commands are the stream's exact size (chain_end included); rows_sent / rows_received count
/// the rows the chip's sends read and its recvs write, over all ports.
struct A2aPorts {
  uint32_t count = 0;
  uint32_t peer[kA2aPeersPerRound] = {};
  uint64_t bytes[kA2aPeersPerRound] = {};
  uint32_t commands[kA2aPeersPerRound] = {};
  uint64_t rows_sent = 0;
  uint64_t rows_received = 0;
};

/// The group's rounds, derived from the choices alone (not the rank), so every chip of the group
/// computes the same plan. The caller owns it (about 34 KB: no heap, and too large for a small
/// control-core stack); a2a_plan fills it, size_a2a and emit_a2a read it.
///
/// A pair {a, b} carries the rows owned by a routed to b and those owned by b routed to a: the
/// combine sends them to their owners, the dispatch from their owners, so one round serves both
/// directions. An owner's recv-adds of a round run one after another (the chain), so a round
/// lasts about as long as its busiest chip's received rows take. The pairs are taken by
/// descending rows (both ways; ties: the lower chip, then the higher), each into the open round
/// where both chips still have a free port (at most 10 peers a chip a round) that minimises the
/// most rows one of the two chips would receive there in either direction, then the larger of
/// the two chips' rows both ways, then the lowest round; a new round is opened when none has
/// room. ceil(d / 10) rounds are open at the start, d the most peers a chip has, since the
/// busiest chip needs that many anyway.
struct A2aPlan {
  // What the plan was made for: size_a2a and emit_a2a refuse it for another group or choices.
  uint32_t chips = 0;
  uint32_t tokens = 0;
  uint32_t own = 0;
  uint32_t experts = 0;
  uint32_t top_k = 0;
  uint64_t choices_hash = 0;
  /// Rounds used (every one has traffic), <= kA2aMaxRounds; bit r of round_mask for round r.
  uint32_t rounds = 0;
  uint32_t round_mask = 0;
  /// Per pair a < b of the group (index a * chips - a (a + 1) / 2 + b - a - 1): its round, or
  /// kA2aNoRound without traffic; its rows both ways; its rows owned by a (routed to b).
  uint8_t round[kA2aMaxPairs] = {};
  uint32_t rows[kA2aMaxPairs] = {};
  uint32_t rows_of_lower[kA2aMaxPairs] = {};
  /// Per chip and round: the rows it receives in the combine (its recv-add chain) and in the
  /// dispatch (saturating at 2^32 - 1), and its ports (peers).
  uint32_t combine_rows[kA2aMaxChips][kA2aMaxRounds] = {};
  uint32_t dispatch_rows[kA2aMaxChips][kA2aMaxRounds] = {};
  uint8_t ports[kA2aMaxChips][kA2aMaxRounds] = {};
  /// Scratch: the pairs with traffic in placing order (descending rows, up to 2^20 - 1 of them,
  /// then a, then b), as min(rows, 2^20 - 1) << 12 | (4095 - (a * 64 + b)).
  uint32_t order[kA2aMaxPairs] = {};
};

/// The round of the pair (a, b) in `plan` (either order), or kA2aNoIndex when a == b, a chip is
/// past the plan's group or the pair has no traffic.
[[nodiscard]] uint32_t a2a_round_of(const A2aPlan& plan, uint32_t a, uint32_t b) noexcept;

/// Checks the group and the choices ([tokens, top_k] expert ids, token-major):
/// invalid_argument with `what` naming the field (chips, rank, tokens, own, experts, top_k,
/// hidden, format, rows, chain_msg: chain_msg + 8 below 512, choices' length), or for a choice
/// "an expert id past the experts" / "an expert chosen twice for one token" with its token and
/// choice (the second of the two) and the id in `value`. Direction-specific: the combine's
/// format must be addable.
[[nodiscard]] Status a2a_check(const A2aGroup& g, A2aDirection dir, Span<const uint32_t> choices,
                               A2aError& error) noexcept;

/// Fills `plan` with each pair's round (see A2aPlan): the same on every chip of the group (the
/// rank is not read) and for both directions. Refusals as a2a_check (with the dispatch's format
/// rule); capacity_exceeded ("rounds") if more than kA2aMaxRounds were needed, which the bound
/// at kA2aMaxRounds says cannot happen. O(tokens x top_k + pairs x rounds + pairs log pairs).
[[nodiscard]] Status a2a_plan(const A2aGroup& g, Span<const uint32_t> choices, A2aPlan& plan,
                              A2aError& error) noexcept;

/// This chip's ports in round `round` of `plan` (none when it has no traffic there), in
/// ascending peer order, exactly as emit_a2a writes them. Refusals as a2a_check; a round at or
/// past kA2aMaxRounds is invalid_argument ("round"); a plan a2a_plan made for another group or
/// other choices is gen_plan_mismatch ("plan").
[[nodiscard]] Status size_a2a(const A2aGroup& g, A2aDirection dir, Span<const uint32_t> choices, const A2aPlan& plan,
                              uint32_t round, A2aPorts& out, A2aError& error) noexcept;

/// Writes this chip's port streams of round `round` into `streams` (one buffer per port, in
/// size_a2a's order) and reports what it wrote in `written` (equal to size_a2a's ports).
/// Refusals as size_a2a, then gen_plan_mismatch when streams.size() is not the port count
/// (value: the port count), buffer_too_small when a buffer is shorter than its port's stream
/// (value: the port's index). Per port: the sends first, each a run of consecutive rows merged
/// into one [n, hidden] command, ascending rows; then the recvs likewise; then chain_end. The
/// combine's recvs of one round form one chain over the chip's ports with recvs, in ascending
/// peer order, link i on port i of them: link i > 0 starts with rx_wait_msg(chain_msg + i - 1,
/// 1), and every link but the last ends with rx_send_msg(chain_msg + i, 1) (which passes once the
/// port's recvs landed). Each id is sent once and waited for once, so the counters end at 0; one
/// id per link because several ports wait at once and a shared id would let any of them (the
/// last link included, which signals nothing) take the signal.
[[nodiscard]] Status emit_a2a(const A2aGroup& g, A2aDirection dir, Span<const uint32_t> choices, const A2aPlan& plan,
                              uint32_t round, Span<const ByteSpan> streams, A2aPorts& written,
                              A2aError& error) noexcept;

}  // namespace tilefw::gen
