// The token-selective all-to-all of an expert-parallel group (see tilefw/gen/alltoall.hpp and
// docs/sg2260-commands.md section 13.8). For a pair of chips (a, b) the rows that cross are
//   routed(owner, holder) = { t owned by `owner` : `holder` holds one of t's chosen experts },
// the dispatch sending routed(a, b) from a to b and the combine sending it back from b to a.
// Both sides walk the same rows in ascending order, so the k-th send of a port pairs with the
// k-th recv of its peer's port without any chip knowing another's buffers.
//
// Sizing and emission run the same walk: sizing builds each command into a small scratch
// buffer and keeps only its length, so size_a2a counts exactly what emit_a2a writes.
//
// The rounds (a2a_plan) are planned from the rows each pair carries, so that no owner gets most
// of its partials in one round: its recv-adds of a round run one after another.

#include "tilefw/gen/alltoall.hpp"

#include <bit>

#include "tilefw/cmd/builder.hpp"

namespace tilefw::gen {

namespace {

constexpr uint64_t kAddrLimit = uint64_t{1} << 45;

Status fail(A2aError& e, Status s, const char* what, uint64_t value = 0, uint32_t token = kA2aNoIndex,
            uint32_t choice = kA2aNoIndex) noexcept {
  e = A2aError{s, what, token, choice, value};
  return s;
}

bool holds(const A2aGroup& g, const uint32_t* choices, uint32_t t, uint32_t chip) noexcept {
  const uint32_t* c = choices + uint64_t{t} * g.top_k;
  for (uint32_t j = 0; j < g.top_k; ++j) {
    if (c[j] % g.chips == chip) return true;
  }
  return false;
}

// The token rows [first, end) chip `owner` owns.
void owned(const A2aGroup& g, uint32_t owner, uint32_t& first, uint32_t& end) noexcept {
  const uint64_t f = uint64_t{owner} * g.own, e = f + g.own;
  first = static_cast<uint32_t>(f < g.tokens ? f : g.tokens);
  end = static_cast<uint32_t>(e < g.tokens ? e : g.tokens);
}

bool any_routed(const A2aGroup& g, const uint32_t* choices, uint32_t owner, uint32_t holder) noexcept {
  uint32_t t = 0, end = 0;
  owned(g, owner, t, end);
  for (; t < end; ++t) {
    if (holds(g, choices, t, holder)) return true;
  }
  return false;
}

// One port's stream: written through a CommandBuilder into the caller's buffer, or (counting)
// each command built into scratch and only its length kept.
class PortStream {
 public:
  PortStream(ByteSpan buffer, bool counting) noexcept
      : counting_(counting), builder_(cmd::Engine::cdma, buffer) {}

  template <typename Op>
  Status put(Op op) noexcept {
    if (!counting_) {
      const Status s = op(builder_);
      bytes_ = builder_.size();
      commands_ = builder_.count();
      return s;
    }
    cmd::CommandBuilder b(cmd::Engine::cdma, ByteSpan(scratch_, sizeof scratch_));
    const Status s = op(b);
    bytes_ += b.size();
    commands_ += b.count();
    return s;
  }
  uint64_t bytes() const noexcept { return bytes_; }
  uint32_t commands() const noexcept { return commands_; }

