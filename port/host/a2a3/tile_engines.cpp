// Tile-move DMAs and the cube unit of the a2a3 simulator: decode, check with the engines' own
// rules (a2a3/tile_check.hpp, not the core's validator), execute, and tell the pipe tracker
// what each instruction read and wrote.
#include "a2a3/tile_engines.hpp"

#include "a2a3/chip_of.hpp"
#include "a2a3/tile_check.hpp"

#include <bit>
#include <cstring>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/a2a3.hpp"

namespace tilefw::port::host {

namespace {
namespace a2a3 = chip::a2a3;
using a2a3::Pipe;

constexpr uint32_t kFloatQNaN = 0x7FC00000u;

uint8_t* space_pointer(Machine& m, chip::MemSpace space) noexcept {
  const chip::MemoryRegion* r = chip::region_of(chip_of(m), space);
  if (r == nullptr) return nullptr;
  auto p = m.translate(r->device_base, r->size);
  return p.ok() ? *p : nullptr;
}

bool dtype_code_ok(uint32_t code) noexcept { return code <= static_cast<uint32_t>(DType::u32); }

desc::MoveOperand decode_operand(uint64_t offset, uint32_t space, uint32_t layout, uint32_t shape,
                                 uint32_t stride) noexcept {
  desc::MoveOperand o{};
  o.space = static_cast<chip::MemSpace>(space & 0xFFu);
  o.offset = offset;
  o.dtype = static_cast<DType>((layout >> 8) & 0xFFu);
  o.layout.col_major = (layout & 1u) != 0;
  o.layout.box = static_cast<desc::BoxOrder>((layout >> 1) & 0x3u);
  o.layout.box_rows = (layout >> 16) & 0xFFu;
  o.layout.box_cols = (layout >> 24) & 0xFFu;
  o.rows = shape & 0xFFFFu;
  o.cols = shape >> 16;
  o.stride = stride;
  return o;
}

// The byte runs of an operand a move touches: one run per row (row-major) or column
// (col-major) when unboxed, the whole capacity when boxed.
template <class F>
void for_each_run(const desc::MoveOperand& o, uint32_t rows, uint32_t cols, F f) {
  const uint64_t e = dtype_size(o.dtype);
  if (o.layout.box != desc::BoxOrder::none) {
    f(o.offset, uint64_t{o.rows} * o.cols * e);
    return;
  }
  const uint32_t lines = o.layout.col_major ? cols : rows;
  const uint32_t len = o.layout.col_major ? rows : cols;
  for (uint32_t i = 0; i < lines; ++i) f(o.offset + uint64_t{i} * o.stride * e, uint64_t{len} * e);
}

uint32_t load32(const uint8_t* p) noexcept {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// FIX conversion of one 32-bit source element into `out` (dst element bytes).
void convert_element(uint32_t bits, DType to, uint8_t* out) noexcept {
  const bool nan = (bits & 0x7FFFFFFFu) > 0x7F800000u;
  if (to == DType::f16) {
    const uint16_t h = nan ? uint16_t{0x7E00} : float_bits_to_half_bits(bits);
    std::memcpy(out, &h, 2);
  } else if (to == DType::bf16) {
    const uint16_t b = nan ? uint16_t{0x7FC0} : float_bits_to_bf16_bits(bits);
    std::memcpy(out, &b, 2);
  } else {
    std::memcpy(out, &bits, 4);
  }
}

}  // namespace

// ---- move engine ----------------------------------------------------------------------------

A2a3MoveEngine::A2a3MoveEngine(Machine& machine, Pipe pipe, PipeTracker* pipes)
    : machine_(machine), pipe_(pipe), base_(a2a3::move_window(pipe)->base), pipes_(pipes) {
  machine_.on_write(base_ + a2a3::dreg::kDoorbell, [this](uint64_t, uint64_t v) {
    if ((v & 1u) != 0) on_doorbell();
  });
}

void A2a3MoveEngine::on_doorbell() noexcept {
  Machine& m = machine_;
  namespace dreg = a2a3::dreg;
  ++moves_;
  m.write32(base_ + dreg::kIssueCount, static_cast<uint32_t>(moves_));
  if (pipes_ != nullptr) pipes_->begin(pipe_);
  const uint32_t spaces = m.read32(base_ + dreg::kSpaces);
  const uint32_t src_layout = m.read32(base_ + dreg::kSrcLayout);
  const uint32_t dst_layout = m.read32(base_ + dreg::kDstLayout);
  desc::MoveDesc d{};
  d.pipe = pipe_;
  d.src = decode_operand(m.read64(base_ + dreg::kSrcAddr), spaces, src_layout, m.read32(base_ + dreg::kSrcShape),
                         m.read32(base_ + dreg::kSrcStride));
  d.dst = decode_operand(m.read64(base_ + dreg::kDstAddr), spaces >> 8, dst_layout,
                         m.read32(base_ + dreg::kDstShape), m.read32(base_ + dreg::kDstStride));
  const uint32_t extent = m.read32(base_ + dreg::kExtent);
  d.rows = extent & 0xFFFFu;
  d.cols = extent >> 16;
  if (timer_ != nullptr) {
    // One DMA move: rows bursts, each rounded up to whole 32 B blocks.
    const uint64_t row_bytes = uint64_t{d.cols} * (dtype_code_ok((src_layout >> 8) & 0xFFu) ? dtype_size(static_cast<DType>((src_layout >> 8) & 0xFFu)) : 1u);
    timer_->move(static_cast<unsigned>(pipe_), uint64_t{d.rows} * ((row_bytes + 31) / 32), a2a3::pipe_name(pipe_));
  }
  desc::DescReport r{};
  if (!dtype_code_ok((src_layout >> 8) & 0xFFu) || !dtype_code_ok((dst_layout >> 8) & 0xFFu)) {
    r.status = Status::desc_unsupported_dtype;
    r.field = dtype_code_ok((src_layout >> 8) & 0xFFu) ? "dst.dtype" : "src.dtype";
  } else {
    r = tile_check::check_move(d, chip_of(m));
  }
  uint8_t* src = r.ok() ? space_pointer(m, d.src.space) : nullptr;
  uint8_t* dst = r.ok() ? space_pointer(m, d.dst.space) : nullptr;
  if (r.ok() && (src == nullptr || dst == nullptr)) {
    r.status = Status::unmapped_address;
    r.field = src == nullptr ? "src.space" : "dst.space";
  }
  report_ = r;
  status_ = r.status;
  m.write32(base_ + dreg::kStatus, static_cast<uint32_t>(r.status));
  if (!r.ok()) return;

  if (pipes_ != nullptr) {
    for_each_run(d.src, d.rows, d.cols, [&](uint64_t off, uint64_t n) { pipes_->read(pipe_, d.src.space, off, n); });
  }
  const uint32_t es = dtype_size(d.src.dtype);
  const uint32_t ed = dtype_size(d.dst.dtype);
  const bool plain_rows = d.src.layout.box == desc::BoxOrder::none && d.dst.layout.box == desc::BoxOrder::none &&
                          !d.src.layout.col_major && !d.dst.layout.col_major && d.src.dtype == d.dst.dtype;
  if (plain_rows) {  // the common TLOAD/TSTORE of row-major data: a memcpy per row
    for (uint32_t row = 0; row < d.rows; ++row) {
      std::memcpy(dst + d.dst.offset + uint64_t{row} * d.dst.stride * ed,
                  src + d.src.offset + uint64_t{row} * d.src.stride * es, uint64_t{d.cols} * es);
    }
  } else {
    // Sources and destinations are in different spaces (validated): no ordering concerns.
    for (uint32_t row = 0; row < d.rows; ++row) {
      for (uint32_t col = 0; col < d.cols; ++col) {
        const uint8_t* from = src + d.src.offset + desc::element_index(d.src, row, col) * es;
        uint8_t* to = dst + d.dst.offset + desc::element_index(d.dst, row, col) * ed;
        if (d.src.dtype == d.dst.dtype) std::memcpy(to, from, es);
        else convert_element(load32(from), d.dst.dtype, to);
      }
    }
  }
  if (pipes_ != nullptr) {
    for_each_run(d.dst, d.rows, d.cols, [&](uint64_t off, uint64_t n) { pipes_->write(pipe_, d.dst.space, off, n); });
  }
}

// ---- cube -----------------------------------------------------------------------------------

A2a3Cube::A2a3Cube(Machine& machine, PipeTracker* pipes)
    : machine_(machine), base_(a2a3::kCubeRegisters.base), pipes_(pipes) {
  machine_.on_write(base_ + a2a3::creg::kDoorbell, [this](uint64_t, uint64_t v) {
    if ((v & 1u) != 0) on_doorbell();
  });
}

void A2a3Cube::on_doorbell() noexcept {
  Machine& m = machine_;
  namespace creg = a2a3::creg;
  ++matmuls_;
  m.write32(base_ + creg::kIssueCount, static_cast<uint32_t>(matmuls_));
  if (pipes_ != nullptr) pipes_->begin(Pipe::M);
  const uint32_t op = m.read32(base_ + creg::kOp);
  desc::MatmulDesc d{};
  d.kind = static_cast<desc::MatmulKind>(op & 0x3u);
  d.a_type = static_cast<DType>((op >> 8) & 0xFFu);
  d.b_type = d.a_type;
  d.c_type = static_cast<DType>((op >> 16) & 0xFFu);
  d.a_offset = m.read32(base_ + creg::kAAddr);
  d.b_offset = m.read32(base_ + creg::kBAddr);
  d.c_offset = m.read32(base_ + creg::kCAddr);
  d.bias_offset = m.read32(base_ + creg::kBiasAddr);
  const uint32_t as = m.read32(base_ + creg::kAShape);
  const uint32_t bs = m.read32(base_ + creg::kBShape);
  const uint32_t cs = m.read32(base_ + creg::kCShape);
  d.a_rows = as & 0xFFFFu;
  d.a_cols = as >> 16;
  d.b_rows = bs & 0xFFFFu;
  d.b_cols = bs >> 16;
  d.c_rows = cs & 0xFFFFu;
  d.c_cols = cs >> 16;
  d.m = m.read32(base_ + creg::kM);
  d.k = m.read32(base_ + creg::kK);
  d.n = m.read32(base_ + creg::kN);
  if (timer_ != nullptr) timer_->matmul(d.m, d.k, d.n);
  desc::DescReport r = tile_check::check_matmul(d, chip_of(m));  // an unknown type code fails the type-triple rule
  uint8_t* l0a = space_pointer(m, chip::MemSpace::L0A);
  uint8_t* l0b = space_pointer(m, chip::MemSpace::L0B);
  uint8_t* l0c = space_pointer(m, chip::MemSpace::L0C);
  uint8_t* bias = space_pointer(m, chip::MemSpace::BiasTable);
  if (r.ok() && (l0a == nullptr || l0b == nullptr || l0c == nullptr || bias == nullptr)) {
    r.status = Status::unmapped_address;
    r.field = "space";
  }
  report_ = r;
  status_ = r.status;
  m.write32(base_ + creg::kStatus, static_cast<uint32_t>(r.status));
  if (!r.ok()) return;

  const uint32_t ea = dtype_size(d.a_type);
  const uint32_t ec = dtype_size(d.c_type);
  // A as the profile's cube reads L0A: Zz on a2a3, Nz on A5 (docs/a5-profile.md section 6).
  desc::MoveOperand a{chip::MemSpace::L0A, d.a_offset, d.a_type, desc::left_layout(chip_of(m), ea), d.a_rows, d.a_cols, 0};
  desc::MoveOperand b{chip::MemSpace::L0B, d.b_offset, d.b_type, desc::zn_layout(ea), d.b_rows, d.b_cols, 0};
  desc::MoveOperand c{chip::MemSpace::L0C, d.c_offset, d.c_type, desc::nz_acc_layout(), d.c_rows, d.c_cols, 0};
  const uint64_t c_bytes = uint64_t{d.c_rows} * d.c_cols * ec;
  if (pipes_ != nullptr) {
    pipes_->read(Pipe::M, chip::MemSpace::L0A, d.a_offset, uint64_t{d.a_rows} * d.a_cols * ea);
    pipes_->read(Pipe::M, chip::MemSpace::L0B, d.b_offset, uint64_t{d.b_rows} * d.b_cols * ea);
    if (d.kind == desc::MatmulKind::accumulate) pipes_->read(Pipe::M, chip::MemSpace::L0C, d.c_offset, c_bytes);
    if (d.kind == desc::MatmulKind::bias) pipes_->read(Pipe::M, chip::MemSpace::BiasTable, d.bias_offset, uint64_t{d.n} * ec);
  }
  auto at = [](uint8_t* base, const desc::MoveOperand& o, uint32_t i, uint32_t j) {
    return base + o.offset + desc::element_index(o, i, j) * dtype_size(o.dtype);
  };
  auto as_float = [&](const uint8_t* p) -> float {
    switch (d.a_type) {
      case DType::f16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        return std::bit_cast<float>(half_bits_to_float_bits(h));
      }
      case DType::bf16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        return std::bit_cast<float>(bf16_bits_to_float_bits(h));
      }
      default: return std::bit_cast<float>(load32(p));
    }
  };
  for (uint32_t i = 0; i < d.m; ++i) {
    for (uint32_t j = 0; j < d.n; ++j) {
      uint8_t* out = at(l0c, c, i, j);
      if (d.c_type == DType::i32) {
        uint32_t acc = 0;
        if (d.kind == desc::MatmulKind::accumulate) acc = load32(out);
        if (d.kind == desc::MatmulKind::bias) acc = load32(bias + d.bias_offset + uint64_t{j} * 4);
        for (uint32_t kk = 0; kk < d.k; ++kk) {
          const auto x = static_cast<int8_t>(*at(l0a, a, i, kk));
          const auto y = static_cast<int8_t>(*at(l0b, b, kk, j));
          acc += static_cast<uint32_t>(static_cast<int32_t>(x) * static_cast<int32_t>(y));
        }
        std::memcpy(out, &acc, 4);
        continue;
      }
      float acc = 0.0f;
      if (d.kind == desc::MatmulKind::accumulate) acc = std::bit_cast<float>(load32(out));
      if (d.kind == desc::MatmulKind::bias) acc = std::bit_cast<float>(load32(bias + d.bias_offset + uint64_t{j} * 4));
      for (uint32_t kk = 0; kk < d.k; ++kk) {
        const float prod = as_float(at(l0a, a, i, kk)) * as_float(at(l0b, b, kk, j));
        acc = acc + prod;
      }
      const uint32_t bits = acc != acc ? kFloatQNaN : std::bit_cast<uint32_t>(acc);
      std::memcpy(out, &bits, 4);
    }
  }
  if (pipes_ != nullptr) pipes_->write(Pipe::M, chip::MemSpace::L0C, d.c_offset, c_bytes);
}

}  // namespace tilefw::port::host
