// Streams, LMEM allocation, dependency derivation and the command helpers of the generator.
#include "emit.hpp"

#include <bit>

namespace tilefw::gen::detail {

namespace {

using cmd::CmdClass;

// TIU precision and GDMA data-format codes agree for the float types the generator uses
// (docs/sg2260-commands.md sections 5 and 6.3): f16 1, f32 2, bf16 5.
uint32_t prec_code(DType dt) noexcept {
  switch (dt) {
    case DType::f16: return 1;
    case DType::bf16: return 5;
    case DType::i32: case DType::u32: return 4;
    default: return 2;
  }
}
uint32_t sign_bit(DType dt) noexcept { return dt == DType::u32 ? 0 : 1; }

uint32_t max_u32(uint32_t a, uint32_t b) noexcept { return a > b ? a : b; }

// The cmd_id_dep a TIU command needs for reading `reads` and writing `write`.
uint32_t tiu_dep(const Tracker& t, const uint8_t* reads, uint32_t n, uint8_t write) noexcept {
  uint32_t dep = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (reads[i] != kNoBuf) dep = max_u32(dep, t.dma_write[reads[i]]);
  }
  if (write != kNoBuf) dep = max_u32(dep, t.dma_access[write]);
  return dep;
}
void tiu_record(Tracker& t, const uint8_t* reads, uint32_t n, uint8_t write, uint32_t id) noexcept {
  for (uint32_t i = 0; i < n; ++i) {
    if (reads[i] != kNoBuf) t.tiu_access[reads[i]] = id;
  }
  if (write != kNoBuf) t.tiu_write[write] = t.tiu_access[write] = id;
}

uint32_t enc_dep(uint32_t id) noexcept { return id == 0 ? 0 : cmd::CommandBuilder::dep_on(id); }

constexpr uint64_t kAllLanes = ~uint64_t{0};

void set_opd0(cmd::TiuLongRef& r, const Opd& o) noexcept {
  r.set_opt_opd0_const(o.konst ? 1 : 0);
  r.set_opd0_addr(o.konst ? o.bits : o.addr);
  r.set_opt_opd0_prec(prec_code(o.dt));
  r.set_opt_opd0_sign(1);
  r.set_short_opd0_str(3);
  r.set_opd0_n_str(o.ns);
  r.set_opd0_c_str(o.cs);
  r.set_opd0_h_str(o.hs);
  r.set_opd0_w_str(o.ws);
}
void set_opd1(cmd::TiuLongRef& r, const Opd& o) noexcept {
  r.set_opt_opd1_const(o.konst ? 1 : 0);
  r.set_opd1_addr(o.konst ? o.bits : o.addr);
  r.set_opt_opd1_prec(prec_code(o.dt));
  r.set_opt_opd1_sign(1);
  r.set_short_opd1_str(3);
  r.set_opd1_n_str(o.ns);
  r.set_opd1_c_str(o.cs);
  r.set_opd1_h_str(o.hs);
  r.set_opd1_w_str(o.ws);
}
void set_res0(cmd::TiuLongRef& r, const Opd& o, const Shape4& s) noexcept {
  r.set_res0_addr(o.addr);
  r.set_opt_res0_prec(prec_code(o.dt));
  r.set_opt_res0_sign(sign_bit(o.dt));
  r.set_short_res0_str(3);
  r.set_res0_n_str(o.ns);
  r.set_res0_c_str(o.cs);
  r.set_res0_h_str(o.hs);
  r.set_res0_w_str(o.ws);
  r.set_res0_n(s.n);
  r.set_res0_c(s.c);
  r.set_res0_h(s.h);
  r.set_res0_w(s.w);
}

// Fields of the 16-bit shape and stride slots must hold their values: the generator checks
// instead of letting the builder truncate silently.
bool fits16(uint32_t v) noexcept { return v <= 0xFFFF; }
bool shape_fits(const Shape4& s) noexcept { return fits16(s.n) && fits16(s.c) && fits16(s.h) && fits16(s.w); }

Status append_tiu(Ctx& ctx, CmdClass cls, uint32_t eu, const uint8_t* reads, uint32_t nreads, uint8_t write,
                  uint8_t*& out) noexcept {
  Result<uint8_t*> r = ctx.tiu.append(cls, eu);
  if (!r.ok()) return fail(ctx, r.status(), "tiu stream", ctx.tiu.count());
  out = r.value();
  cmd::TiuLongRef ref(out);
  ref.set_cmd_id_dep(enc_dep(tiu_dep(ctx.deps, reads, nreads, write)));
  ref.set_tsk_lane_num(kAllLanes);
  tiu_record(ctx.deps, reads, nreads, write, ctx.tiu.count());
  return Status::ok;
}

}  // namespace

