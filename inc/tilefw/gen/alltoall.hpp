// The token-selective all-to-all of an expert-parallel group (docs/sg2260-commands.md section
// 13.8): the CDMA port streams of one chip for the dispatch (each token's row from its owner to
// the chips holding its chosen experts) or the combine (those chips' partial rows added back
// into the owner's row), generated from the group's top-k expert choices.
//
//   A2aGroup g{...};  uint32_t mask = 0;  A2aError err;
//   a2a_rounds(g, choices, mask, err);                          // rounds with traffic, every chip
//   for each round r in mask:
//     A2aPorts p;  size_a2a(g, A2aDirection::combine, choices, r, p, err);  // exact sizes
//     ... caller gives p.count buffers of p.bytes[i] bytes (port i talks to p.peer[i]) ...
//     emit_a2a(g, A2aDirection::combine, choices, r, buffers, written, err);
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
/// Ring distances a round covers: distance d reaches the two peers rank +- d.
inline constexpr uint32_t kA2aDistancesPerRound = kA2aPeersPerRound / 2;
/// Chips a group may have: the system's (send and recv carry no chip id; the port is bound to
/// its peer by the PEER register, so the 4-bit cmodel chip ids, cmd::kCdmaMaxChips, do not apply).
inline constexpr uint32_t kA2aMaxChips = chip::sg2260::kMaxChips;
/// Rounds of the largest group: distances 1 .. kA2aMaxChips / 2, kA2aDistancesPerRound a round.
inline constexpr uint32_t kA2aMaxRounds =
    (kA2aMaxChips / 2 + kA2aDistancesPerRound - 1) / kA2aDistancesPerRound;
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

/// The round of the pair (a, b) in a group of `chips`: with d = min(|a - b|, chips - |a - b|)
/// (the ring distance), round (d - 1) / kA2aDistancesPerRound. A chip's peers in one round are
/// rank +- d for the round's distances: at most kA2aPeersPerRound. a == b or a chip past the
/// group: kA2aNoIndex.
[[nodiscard]] uint32_t a2a_round_of(uint32_t chips, uint32_t a, uint32_t b) noexcept;

/// Checks the group and the choices ([tokens, top_k] expert ids, token-major):
/// invalid_argument with `what` naming the field (chips, rank, tokens, own, experts, top_k,
/// hidden, format, rows, chain_msg: chain_msg + 8 below 512, choices' length), or for a choice
/// "an expert id past the experts" / "an expert chosen twice for one token" with its token and
/// choice (the second of the two) and the id in `value`. Direction-specific: the combine's
/// format must be addable.
[[nodiscard]] Status a2a_check(const A2aGroup& g, A2aDirection dir, Span<const uint32_t> choices,
                               A2aError& error) noexcept;

/// The rounds with traffic (bit r set for round r), the same on every chip of the group and for
/// both directions (a pair's two directions are in one round). Refusals as a2a_check (with the
/// dispatch's format rule).
[[nodiscard]] Status a2a_rounds(const A2aGroup& g, Span<const uint32_t> choices, uint32_t& round_mask,
                                A2aError& error) noexcept;

/// This chip's ports in round `round` (none when it has no traffic there), exactly as emit_a2a
/// writes them. Refusals as a2a_check; a round at or past kA2aMaxRounds is invalid_argument
/// ("round").
[[nodiscard]] Status size_a2a(const A2aGroup& g, A2aDirection dir, Span<const uint32_t> choices, uint32_t round,
                              A2aPorts& out, A2aError& error) noexcept;

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
[[nodiscard]] Status emit_a2a(const A2aGroup& g, A2aDirection dir, Span<const uint32_t> choices, uint32_t round,
                              Span<const ByteSpan> streams, A2aPorts& written, A2aError& error) noexcept;

}  // namespace tilefw::gen