 private:
  bool counting_;
  cmd::CommandBuilder builder_;
  uint64_t bytes_ = 0;
  uint32_t commands_ = 0;
  alignas(8) uint8_t scratch_[64] = {};
};

// Rows [t, t + n) of this chip's buffer as one [n, hidden] CDMA side.
cmd::CdmaTensor row_run(const A2aGroup& g, uint32_t t, uint32_t n) noexcept {
  const uint64_t row_bytes = uint64_t{g.hidden} * cmd::cdma_format_bytes(g.format);
  cmd::CdmaTensor x;
  x.addr = g.rows + uint64_t{t} * row_bytes;
  x.format = g.format;
  x.c = n;
  x.w = g.hidden;
  x.cstride = x.hstride = g.hidden;
  x.nstride = n * g.hidden;  // n is capped so that this fits (max_run)
  return x;
}

// Rows one command may move: c is 16 bits, and n x hidden elements must fit the 32-bit nstride.
uint32_t max_run(const A2aGroup& g) noexcept {
  const uint32_t by_stride = 0xFFFFFFFFu / g.hidden;
  return by_stride < kA2aMaxRowsPerCommand ? by_stride : kA2aMaxRowsPerCommand;
}

// The sends (send = true) or recvs of routed(owner, holder), consecutive rows merged.
Status transfer_rows(const A2aGroup& g, const uint32_t* choices, uint32_t owner, uint32_t holder, bool send, bool add,
                     PortStream& s, uint64_t& rows) noexcept {
  const uint32_t cap = max_run(g);
  uint32_t t = 0, end = 0;
  owned(g, owner, t, end);
  uint32_t first = 0, n = 0;
  auto flush = [&]() noexcept -> Status {
    if (n == 0) return Status::ok;
    const cmd::CdmaTensor x = row_run(g, first, n);
    rows += n;
    n = 0;
    return s.put([&](cmd::CommandBuilder& b) noexcept {
      return send ? cmd::cdma_send(b, x, add) : cmd::cdma_recv(b, x, add ? cmd::kCdmaReduceAdd : cmd::kCdmaReduceNone);
    });
  };
  for (; t < end; ++t) {
    if (!holds(g, choices, t, holder)) {
      TILEFW_TRY(flush());
      continue;
    }
    if (n > 0 && (first + n != t || n == cap)) TILEFW_TRY(flush());
    if (n == 0) first = t;
    ++n;
  }
  return flush();
}

// Where a port's recvs sit in the round's combine chain: link `link` of `links`. Link i waits
// for id chain_msg + i - 1 and signals chain_msg + i. One id per link, not one id for the chain:
// several ports' RX threads wait at once, and with a shared id any of them could take a signal,
// the last link (which signals nothing) included, stranding the others.
struct ChainPlace {
  uint32_t link = 0;
  uint32_t links = 0;
};

// One port's stream to `peer`: its sends, its recvs (a link of the combine's chain), chain_end.
Status port_stream(const A2aGroup& g, A2aDirection dir, const uint32_t* choices, uint32_t peer, ChainPlace place,
                   PortStream& s, A2aPorts& out) noexcept {
  const bool combine = dir == A2aDirection::combine;
  // Combine: this chip sends the peer's rows routed here and adds the rows of its own routed
  // there; the dispatch the other way round.
  const uint32_t send_owner = combine ? peer : g.rank, send_holder = combine ? g.rank : peer;
  TILEFW_TRY(transfer_rows(g, choices, send_owner, send_holder, true, combine, s, out.rows_sent));
  const uint32_t recv_owner = combine ? g.rank : peer, recv_holder = combine ? peer : g.rank;
  const bool chained = combine && any_routed(g, choices, recv_owner, recv_holder);
  if (chained && place.link > 0) {
    TILEFW_TRY(s.put([&](cmd::CommandBuilder& b) noexcept {
      return cmd::cdma_msg(b, cmd::CdmaSysOp::rx_wait, g.chain_msg + place.link - 1, 1);
    }));
  }
  TILEFW_TRY(transfer_rows(g, choices, recv_owner, recv_holder, false, combine, s, out.rows_received));
  if (chained && place.link + 1 < place.links) {
    TILEFW_TRY(s.put([&](cmd::CommandBuilder& b) noexcept {
      return cmd::cdma_msg(b, cmd::CdmaSysOp::rx_send, g.chain_msg + place.link, 1);
    }));
  }
  return s.put([](cmd::CommandBuilder& b) noexcept { return b.end(); });
}

// Index of the pair a < b among a group of n chips' pairs (row-major upper triangle).
uint32_t pair_index(uint32_t n, uint32_t a, uint32_t b) noexcept { return a * n - a * (a + 1) / 2 + b - a - 1; }

uint64_t hash_choices(Span<const uint32_t> choices) noexcept {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the ids' bytes
  for (const uint32_t c : choices) {
    for (uint32_t i = 0; i < 4; ++i) {
      h ^= (c >> (8 * i)) & 0xFF;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

// This chip's peers with traffic in `round`, ascending; `recvs` marks the ones it receives from
// in direction `dir`. The plan gives at most kA2aPeersPerRound; more is a broken plan.
Status round_peers(const A2aGroup& g, A2aDirection dir, const uint32_t* choices, const A2aPlan& plan, uint32_t round,
                   uint32_t (&peer)[kA2aPeersPerRound], bool (&recvs)[kA2aPeersPerRound], uint32_t& n) noexcept {
  n = 0;
  for (uint32_t p = 0; p < g.chips; ++p) {
    if (p == g.rank || a2a_round_of(plan, g.rank, p) != round) continue;
    if (n == kA2aPeersPerRound) return Status::capacity_exceeded;
    // Rows of the peer routed here or of this chip routed there (the pair has one or both).
    const bool to_me = any_routed(g, choices, p, g.rank), to_peer = any_routed(g, choices, g.rank, p);
    peer[n] = p;
    recvs[n++] = dir == A2aDirection::combine ? to_peer : to_me;
  }
  return Status::ok;
}

// A pair's sort key: placing order is descending keys, i.e. more rows first (up to 2^20 - 1;
// past it, ties), then the lower chip, then the higher. One integer, so that sorting compares
// cheaply on a control core.
constexpr uint32_t kCodeBits = 12;  // a * 64 + b < 4096
constexpr uint32_t kCodeMask = (1u << kCodeBits) - 1;
constexpr uint32_t kKeyRowsMax = (1u << (32 - kCodeBits)) - 1;

uint32_t pair_key(uint32_t rows, uint32_t a, uint32_t b) noexcept {
  const uint32_t r = rows < kKeyRowsMax ? rows : kKeyRowsMax;
  return r << kCodeBits | (kCodeMask - (a * kA2aMaxChips + b));
}

// The rows of every pair of the group (plan.rows) and the pairs with traffic in plan.order
// (`pairs` of them, as pair_key); `max_peers`: the most pairs a chip is in.
void count_pairs(const A2aGroup& g, const uint32_t* choices, A2aPlan& plan, uint32_t& pairs,
                 uint32_t& max_peers) noexcept {
  const uint32_t n = g.chips;
  for (uint32_t i = 0; i < kA2aMaxPairs; ++i) plan.rows[i] = plan.rows_of_lower[i] = 0;
  for (uint32_t t = 0; t < g.tokens; ++t) {
    const uint32_t owner = t / g.own;
    uint64_t holders = 0;  // a row crosses once to a chip however many of its experts it holds
    for (uint32_t j = 0; j < g.top_k; ++j) holders |= uint64_t{1} << (choices[uint64_t{t} * g.top_k + j] % n);
    holders &= ~(uint64_t{1} << owner);
    for (; holders != 0; holders &= holders - 1) {
      const uint32_t h = static_cast<uint32_t>(std::countr_zero(holders));
      const uint32_t pair = owner < h ? pair_index(n, owner, h) : pair_index(n, h, owner);
      ++plan.rows[pair];
      plan.rows_of_lower[pair] += owner < h ? 1 : 0;
    }
  }
  uint32_t peers[kA2aMaxChips] = {};
  pairs = 0;
  for (uint32_t a = 0; a < n; ++a) {
    for (uint32_t b = a + 1; b < n; ++b) {
      if (plan.rows[pair_index(n, a, b)] == 0) continue;
      plan.order[pairs++] = pair_key(plan.rows[pair_index(n, a, b)], a, b);
      ++peers[a];
      ++peers[b];
    }
  }
  max_peers = 0;
  for (uint32_t c = 0; c < n; ++c) max_peers = peers[c] > max_peers ? peers[c] : max_peers;
}

// Heap whose root is the pair placed last (the least key).
void sift_down(A2aPlan& plan, uint32_t root, uint32_t end) noexcept {
  for (uint32_t child = 2 * root + 1; child < end; child = 2 * root + 1) {
    if (child + 1 < end && plan.order[child] > plan.order[child + 1]) ++child;
    if (plan.order[root] <= plan.order[child]) return;
    const uint32_t x = plan.order[root];
    plan.order[root] = plan.order[child];
    plan.order[child] = x;
    root = child;
  }
}

// Heap sort (no heap memory, O(p log p)): plan.order[0, pairs) into placing order.
void sort_pairs(A2aPlan& plan, uint32_t pairs) noexcept {
  for (uint32_t i = pairs / 2; i-- > 0;) sift_down(plan, i, pairs);
  for (uint32_t end = pairs; end > 1; --end) {
    const uint32_t x = plan.order[0];
    plan.order[0] = plan.order[end - 1];
    plan.order[end - 1] = x;
    sift_down(plan, 0, end - 1);
  }
}

uint32_t add_sat(uint32_t a, uint32_t b) noexcept { return a > 0xFFFFFFFFu - b ? 0xFFFFFFFFu : a + b; }
uint32_t max2(uint32_t a, uint32_t b) noexcept { return a > b ? a : b; }

// What placing the pair (a, b), x rows owned by a and y by b, in round r costs: the most rows
// one of the two would receive there (combine: a gets x, b gets y; dispatch: b gets x, a gets
// y), then the larger of their rows both ways.
struct Cost {
  uint32_t recv = 0;
  uint32_t both = 0;
  bool operator<(const Cost& o) const noexcept { return recv != o.recv ? recv < o.recv : both < o.both; }
};

Cost cost_of(const A2aPlan& p, uint32_t a, uint32_t b, uint32_t x, uint32_t y, uint32_t r) noexcept {
  const uint32_t ca = add_sat(p.combine_rows[a][r], x), cb = add_sat(p.combine_rows[b][r], y);
  const uint32_t da = add_sat(p.dispatch_rows[a][r], y), db = add_sat(p.dispatch_rows[b][r], x);
  return Cost{max2(max2(ca, cb), max2(da, db)), max2(add_sat(ca, da), add_sat(cb, db))};
}

// Each pair in placing order into the open round with a free port on both chips of least
// cost (ties: the lowest), a new round when none has room.
Status place_pairs(A2aPlan& plan, uint32_t pairs, uint32_t max_peers) noexcept {
  for (uint32_t i = 0; i < kA2aMaxPairs; ++i) plan.round[i] = kA2aNoRound;
  for (uint32_t c = 0; c < kA2aMaxChips; ++c) {
    for (uint32_t r = 0; r < kA2aMaxRounds; ++r) {
      plan.combine_rows[c][r] = plan.dispatch_rows[c][r] = 0;
      plan.ports[c][r] = 0;
    }
  }
  uint32_t rounds = (max_peers + kA2aPeersPerRound - 1) / kA2aPeersPerRound;
  for (uint32_t i = 0; i < pairs; ++i) {
    const uint32_t code = kCodeMask - (plan.order[i] & kCodeMask);
    const uint32_t a = code / kA2aMaxChips, b = code % kA2aMaxChips;
    const uint32_t pair = pair_index(plan.chips, a, b);
    const uint32_t x = plan.rows_of_lower[pair], y = plan.rows[pair] - x;
    uint32_t best = kA2aNoIndex;
    Cost best_cost;
    for (uint32_t r = 0; r < rounds; ++r) {
      if (plan.ports[a][r] >= kA2aPeersPerRound || plan.ports[b][r] >= kA2aPeersPerRound) continue;
      const Cost c = cost_of(plan, a, b, x, y, r);
      if (best == kA2aNoIndex || c < best_cost) {
        best = r;
        best_cost = c;
      }
    }
    if (best == kA2aNoIndex) {
      if (rounds == kA2aMaxRounds) return Status::capacity_exceeded;
      best = rounds++;
    }
    plan.round[pair] = static_cast<uint8_t>(best);
    plan.combine_rows[a][best] = add_sat(plan.combine_rows[a][best], x);
    plan.combine_rows[b][best] = add_sat(plan.combine_rows[b][best], y);
    plan.dispatch_rows[a][best] = add_sat(plan.dispatch_rows[a][best], y);
    plan.dispatch_rows[b][best] = add_sat(plan.dispatch_rows[b][best], x);
    ++plan.ports[a][best];
    ++plan.ports[b][best];
    plan.round_mask |= 1u << best;
  }
  plan.rounds = rounds;
  return Status::ok;
}

// size_a2a and emit_a2a: the round's ports, counted (streams empty) or written.
Status run_round(const A2aGroup& g, A2aDirection dir, Span<const uint32_t> choices, const A2aPlan& plan,
                 uint32_t round, const Span<const ByteSpan>* streams, A2aPorts& out, A2aError& error) noexcept {
  out = A2aPorts{};
  TILEFW_TRY(a2a_check(g, dir, choices, error));
  if (round >= kA2aMaxRounds) return fail(error, Status::invalid_argument, "round", round);
  if (plan.chips != g.chips || plan.tokens != g.tokens || plan.own != g.own || plan.experts != g.experts ||
      plan.top_k != g.top_k || plan.choices_hash != hash_choices(choices)) {
    return fail(error, Status::gen_plan_mismatch, "plan: a2a_plan made it for another group or other choices");
  }
  bool recvs[kA2aPeersPerRound] = {};
  uint32_t n = 0;
  if (round_peers(g, dir, choices.data(), plan, round, out.peer, recvs, n) != Status::ok) {
    return fail(error, Status::capacity_exceeded, "plan: more than 10 peers of the chip in the round", round);
  }
  if (streams != nullptr && streams->size() != n) {
    return fail(error, Status::gen_plan_mismatch, "stream buffers: not one per port of the round", n);
  }
  ChainPlace place;
  for (uint32_t i = 0; i < n; ++i) place.links += recvs[i] ? 1 : 0;
  for (uint32_t i = 0; i < n; ++i) {
    PortStream s(streams != nullptr ? (*streams)[i] : ByteSpan(), streams == nullptr);
    const Status st = port_stream(g, dir, choices.data(), out.peer[i], place, s, out);
    if (st == Status::buffer_too_small) return fail(error, st, "stream buffer shorter than its port's stream", i);
    if (st != Status::ok) return fail(error, st, "a port's CDMA command", i);
    out.bytes[i] = s.bytes();
    out.commands[i] = s.commands();
    place.link += recvs[i] ? 1 : 0;
  }
  out.count = n;
  return Status::ok;
}

}  // namespace

uint32_t a2a_round_of(const A2aPlan& plan, uint32_t a, uint32_t b) noexcept {
  if (a == b || a >= plan.chips || b >= plan.chips) return kA2aNoIndex;
  const uint8_t r = plan.round[a < b ? pair_index(plan.chips, a, b) : pair_index(plan.chips, b, a)];
  return r == kA2aNoRound ? kA2aNoIndex : r;
}

Status a2a_check(const A2aGroup& g, A2aDirection dir, Span<const uint32_t> choices, A2aError& error) noexcept {
  error = A2aError{};
  const Status bad = Status::invalid_argument;
  if (g.chips == 0 || g.chips > kA2aMaxChips) return fail(error, bad, "chips: 1 to 64", g.chips);
  if (g.rank >= g.chips) return fail(error, bad, "rank: not below chips", g.rank);
  if (g.tokens == 0) return fail(error, bad, "tokens: 0", 0);
  if (g.own == 0 || (uint64_t{g.tokens} + g.own - 1) / g.own > g.chips) {
    return fail(error, bad, "own: a token's owner (token / own) past the group's chips", g.own);
  }
  if (g.experts == 0) return fail(error, bad, "experts: 0", 0);
  if (g.top_k == 0 || g.top_k > g.experts) return fail(error, bad, "top_k: 1 to experts", g.top_k);
  if (g.hidden == 0) return fail(error, bad, "hidden: 0", 0);
  const uint32_t size = cmd::cdma_format_bytes(g.format);
  if (size == 0) return fail(error, bad, "format: a CDMA format with a byte size (not FP20)", g.format);
  if (dir == A2aDirection::combine && !cmd::cdma_reduce_valid(g.format, cmd::kCdmaReduceAdd)) {
    return fail(error, bad, "format: the combine's recv cannot add in it (FP32, FP16, BF16 or INT32)", g.format);
  }
  const uint64_t end = g.rows + uint64_t{g.tokens} * g.hidden * size;
  if (g.rows >= kAddrLimit || end > kAddrLimit) return fail(error, bad, "rows: the buffer runs past 45 bits", end);
  if (g.chain_msg + kA2aChainLinks > (1u << chip::sg2260::kMsgIdBits)) {
    return fail(error, bad, "chain_msg: the chain's ids chain_msg .. chain_msg + 8 not below 512", g.chain_msg);
  }
  if (choices.size() != uint64_t{g.tokens} * g.top_k) {
    return fail(error, bad, "choices: not tokens x top_k expert ids", choices.size());
  }
  for (uint32_t t = 0; t < g.tokens; ++t) {
    const uint32_t* c = choices.data() + uint64_t{t} * g.top_k;
    for (uint32_t j = 0; j < g.top_k; ++j) {
      if (c[j] >= g.experts) return fail(error, bad, "choices: an expert id past the experts", c[j], t, j);
      for (uint32_t i = 0; i < j; ++i) {
        if (c[i] == c[j]) return fail(error, bad, "choices: an expert chosen twice for one token", c[j], t, j);
      }
    }
  }
  return Status::ok;
}

Status a2a_plan(const A2aGroup& g, Span<const uint32_t> choices, A2aPlan& plan, A2aError& error) noexcept {
  plan.chips = 0;  // refused by size_a2a and emit_a2a until complete
  plan.rounds = plan.round_mask = 0;
  TILEFW_TRY(a2a_check(g, A2aDirection::dispatch, choices, error));
  uint32_t pairs = 0, max_peers = 0;
  plan.chips = g.chips;  // pair_index reads it
  count_pairs(g, choices.data(), plan, pairs, max_peers);
  sort_pairs(plan, pairs);
  if (place_pairs(plan, pairs, max_peers) != Status::ok) {
    plan.chips = 0;
    return fail(error, Status::capacity_exceeded, "rounds: the plan needs more than kA2aMaxRounds", kA2aMaxRounds);
  }
  plan.tokens = g.tokens;
  plan.own = g.own;
  plan.experts = g.experts;
  plan.top_k = g.top_k;
  plan.choices_hash = hash_choices(choices);
  return Status::ok;
}

Status size_a2a(const A2aGroup& g, A2aDirection dir, Span<const uint32_t> choices, const A2aPlan& plan, uint32_t round,
                A2aPorts& out, A2aError& error) noexcept {
  return run_round(g, dir, choices, plan, round, nullptr, out, error);
}

Status emit_a2a(const A2aGroup& g, A2aDirection dir, Span<const uint32_t> choices, const A2aPlan& plan, uint32_t round,
                Span<const ByteSpan> streams, A2aPorts& written, A2aError& error) noexcept {
  return run_round(g, dir, choices, plan, round, &streams, written, error);
}

}  // namespace tilefw::gen