// ---- Stream -------------------------------------------------------------------------------------
void Stream::init(cmd::Engine engine, ByteSpan buffer, bool counting) noexcept {
  engine_ = engine;
  counting_ = counting;
  count_ = 0;
  bytes_ = 0;
  builder_ = cmd::CommandBuilder(engine, counting ? ByteSpan(scratch_, sizeof scratch_) : buffer);
}
void Stream::rewind() noexcept {
  if (counting_) builder_ = cmd::CommandBuilder(engine_, ByteSpan(scratch_, sizeof scratch_));
}
void Stream::label_with(const OpSink* sink, const OpLabel* current, uint32_t core) noexcept {
  sink_ = sink != nullptr && sink->fn != nullptr ? sink : nullptr;
  current_ = current;
  core_ = core;
  last_ = OpLabel{nullptr};
}
void Stream::account() noexcept {
  if (counting_) {
    bytes_ += builder_.size();
    ++count_;
  } else {
    bytes_ = builder_.size();
    count_ = builder_.count();
    mark();
  }
}
void Stream::mark() noexcept {
  if (sink_ == nullptr || current_ == nullptr || *current_ == last_) return;
  last_ = *current_;
  OpMark m;
  m.core = core_;
  m.engine = static_cast<uint32_t>(engine_);
  m.first_command = count_;
  m.op = last_.op;
  m.m = last_.m;
  m.n = last_.n;
  m.k = last_.k;
  m.expert = last_.expert;
  sink_->fn(sink_->user, m);
}
Result<uint8_t*> Stream::append(cmd::CmdClass cls, uint32_t eu) noexcept {
  if (muted_) {  // built where nothing reads it: the caller fills its fields as usual
    cmd::CommandBuilder quiet(engine_, ByteSpan(scratch_, sizeof scratch_));
    return quiet.append(cls, eu);
  }
  if (count_ >= sg::kMaxCommandsPerStream) return Status::cmd_stream_too_long;
  rewind();
  Result<uint8_t*> r = builder_.append(cls, eu);
  if (r.ok()) account();
  return r;
}
Status Stream::adopt(uint64_t bytes, uint32_t commands) noexcept {
  if (counting_ || muted_) return Status::invalid_argument;
  if (uint64_t{count_} + commands > sg::kMaxCommandsPerStream) return Status::cmd_stream_too_long;
  TILEFW_TRY(builder_.adopt(static_cast<size_t>(bytes), commands));
  bytes_ = builder_.size();
  count_ = builder_.count();
  return Status::ok;
}
Status Stream::send(uint32_t msg_id, uint32_t cnt) noexcept {
  if (muted_) return Status::ok;
  rewind();
  TILEFW_TRY(builder_.send_msg(msg_id, cnt));
  account();
  return Status::ok;
}
Status Stream::wait(uint32_t msg_id, uint32_t cnt) noexcept {
  if (muted_) return Status::ok;
  rewind();
  TILEFW_TRY(builder_.wait_msg(msg_id, cnt));
  account();
  return Status::ok;
}
Status Stream::end() noexcept {
  rewind();
  TILEFW_TRY(builder_.end());
  account();
  return Status::ok;
}

// ---- context ------------------------------------------------------------------------------------
Status fail(Ctx& ctx, Status s, const char* what, uint64_t value) noexcept {
  if (ctx.error != nullptr && ctx.error->status == Status::ok) *ctx.error = GenError{s, what, value};
  return s;
}

