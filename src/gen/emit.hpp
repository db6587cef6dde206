// Emission machinery of the generator: per-engine streams that count (pass 1) or write
// (pass 2) through the cmd builders, LMEM buffers, the dependency tracker that derives every
// cmd_id_dep, and the TIU/DMA command helpers the layer code calls.
#pragma once

#include <cstdint>

#include "tilefw/base/result.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/gen/generator.hpp"

namespace tilefw::gen::detail {

namespace sg = chip::sg2260;

/// One engine's stream. Pass 1 (counting) appends every command into a scratch buffer and
/// keeps only the totals, so pass 2 writes exactly the planned number of bytes.
/// The op the next commands belong to (set by the layer modules, read by the streams).
struct OpLabel {
  const char* op = "setup";
  uint32_t m = kNoTile, n = kNoTile, k = kNoTile, expert = kNoTile;
  bool operator==(const OpLabel& o) const noexcept {
    return op == o.op && m == o.m && n == o.n && k == o.k && expert == o.expert;
  }
};

class Stream {
 public:
  void init(cmd::Engine engine, ByteSpan buffer, bool counting) noexcept;
  /// Pass 2: report the op of each command to `sink` (on change) for core `core`.
  void label_with(const OpSink* sink, const OpLabel* current, uint32_t core) noexcept;
  Result<uint8_t*> append(cmd::CmdClass cls, uint32_t eu) noexcept;
  [[nodiscard]] Status send(uint32_t msg_id, uint32_t cnt) noexcept;
  [[nodiscard]] Status wait(uint32_t msg_id, uint32_t cnt) noexcept;
  [[nodiscard]] Status end() noexcept;
  /// Muted: commands are built into scratch and neither counted nor written (the parts of a
  /// layer outside the phase being generated).
  void mute(bool muted) noexcept { muted_ = muted; }
  uint32_t count() const noexcept { return count_; }
  uint64_t bytes() const noexcept { return bytes_; }
  /// Pass 2, unmuted: the bytes written so far and the free room after them, for copying a
  /// block of earlier commands (expert_blocks.cpp); null while counting or muted.
  uint8_t* data() noexcept { return counting_ || muted_ ? nullptr : builder_.buffer().data(); }
  uint64_t room() const noexcept { return counting_ || muted_ ? 0 : builder_.buffer().size() - builder_.size(); }
  /// Counts a block the caller copied to data() + bytes() (CommandBuilder::adopt); the caller
  /// reports its ops (OpSink::copy).
  [[nodiscard]] Status adopt(uint64_t bytes, uint32_t commands) noexcept;
  /// The sink listening (null: none). After a copied block the next command is marked afresh.
  const OpSink* sink() const noexcept { return sink_; }
  void forget_label() noexcept { last_ = OpLabel{nullptr}; }
  uint32_t core() const noexcept { return core_; }

 private:
  void rewind() noexcept;
  void account() noexcept;
  void mark() noexcept;