void enter_overlay(Ctx& ctx, const Overlay& o) noexcept { hand_over(ctx, o.first, o.second, o.second, o.end); }
void leave_overlay(Ctx& ctx, const Overlay& o) noexcept { hand_over(ctx, o.second, o.end, o.first, o.second); }

void hand_over(Ctx& ctx, uint32_t from0, uint32_t from1, uint32_t to0, uint32_t to1) noexcept {
  Tracker& t = ctx.deps;
  uint32_t tw = 0, ta = 0, dw = 0, da = 0;
  for (uint32_t i = from0; i < from1; ++i) {
    tw = tw > t.tiu_write[i] ? tw : t.tiu_write[i];
    ta = ta > t.tiu_access[i] ? ta : t.tiu_access[i];
    dw = dw > t.dma_write[i] ? dw : t.dma_write[i];
    da = da > t.dma_access[i] ? da : t.dma_access[i];
  }
  for (uint32_t i = to0; i < to1; ++i) {
    t.tiu_write[i] = t.tiu_write[i] > tw ? t.tiu_write[i] : tw;
    t.tiu_access[i] = t.tiu_access[i] > ta ? t.tiu_access[i] : ta;
    t.dma_write[i] = t.dma_write[i] > dw ? t.dma_write[i] : dw;
    t.dma_access[i] = t.dma_access[i] > da ? t.dma_access[i] : da;
  }
}

bool alloc_alias(Ctx& ctx, Buf& buf, const Buf& host, DType dt, uint32_t rows, uint32_t cols) noexcept {
  const uint64_t row_bytes = (uint64_t{cols} * dtype_size(dt) + 63) / 64 * 64;
  const uint64_t groups = (uint64_t{rows} + sg::kLanes - 1) / sg::kLanes;
  if (ctx.next_buf >= kMaxBufs || row_bytes == 0 || row_bytes * groups > uint64_t{host.row_bytes} * host.groups()) {
    return false;
  }
  buf.id = ctx.next_buf++;
  buf.dt = dt;
  buf.rows = rows;
  buf.cols = cols;
  buf.row_bytes = static_cast<uint32_t>(row_bytes);
  buf.offset = host.offset;
  return true;
}

Status alloc(Ctx& ctx, Buf& buf, DType dt, uint32_t rows, uint32_t cols, const char* what) noexcept {
  if (ctx.next_buf >= kMaxBufs) return fail(ctx, Status::gen_cannot_map, "too many LMEM buffers");
  buf.id = ctx.next_buf++;
  buf.dt = dt;
  buf.rows = rows;
  buf.cols = cols;
  const uint64_t row_bytes = (uint64_t{cols} * dtype_size(dt) + 63) / 64 * 64;
  const uint64_t bytes = row_bytes * ((uint64_t{rows} + sg::kLanes - 1) / sg::kLanes);
  if (row_bytes == 0) {  // an empty tensor (e.g. no heads on this core): no memory
    buf.row_bytes = 64;
    buf.offset = ctx.lmem_used;
    return Status::ok;
  }
  if (ctx.lmem_used + bytes > sg::kLaneBytes) {
    return fail(ctx, Status::gen_cannot_map, what, ctx.lmem_used + bytes);
  }
  buf.row_bytes = static_cast<uint32_t>(row_bytes);
  buf.offset = ctx.lmem_used;
  ctx.lmem_used += static_cast<uint32_t>(bytes);
  return Status::ok;
}

Opd view(const Buf& b, uint32_t row, uint32_t col) noexcept {
  Opd o;
  o.addr = b.at(row, col);
  o.dt = b.dt;
  o.cs = b.group_stride();
  o.hs = b.cols;
  o.ws = 1;
  o.buf = b.id;
  return o;
}
Opd column(const Buf& b, uint32_t row, uint32_t col) noexcept {
  Opd o = view(b, row, col);
  o.hs = 0;
  o.ws = 0;
  return o;
}
Opd imm(float v) noexcept {
  Opd o;
  o.konst = true;
  o.bits = std::bit_cast<uint32_t>(v);
  o.dt = DType::f32;
  return o;
}
uint64_t lmem_addr(uint32_t local) noexcept { return sg::make_dma_address(sg::kTagLmem, local); }
Side side_local(const Buf& b, uint32_t row, uint32_t col) noexcept {
  Side s;
  s.addr = lmem_addr(b.at(row, col));
  s.cs = b.group_stride();
  s.hs = b.cols;
  s.ws = 1;
  s.buf = b.id;
  return s;
}

Side side_heads_in_row(const Buf& b, uint32_t row, uint32_t col, uint32_t width) noexcept {
  Side s = side_local(b, row, col);
  s.hs = width;
  return s;
}

// ---- TIU ----------------------------------------------------------------------------------------
Status ar(Ctx& ctx, uint32_t eu, const Shape4& shape, const Opd& res, const Opd& a, const Opd& b) noexcept {
  const bool unary = eu == 14 || eu == 19;
  if (!shape_fits(shape) || !fits16(res.cs) || !fits16(a.cs) || !fits16(b.cs)) {
    return fail(ctx, Status::gen_cannot_map, "AR shape or c stride beyond 16 bits", shape.w);
  }
  const uint8_t reads[2] = {a.konst ? kNoBuf : a.buf, unary || b.konst ? kNoBuf : b.buf};
  uint8_t* p = nullptr;
  TILEFW_TRY(append_tiu(ctx, CmdClass::AR, eu, reads, 2, res.buf, p));
  cmd::TiuLongRef r(p);
  r.set_tsk_opd_num(unary ? 1 : 2);
  set_res0(r, res, shape);
  set_opd0(r, a);
  r.set_opd0_n(shape.n);
  r.set_opd0_c(shape.c);
  r.set_opd0_h(shape.h);
  r.set_opd0_w(shape.w);
  if (!unary) {
    set_opd1(r, b);
    r.set_opd1_n(shape.n);
    r.set_opd1_c(shape.c);
    r.set_opd1_h(shape.h);
    r.set_opd1_w(shape.w);
  }
  return Status::ok;
}

Status mm2(Ctx& ctx, bool nt, uint32_t M, uint32_t N, uint32_t K, const Opd& res, const Opd& left, const Opd& right,
           bool accumulate) noexcept {
  if (!fits16(M) || !fits16(N) || !fits16(K)) return fail(ctx, Status::gen_cannot_map, "MM2 size beyond 16 bits", K);
  const uint8_t reads[3] = {left.buf, right.buf, accumulate ? res.buf : kNoBuf};
  uint8_t* p = nullptr;
  TILEFW_TRY(append_tiu(ctx, CmdClass::MM2, nt ? 5 : 4, reads, 3, res.buf, p));
  cmd::TiuLongRef r(p);
  r.set_tsk_opd_num(2);
  r.set_opt_res_add(accumulate ? 1 : 0);
  r.set_res0_addr(res.addr);
  r.set_opd0_addr(left.addr);
  r.set_opd1_addr(right.addr);
  r.set_opt_res0_prec(prec_code(res.dt));
  r.set_opt_opd0_prec(prec_code(left.dt));
  r.set_opt_opd1_prec(prec_code(right.dt));
  r.set_opt_opd2_prec(2);
  r.set_opt_res0_sign(1);
  r.set_opt_opd0_sign(1);
  r.set_opt_opd1_sign(1);
  r.set_opt_opd2_const(1);  // bias: the constant 0 (biases are added by AR)
  r.set_opd2_addr(0);
  r.set_res0_n(1);
  r.set_res0_c(M);
  r.set_res0_h(1);
  r.set_res0_w(N);
  r.set_opd0_n(1);
  r.set_opd0_c(M);
  r.set_opd0_h(1);
  r.set_opd0_w(K);
  r.set_opd1_n(1);
  r.set_opd1_h(1);
  // nn: right is K x N (K = opd1_c); nt: right is stored N x K (K = opd1_w).
  r.set_opd1_c(nt ? N : K);
  r.set_opd1_w(nt ? K : N);
  return Status::ok;
}