  cmd::Engine engine_ = cmd::Engine::tiu;
  cmd::CommandBuilder builder_{cmd::Engine::tiu, ByteSpan()};
  bool counting_ = false;
  bool muted_ = false;
  uint32_t count_ = 0;
  uint64_t bytes_ = 0;
  uint8_t scratch_[cmd::kMaxCommandBytes] = {};
  const OpSink* sink_ = nullptr;
  const OpLabel* current_ = nullptr;
  OpLabel last_{nullptr};
  uint32_t core_ = 0;
};

/// An LMEM tensor of `rows` x `cols` elements: row r on lane r % 64, rows >= 64 in further
/// "groups" of the same lanes, `row_bytes` apart (64-byte aligned: alignEU for every dtype).
/// `replicated` tensors hold the same row in all 64 lanes (norm weights, tables).
struct Buf {
  uint8_t id = 0;
  DType dt = DType::f32;
  uint32_t offset = 0;  // inside each lane
  uint32_t rows = 0;
  uint32_t cols = 0;
  uint32_t row_bytes = 0;
  uint32_t groups() const noexcept { return (rows + sg::kLanes - 1) / sg::kLanes; }
  uint32_t esize() const noexcept { return static_cast<uint32_t>(dtype_size(dt)); }
  /// Local address of element (row, col).
  uint32_t at(uint32_t row, uint32_t col) const noexcept {
    return ((row % sg::kLanes) << sg::kLaneAddressBits) |
           (offset + (row / sg::kLanes) * row_bytes + col * esize());
  }
  /// Group stride in elements (the c stride of a TIU/DMA view that wraps past lane 63).
  uint32_t group_stride() const noexcept { return row_bytes / esize(); }
};

inline constexpr uint32_t kMaxBufs = 80;  // DeepSeek-V3 in passes: ~66 (MLA, MoE, the expert set)
inline constexpr uint8_t kNoBuf = 0xFF;

/// Per LMEM buffer: the last TIU / GDMA command (1-based id) that wrote or touched it. A TIU
/// command waits for the last GDMA write of what it reads and the last GDMA access of what it
/// writes (RAW, WAR, WAW); a GDMA command the same with the roles swapped. Engines run in
/// order, so waiting for the largest such id covers all of them: one cmd_id_dep suffices.
struct Tracker {
  uint32_t tiu_write[kMaxBufs] = {};
  uint32_t tiu_access[kMaxBufs] = {};
  uint32_t dma_write[kMaxBufs] = {};
  uint32_t dma_access[kMaxBufs] = {};
};

/// A TIU operand: an LMEM view with explicit strides (elements), or an f32 immediate.
struct Opd {
  bool konst = false;
  uint32_t bits = 0;  // konst: f32 bits
  uint32_t addr = 0;
  DType dt = DType::f32;
  uint32_t ns = 0, cs = 0, hs = 0, ws = 1;
  uint8_t buf = kNoBuf;
};
struct Shape4 {
  uint32_t n = 1, c = 1, h = 1, w = 1;
};

/// A DMA side: a 45-bit address (DDR/L2 tag, or tag 31 + local address) with strides.
struct Side {
  uint64_t addr = 0;
  uint32_t ns = 0, cs = 0, hs = 0, ws = 1;
  uint8_t buf = kNoBuf;  // LMEM buffer for dependency tracking
};

/// The per-core generation context shared by the layer modules.
struct Ctx {
  const SizedLayer* sized = nullptr;
  uint32_t core = 0;
  Stream tiu, gdma, sdma;
  Tracker deps;
  GenError* error = nullptr;
  OpLabel label;  // the op being emitted (traces)
  uint32_t barriers = 0;
  // LMEM allocation (bump allocator over each lane)
  uint32_t lmem_used = 0;
  uint8_t next_buf = 0;
  // Phases of a MoE layer (generator.hpp PhaseRequest): the one generated, and where the
  // program is (1 until the experts' phase boundary, 2 after).
  PhaseRequest phase;
  uint8_t at = 1;
};

/// The boundary between a MoE layer's routing phase and its experts' phase, reached once by
/// every core's program at the same point of its barriers. Generating phase 1, everything after
/// is muted; generating phase 2, everything before was muted and nothing is pending (the control
/// core waited for phase 1), so the dependency tracker starts afresh.
void phase_boundary(Ctx& ctx) noexcept;
/// Every LMEM buffer counts as touched by the latest TIU and GDMA command so far: what follows
/// waits on those two ids and on nothing earlier, so a block generated from here has the same
/// dependencies relative to its start wherever it stands (reused expert blocks, moe.cpp).
void settle_tracker(Ctx& ctx) noexcept;
/// Whether the layer is generated in phases (the experts' rows then come from the routing).
inline bool phased(const Ctx& ctx) noexcept { return ctx.phase.phase != 0; }
/// Rows expert `e` runs on: its capacity `C` in a static layer; in the experts' phase the
/// tokens routed to it (at most C; 0: the expert gets no command at all).
uint32_t expert_rows(const Ctx& ctx, uint32_t e, uint32_t C) noexcept;

/// Buffers [first, second) and [second, end) that occupy the same LMEM bytes in turn (ids).
struct Overlay {
  uint8_t first = 0, second = 0, end = 0;
};
/// Switches from the first set of an overlay to the second: every second-set buffer starts
/// with the latest TIU / GDMA write and access of any first-set buffer, so the tracker orders
/// its first use after everything that touched the bytes before. No-op for an empty overlay.
void enter_overlay(Ctx& ctx, const Overlay& o) noexcept;
/// The way back (chunked prefill: the next chunk's attention reuses the first set's bytes).
void leave_overlay(Ctx& ctx, const Overlay& o) noexcept;
/// Every buffer [to0, to1) waits for the latest command that touched any buffer [from0, from1).
void hand_over(Ctx& ctx, uint32_t from0, uint32_t from1, uint32_t to0, uint32_t to1) noexcept;

/// Names the op of the commands that follow (no tile indices).
inline void set_op(Ctx& ctx, const char* op) noexcept { ctx.label = OpLabel{op}; }

/// Records an error (first one wins) and returns its status.
Status fail(Ctx& ctx, Status s, const char* what, uint64_t value = 0) noexcept;

/// A buffer in `host`'s bytes under its own id (hand_over orders the two users): false, and
/// nothing changed, when it does not fit there or no id is left.
bool alloc_alias(Ctx& ctx, Buf& buf, const Buf& host, DType dt, uint32_t rows, uint32_t cols) noexcept;
/// Allocates an LMEM buffer; gen_cannot_map naming `what` when the lane is full.
[[nodiscard]] Status alloc(Ctx& ctx, Buf& buf, DType dt, uint32_t rows, uint32_t cols, const char* what) noexcept;

// Views ---------------------------------------------------------------------------------------
/// Rows [row, row + count) x columns [col, ...) of a buffer as an operand (count <= 64 - row % 64).
Opd view(const Buf& b, uint32_t row, uint32_t col) noexcept;
/// Column `col` of a buffer broadcast along w (stride 0).
Opd column(const Buf& b, uint32_t row, uint32_t col) noexcept;
Opd imm(float v) noexcept;
uint64_t lmem_addr(uint32_t local) noexcept;
Side side_local(const Buf& b, uint32_t row, uint32_t col) noexcept;
/// Row `row` of `b` from column `col` seen as heads of `width` elements side by side (the h
/// dimension steps one head): the source or destination of a reshaping DMA to one head per lane.
Side side_heads_in_row(const Buf& b, uint32_t row, uint32_t col, uint32_t width) noexcept;

// TIU --------------------------------------------------------------------------------------------
/// AR (long form, explicit strides): res = a (op) b; `b` ignored for unary eu (cast, copy).
[[nodiscard]] Status ar(Ctx& ctx, uint32_t eu, const Shape4& shape, const Opd& res, const Opd& a,
                        const Opd& b = Opd{}) noexcept;
/// MM2 (long form): nt ? res[M,N] (+)= left[M,K] x right[N,K]^T : res (+)= left[M,K] x right[K,N].
[[nodiscard]] Status mm2(Ctx& ctx, bool nt, uint32_t M, uint32_t N, uint32_t K, const Opd& res,
                         const Opd& left, const Opd& right, bool accumulate) noexcept;
/// SFU (long form): rsqrt (eu 17) or taylor (eu 13, `table` of `table_len` coefficients).
[[nodiscard]] Status sfu(Ctx& ctx, uint32_t eu, const Shape4& shape, const Opd& res, const Opd& a,
                         const Opd& table = Opd{}, uint32_t table_len = 0) noexcept;

// GDMA -------------------------------------------------------------------------------------------
/// Tensor copy (sp_func 0) of `shape` elements of `dt` from `src` to `dst`.
[[nodiscard]] Status dma(Ctx& ctx, const Shape4& shape, DType dt, const Side& src, const Side& dst) noexcept;
/// Tensor copy whose destination has its own shape (nchw_copy 0): the elements of `src_shape`
/// taken in n, c, h, w order land in `dst_shape`'s n, c, h, w order (equal counts), e.g. the
/// heads side by side in one lane's row moved to one head per lane.
[[nodiscard]] Status dma_reshape(Ctx& ctx, DType dt, const Shape4& src_shape, const Side& src, const Shape4& dst_shape,
                                 const Side& dst) noexcept;
/// Fills `shape` elements at `dst` with the 32-bit pattern `bits`.
[[nodiscard]] Status dma_fill(Ctx& ctx, const Shape4& shape, DType dt, uint32_t bits, const Side& dst) noexcept;

/// Gather (dst row h = src row index[h]; out-of-range index: constant 0) or scatter (dst row
/// index[h] = src row h; out-of-range: skipped) of rows of `cols` elements, one channel, with
/// uint32 indices at `index` (DDR/L2 addresses; no LMEM buffer, so no TIU dependency).
[[nodiscard]] Status dma_index(Ctx& ctx, bool scatter, DType dt, uint32_t src_rows, uint32_t dst_rows,
                               uint32_t cols, uint64_t src, uint64_t dst, uint64_t index) noexcept;

/// Gather of `rows` (<= 64) table rows into local memory, one per lane: lane t of `dst` gets row
/// index[t] of the DDR `table` (`table_rows` x `cols`; out of range: 0). index: uint32 [rows].
[[nodiscard]] Status dma_gather_rows(Ctx& ctx, DType dt, uint32_t table_rows, uint32_t cols, uint64_t table,
                                     uint64_t index, uint32_t rows, const Side& dst) noexcept;

// Sync -------------------------------------------------------------------------------------------
/// A chip-wide barrier: every engine of every core sends then waits (cnt = 3 x cores),
/// alternating two message ids as tpu-mlir does. Called for every core, in the same order.
[[nodiscard]] Status barrier(Ctx& ctx) noexcept;
/// Ends the three streams.
[[nodiscard]] Status finish(Ctx& ctx) noexcept;

}  // namespace tilefw::gen::detail