Status sfu(Ctx& ctx, uint32_t eu, const Shape4& shape, const Opd& res, const Opd& a, const Opd& table,
           uint32_t table_len) noexcept {
  if (!shape_fits(shape)) return fail(ctx, Status::gen_cannot_map, "SFU shape beyond 16 bits", shape.w);
  const uint8_t reads[2] = {a.buf, eu == 13 ? table.buf : kNoBuf};
  uint8_t* p = nullptr;
  TILEFW_TRY(append_tiu(ctx, CmdClass::SFU, eu, reads, 2, res.buf, p));
  cmd::TiuLongRef r(p);
  r.set_tsk_opd_num(eu == 13 ? 2 : 1);
  set_res0(r, res, shape);
  set_opd0(r, a);
  r.set_opd0_n(shape.n);
  r.set_opd0_c(shape.c);
  r.set_opd0_h(shape.h);
  r.set_opd0_w(shape.w);
  if (eu == 13) {
    r.set_opd1_addr(table.addr);
    r.set_opt_opd1_prec(prec_code(a.dt));
    r.set_opd1_n(table_len);
  }
  return Status::ok;
}

// ---- GDMA ---------------------------------------------------------------------------------------
namespace {
Status append_dma(Ctx& ctx, const Shape4& shape, DType dt, const Side* src, const Side& dst, uint8_t*& out) noexcept {
  if (!shape_fits(shape)) return fail(ctx, Status::gen_cannot_map, "DMA shape beyond 16 bits", shape.w);
  uint32_t dep = 0;
  if (src != nullptr && src->buf != kNoBuf) dep = max_u32(dep, ctx.deps.tiu_write[src->buf]);
  if (dst.buf != kNoBuf) dep = max_u32(dep, ctx.deps.tiu_access[dst.buf]);
  Result<uint8_t*> r = ctx.gdma.append(CmdClass::dma_tensor, 0);
  if (!r.ok()) return fail(ctx, r.status(), "gdma stream", ctx.gdma.count());
  out = r.value();
  const uint32_t id = ctx.gdma.count();
  if (src != nullptr && src->buf != kNoBuf) ctx.deps.dma_access[src->buf] = id;
  if (dst.buf != kNoBuf) ctx.deps.dma_write[dst.buf] = ctx.deps.dma_access[dst.buf] = id;
  cmd::DmaTensorRef d(out);
  d.set_cmd_id_dep(enc_dep(dep));
  d.set_stride_enable(1);
  d.set_nchw_copy(1);
  d.set_src_data_format(prec_code(dt));
  d.set_src_nsize(shape.n);
  d.set_src_csize(shape.c);
  d.set_src_hsize(shape.h);
  d.set_src_wsize(shape.w);
  d.set_dst_nsize(shape.n);
  d.set_dst_csize(shape.c);
  d.set_dst_hsize(shape.h);
  d.set_dst_wsize(shape.w);
  d.set_dst_nstride(dst.ns);
  d.set_dst_cstride(dst.cs);
  d.set_dst_hstride(dst.hs);
  d.set_dst_wstride(dst.ws);
  d.set_dst_start_addr_l32(dst.addr & 0xFFFFFFFFu);
  d.set_dst_start_addr_h13(dst.addr >> 32);
  d.set_localmem_mask_l32(0xFFFFFFFFu);
  d.set_localmem_mask_h32(0xFFFFFFFFu);
  return Status::ok;
}

void set_source(cmd::DmaTensorRef& d, const Side& src) noexcept {
  d.set_src_nstride(src.ns);
  d.set_src_cstride(src.cs);
  d.set_src_hstride(src.hs);
  d.set_src_wstride(src.ws);
  d.set_src_start_addr_l32(src.addr & 0xFFFFFFFFu);
  d.set_src_start_addr_h13(src.addr >> 32);
}
}  // namespace

Status dma(Ctx& ctx, const Shape4& shape, DType dt, const Side& src, const Side& dst) noexcept {
  uint8_t* p = nullptr;
  TILEFW_TRY(append_dma(ctx, shape, dt, &src, dst, p));
  cmd::DmaTensorRef d(p);
  set_source(d, src);
  return Status::ok;
}

Status dma_reshape(Ctx& ctx, DType dt, const Shape4& src_shape, const Side& src, const Shape4& dst_shape,
                   const Side& dst) noexcept {
  const uint64_t n = uint64_t{src_shape.n} * src_shape.c * src_shape.h * src_shape.w;
  if (n != uint64_t{dst_shape.n} * dst_shape.c * dst_shape.h * dst_shape.w) {
    return fail(ctx, Status::gen_plan_mismatch, "reshaping DMA: element counts differ", n);
  }
  if (!shape_fits(dst_shape)) return fail(ctx, Status::gen_cannot_map, "DMA shape beyond 16 bits", dst_shape.w);
  uint8_t* p = nullptr;
  TILEFW_TRY(append_dma(ctx, src_shape, dt, &src, dst, p));
  cmd::DmaTensorRef d(p);
  set_source(d, src);
  d.set_nchw_copy(0);
  d.set_dst_nsize(dst_shape.n);
  d.set_dst_csize(dst_shape.c);
  d.set_dst_hsize(dst_shape.h);
  d.set_dst_wsize(dst_shape.w);
  return Status::ok;
}

Status dma_fill(Ctx& ctx, const Shape4& shape, DType dt, uint32_t bits, const Side& dst) noexcept {
  uint8_t* p = nullptr;
  TILEFW_TRY(append_dma(ctx, shape, dt, nullptr, dst, p));
  cmd::DmaTensorRef d(p);
  d.set_fill_constant_en(1);
  d.set_constant_value(bits);
  return Status::ok;
}

Status dma_index(Ctx& ctx, bool scatter, DType dt, uint32_t src_rows, uint32_t dst_rows, uint32_t cols,
                 uint64_t src, uint64_t dst, uint64_t index) noexcept {
  if (!fits16(cols)) return fail(ctx, Status::gen_cannot_map, "gather/scatter row beyond 16 bits", cols);
  Result<uint8_t*> r = ctx.gdma.append(scatter ? CmdClass::dma_scatter : CmdClass::dma_gather, 0);
  if (!r.ok()) return fail(ctx, r.status(), "gdma stream", ctx.gdma.count());
  cmd::DmaGatherScatterRef d(r.value());
  d.set_src_data_format(prec_code(dt));
  d.set_src_csize(1);
  d.set_dst_csize(1);
  d.set_index_csize(1);
  d.set_src_hsize(src_rows);
  d.set_dst_hsize(dst_rows);
  d.set_index_hsize(scatter ? src_rows : dst_rows);
  d.set_src_wsize(cols);
  d.set_dst_wsize(cols);
  d.set_src_hstride(cols);
  d.set_dst_hstride(cols);
  d.set_src_cstride(uint64_t{src_rows} * cols);
  d.set_dst_cstride(uint64_t{dst_rows} * cols);
  d.set_index_cstride(scatter ? src_rows : dst_rows);
  d.set_start_pos(0);
  d.set_src_start_addr_l32(src & 0xFFFFFFFFu);
  d.set_src_start_addr_h13(src >> 32);
  d.set_dst_start_addr_l32(dst & 0xFFFFFFFFu);
  d.set_dst_start_addr_h13(dst >> 32);
  d.set_index_start_addr_l32(index & 0xFFFFFFFFu);
  d.set_index_start_addr_h13(index >> 32);
  d.set_localmem_mask_l32(0xFFFFFFFFu);
  d.set_localmem_mask_h32(0xFFFFFFFFu);
  return Status::ok;
}

Status dma_gather_rows(Ctx& ctx, DType dt, uint32_t table_rows, uint32_t cols, uint64_t table, uint64_t index,
                       uint32_t rows, const Side& dst) noexcept {
  if (!fits16(cols) || rows == 0 || rows > sg::kLanes) {
    return fail(ctx, Status::gen_cannot_map, "row gather into local memory: rows or columns", cols);
  }
  const uint32_t dep = dst.buf != kNoBuf ? ctx.deps.tiu_access[dst.buf] : 0;
  Result<uint8_t*> r = ctx.gdma.append(CmdClass::dma_gather, 0);
  if (!r.ok()) return fail(ctx, r.status(), "gdma stream", ctx.gdma.count());
  const uint32_t id = ctx.gdma.count();
  if (dst.buf != kNoBuf) ctx.deps.dma_write[dst.buf] = ctx.deps.dma_access[dst.buf] = id;
  cmd::DmaGatherScatterRef d(r.value());
  d.set_cmd_id_dep(enc_dep(dep));
  d.set_src_data_format(prec_code(dt));
  // One channel (lane) per row, each indexing the same table (src c stride 0) with its own
  // index (index c stride 1): lane t receives table row index[t].
  d.set_src_csize(rows);
  d.set_dst_csize(rows);
  d.set_index_csize(rows);
  d.set_src_hsize(table_rows);
  d.set_dst_hsize(1);
  d.set_index_hsize(1);
  d.set_src_wsize(cols);
  d.set_dst_wsize(cols);
  d.set_src_cstride(0);
  d.set_src_hstride(cols);
  d.set_dst_cstride(dst.cs);
  d.set_dst_hstride(dst.hs);
  d.set_index_cstride(1);
  d.set_start_pos(0);
  d.set_src_start_addr_l32(table & 0xFFFFFFFFu);
  d.set_src_start_addr_h13(table >> 32);
  d.set_dst_start_addr_l32(dst.addr & 0xFFFFFFFFu);
  d.set_dst_start_addr_h13(dst.addr >> 32);
  d.set_index_start_addr_l32(index & 0xFFFFFFFFu);
  d.set_index_start_addr_h13(index >> 32);
  d.set_localmem_mask_l32(0xFFFFFFFFu);
  d.set_localmem_mask_h32(0xFFFFFFFFu);
  return Status::ok;
}

// ---- sync ---------------------------------------------------------------------------------------
Status barrier(Ctx& ctx) noexcept {
  // tpu-mlir alternates two ids so a fast engine's next barrier cannot count into the
  // previous one before its waiters drained (the counter resets after cnt waiters).
  const uint32_t msg = 24 + (ctx.barriers++ & 1);
  const uint32_t cnt = 3 * ctx.sized->parallel.cores;
  Stream* engines[3] = {&ctx.tiu, &ctx.gdma, &ctx.sdma};
  const OpLabel caller = ctx.label;
  set_op(ctx, "barrier");
  for (Stream* s : engines) {
    if (s->send(msg, cnt) != Status::ok || s->wait(msg, cnt) != Status::ok) {
      return fail(ctx, Status::buffer_too_small, "barrier");
    }
  }
  ctx.label = caller;
  return Status::ok;
}

void phase_boundary(Ctx& ctx) noexcept {
  ctx.at = 2;
  // Phase 1 ended with every barrier drained: phase 2 starts the two message ids afresh.
  if (ctx.phase.phase != 0) ctx.barriers = 0;
  if (ctx.phase.phase == 1) {
    for (Stream* s : {&ctx.tiu, &ctx.gdma, &ctx.sdma}) s->mute(true);
  } else if (ctx.phase.phase == 2) {
    for (Stream* s : {&ctx.tiu, &ctx.gdma, &ctx.sdma}) s->mute(false);
    ctx.deps = Tracker{};
  }
}

void settle_tracker(Ctx& ctx) noexcept {
  Tracker& t = ctx.deps;
  const uint32_t tiu = ctx.tiu.count(), dma = ctx.gdma.count();
  for (uint32_t i = 0; i < kMaxBufs; ++i) {
    t.tiu_write[i] = t.tiu_access[i] = tiu;
    t.dma_write[i] = t.dma_access[i] = dma;
  }
}

uint32_t expert_rows(const Ctx& ctx, uint32_t e, uint32_t C) noexcept {
  if (ctx.phase.phase != 2 || ctx.phase.expert_tokens == nullptr) return C;
  const uint32_t n = ctx.phase.expert_tokens[e];
  return n < C ? n : C;
}

Status finish(Ctx& ctx) noexcept {
  for (Stream* s : {&ctx.tiu, &ctx.gdma, &ctx.sdma}) s->mute(false);  // every phase ends its streams
  set_op(ctx, "end");
  if (ctx.tiu.end() != Status::ok || ctx.gdma.end() != Status::ok || ctx.sdma.end() != Status::ok) {
    return fail(ctx, Status::buffer_too_small, "end command");
  }
  return Status::ok;
}

}  // namespace tilefw::gen::detail
