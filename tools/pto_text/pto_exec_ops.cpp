// The runner's instructions (see pto_exec_ops.hpp): each statement's operands placed
// (destination first), turned into the plan request, move or matmul descriptor the typed tile
// instruction of the same name would build, and issued.
#include <bit>
#include <cctype>
#include <cstdlib>
#include <string>

#include "pto_text/pto_exec_ops.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/desc/validate_matmul.hpp"
#include "tilefw/tile/instr.hpp"

namespace tilefw::tools::pto_text {

namespace {

const char* const kRoundModes[] = {"CAST_NONE", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR",
                                   "CAST_CEIL", "CAST_TRUNC", "CAST_ODD"};

plan::TileDesc desc_of(const Operand& o) {
  const TileShape& s = o.type.tile;
  return plan::TileDesc{tile::space_of(s.loc), static_cast<uint32_t>(o.offset), o.type.dtype, s.rows, s.cols,
                        s.v_row, s.v_col,
                        s.blayout == tile::BLayout::RowMajor ? plan::Layout::row_major : plan::Layout::col_major};
}

desc::MoveOperand move_of(const Operand& o) {
  const TileShape& s = o.type.tile;
  const int eb = static_cast<int>(dtype_size(o.type.dtype));
  desc::MoveOperand m{};
  m.space = tile::space_of(s.loc);
  m.offset = o.offset;
  m.dtype = o.type.dtype;
  const desc::BoxOrder box = s.slayout == tile::SLayout::NoneBox    ? desc::BoxOrder::none
                             : s.slayout == tile::SLayout::RowMajor ? desc::BoxOrder::row_major
                                                                     : desc::BoxOrder::col_major;
  m.layout = desc::OperandLayout{s.blayout == tile::BLayout::ColMajor, box,
                                 static_cast<uint32_t>(tile::detail::inner_rows(s.slayout, static_cast<int>(s.fractal), eb)),
                                 static_cast<uint32_t>(tile::detail::inner_cols(s.slayout, static_cast<int>(s.fractal), eb))};
  m.rows = s.rows;
  m.cols = s.cols;
  m.stride = s.blayout == tile::BLayout::RowMajor ? s.cols : s.rows;
  return m;
}

::pto::detail::Access access_of(const Operand& o, bool write) {
  return ::pto::detail::Access{tile::space_of(o.type.tile.loc), o.offset, tile_bytes(o.type), write};
}

bool tile_op_of(const std::string& upper, plan::TileOp& out) {
  // Every TileOp through the last one (TSEL today): the names run out ("?") past it, so an
  // appended TileOp needs no new bound here.
  for (int i = 0; i < 256 && plan::tile_op_name(static_cast<plan::TileOp>(i))[0] != '?'; ++i) {
    if (upper == plan::tile_op_name(static_cast<plan::TileOp>(i))) {
      out = static_cast<plan::TileOp>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

uint32_t Runner::scalar_bits(const Stmt& s, int value, DType dt, bool negate) {
  const std::string& lit = constant_of(f_, value);
  const bool is_float = dt == DType::f32 || dt == DType::f16 || dt == DType::bf16;
  if (negate && dt != DType::f32 && dt != DType::f16) fail(2, s.pos, "pto." + s.op + " takes f16 or f32 tiles");
  if (is_float) {
    float v = std::strtof(lit.c_str(), nullptr);
    if (negate) v = -v;
    if (dt == DType::f32) return std::bit_cast<uint32_t>(v);
    return dt == DType::f16 ? to_half(v).bits : to_bf16(v).bits;
  }
  const long long v = std::strtoll(lit.c_str(), nullptr, 10);
  return dtype_size(dt) == 2 ? static_cast<uint16_t>(v) : static_cast<uint32_t>(v);
}

uint32_t Runner::minus_one_bits(const Stmt& s, DType dt) {
  if (dt == DType::f32) return std::bit_cast<uint32_t>(-1.0f);
  if (dt == DType::f16) return to_half(-1.0f).bits;
  fail(2, s.pos, "pto." + s.op + " takes f16 or f32 tiles");
}

void Runner::instruction(const Stmt& s, int index) {
  const OpInfo& info = *find_op(s.op);
  std::string upper;
  for (char c : s.op) upper.push_back(c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  instr_name_ = upper;  // outlives every use of the pointer below (failures are formatted at once)
  const char* instr = instr_name_.c_str();
  if (info.family == OpFamily::load || info.family == OpFamily::store || info.family == OpFamily::mov) {
    return move_op(s, info, instr);
  }
  if (info.family == OpFamily::matmul || info.family == OpFamily::matmul_acc || info.family == OpFamily::matmul_bias) {
    return matmul_op(s, info, instr);
  }
  const int dst_value = s.result >= 0 ? s.result : s.outs[0];
  if (s.result >= 0) tiles_[s.result] = TileState{};
  const Operand dst = tile_operand(dst_value, instr, s.pos);
  std::vector<Operand> ops;
  const bool has_scalar = info.family == OpFamily::scalar || info.family == OpFamily::expands ||
                          info.family == OpFamily::sels || info.family == OpFamily::cmps;
  for (size_t i = 0; i + (has_scalar ? 1 : 0) < s.ins.size(); ++i) ops.push_back(tile_operand(s.ins[i], instr, s.pos));
  if (s.form == Form::assembly && implicit_tmp(info.family)) {
    ops.push_back(operand_of(implicit_[index], implicit_tmp_type(s.op, ops.back().type), "tmp of " + upper + " at line " + std::to_string(s.pos.line),
                             instr, s.pos));
  }
  for (const Operand& o : ops) {
    if (o.type.tile.loc != tile::TileType::Vec || o.type.tile.slayout != tile::SLayout::NoneBox) {
      fail(2, s.pos, upper + " takes unboxed vec tiles: " + o.name + " is not one");
    }
  }
  if (dst.type.tile.loc != tile::TileType::Vec || dst.type.tile.slayout != tile::SLayout::NoneBox) {
    fail(2, s.pos, upper + " takes unboxed vec tiles: " + dst.name + " is not one");
  }
  vector_op(s, info, instr, ops, dst);
}

void Runner::vector_op(const Stmt& s, const OpInfo& info, const char* instr, std::vector<Operand>& ops,
                       const Operand& dst) {
  std::vector<::pto::detail::Access> acc{access_of(dst, true)};
  for (const Operand& o : ops) acc.push_back(access_of(o, false));
  const plan::TileDesc d = desc_of(dst);
  auto tile = [&](size_t i) { return i < ops.size() ? desc_of(ops[i]) : plan::TileDesc{}; };
  plan::TileOp op = plan::TileOp::TADD;
  const bool named = tile_op_of(instr, op);
  plan::Request q{};
  switch (info.family) {
    case OpFamily::binary: q = plan::Request::binary(op, d, tile(0), tile(1)); break;
    case OpFamily::rowexpand2: q = plan::Request::rowexpand_binary(op, d, tile(0), tile(1), tile(2)); break;
    case OpFamily::unary:
      // TNEG is TMULS by -1, as <pto/pto-inst.hpp> issues it (float tiles only).
      q = named ? plan::Request::unary(op, d, tile(0))
                : plan::Request::scalar(plan::TileOp::TMULS, d, tile(0), minus_one_bits(s, dst.type.dtype));
      break;
    case OpFamily::rowexpand: q = plan::Request::rowexpand(d, tile(0), tile(1)); break;
    case OpFamily::scalar: {
      const bool sub = s.op == "tsubs";
      q = plan::Request::scalar(sub ? plan::TileOp::TADDS : op, d, tile(0),
                                scalar_bits(s, s.ins.back(), dst.type.dtype, sub));
      break;
    }
    case OpFamily::expands: q = plan::Request::expands(d, scalar_bits(s, s.ins.back(), dst.type.dtype, false)); break;
    case OpFamily::reduce: q = plan::Request::reduce(op, d, tile(0), tile(1)); break;
    case OpFamily::gather:
      q = plan::Request::rowexpand_binary(op, d, tile(0), tile(1), tile(2));  // dst src0 src1 tmp
      break;
    case OpFamily::sels: {
      // selectMode is a uint8_t in PTO's signature: the constant's low 8 bits.
      const long long mode = std::strtoll(constant_of(f_, s.ins.back()).c_str(), nullptr, 0);
      q = plan::Request::sels(d, tile(0), tile(1), static_cast<uint8_t>(mode));
      break;
    }
    case OpFamily::fillpad:
      // PadValue is the destination type's `pad` (0 null, 1 zero, 2 max, 3 min); null is refused
      // by the planner, naming dst.pad.
      q = plan::Request::fillpad(d, tile(0), static_cast<plan::FillPad>(dst.type.tile.pad));
      break;
    case OpFamily::cmp:
    case OpFamily::cmps: {
      int mode = 0;
      const char* const modes[] = {"EQ", "NE", "LT", "GT", "GE", "LE"};
      for (int i = 0; i < 6; ++i) {
        if (s.cmp == modes[i]) mode = i;
      }
      const auto m = static_cast<desc::CmpMode>(mode);
      q = info.family == OpFamily::cmp
              ? plan::Request::cmp(d, tile(0), tile(1), m)
              : plan::Request::cmps(d, tile(0), scalar_bits(s, s.ins.back(), ops[0].type.dtype, false), m);
      break;
    }
    case OpFamily::sel: q = plan::Request::sel(d, tile(0), tile(1), tile(2)); break;
    case OpFamily::colsum: q = plan::Request::reduce(op, d, tile(0), ops.size() > 1 ? tile(1) : tile(0)); break;
    case OpFamily::cvt: {
      int mode = 1;
      for (int i = 0; i < 7; ++i) {
        if (s.round == kRoundModes[i]) mode = i;
      }
      q = plan::Request::cvt(d, tile(0), static_cast<desc::RoundMode>(mode));
      break;
    }
    default: fail(2, s.pos, std::string(instr) + " is not a vector instruction");
  }
  issue(s, instr, acc, [q](tile::Core& core, const tile::Event* waits) {
    return tile::detail::run_vector(core, q, waits, ::pto::kPipeSlots);
  });
}

void Runner::move_op(const Stmt& s, const OpInfo& info, const char* instr) {
  const int dst_value = s.result >= 0 ? s.result : s.outs[0];
  if (s.result >= 0) tiles_[s.result] = TileState{};
  desc::MoveDesc d{};
  std::vector<::pto::detail::Access> acc;
  if (info.family == OpFamily::load || info.family == OpFamily::mov) {
    const Operand t = tile_operand(dst_value, instr, s.pos);
    d.dst = move_of(t);
    d.rows = t.type.tile.v_row;
    d.cols = t.type.tile.v_col;
    acc.push_back(access_of(t, true));
    if (info.family == OpFamily::load) {
      const View& v = views_.at(s.ins[0]);
      if (t.type.tile.loc != tile::TileType::Vec && t.type.tile.loc != tile::TileType::Mat) {
        fail(2, s.pos, "TLOAD loads vec or mat tiles: " + t.name + " is not one");
      }
      if (v.rows != d.rows || v.cols != d.cols) fail(2, s.pos, "TLOAD: the view's shape differs from " + t.name + "'s valid region");
      d.pipe = chip::a2a3::Pipe::MTE2;
      d.src = desc::MoveOperand{chip::MemSpace::GM, v.offset, v.dtype, {}, v.rows, v.cols, v.stride};
      acc.push_back(::pto::detail::Access{chip::MemSpace::GM, v.offset,
                                          ((uint64_t{v.rows} - 1) * v.stride + v.cols) * dtype_size(v.dtype), false});
    } else {
      const Operand src = tile_operand(s.ins[0], instr, s.pos);
      const tile::TileType from = src.type.tile.loc, to = t.type.tile.loc;
      const bool mte1 = from == tile::TileType::Mat &&
                        (to == tile::TileType::Left || to == tile::TileType::Right || to == tile::TileType::Bias);
      const bool fix = from == tile::TileType::Acc && to == tile::TileType::Vec;
      if (!mte1 && !fix) fail(2, s.pos, "TMOV moves mat to left, right or bias, or acc to vec");
      if (src.type.tile.v_row != d.rows || src.type.tile.v_col != d.cols) fail(2, s.pos, "TMOV: the valid regions differ");
      d.pipe = fix ? chip::a2a3::Pipe::FIX : chip::a2a3::Pipe::MTE1;
      d.src = move_of(src);
      acc.push_back(access_of(src, false));
    }
  } else {  // store
    const Operand t = tile_operand(s.ins[0], instr, s.pos);
    const View& v = views_.at(s.outs[0]);
    if (t.type.tile.loc != tile::TileType::Vec && t.type.tile.loc != tile::TileType::Acc) {
      fail(2, s.pos, "TSTORE stores vec or acc tiles: " + t.name + " is not one");
    }
    if (v.rows != t.type.tile.v_row || v.cols != t.type.tile.v_col) {
      fail(2, s.pos, "TSTORE: the view's shape differs from " + t.name + "'s valid region");
    }
    d.pipe = t.type.tile.loc == tile::TileType::Acc ? chip::a2a3::Pipe::FIX : chip::a2a3::Pipe::MTE3;
    d.src = move_of(t);
    d.dst = desc::MoveOperand{chip::MemSpace::GM, v.offset, v.dtype, {}, v.rows, v.cols, v.stride};
    d.rows = v.rows;
    d.cols = v.cols;
    acc.push_back(::pto::detail::Access{chip::MemSpace::GM, v.offset,
                                        ((uint64_t{v.rows} - 1) * v.stride + v.cols) * dtype_size(v.dtype), true});
    acc.push_back(access_of(t, false));
    gm_[v.ptr].stored = true;
  }
  issue(s, instr, acc, [d](tile::Core& core, const tile::Event* waits) {
    return tile::detail::run_move(core, d, waits, ::pto::kPipeSlots);
  });
}

void Runner::matmul_op(const Stmt& s, const OpInfo& info, const char* instr) {
  const bool acc_form = info.family == OpFamily::matmul_acc;
  const size_t first = acc_form ? 1 : 0;  // ins: [c_in,] a, b [, bias]
  if (s.result >= 0) tiles_[s.result] = acc_form ? tiles_[s.ins[0]] : TileState{};
  const int c_value = s.result >= 0 ? s.result : s.outs[0];
  if (acc_form && s.result < 0 && s.ins[0] != c_value) {
    fail(2, s.pos, "TMATMUL_ACC accumulates in place: its c_in must be its destination");
  }
  const Operand c = tile_operand(c_value, instr, s.pos);
  const Operand a = tile_operand(s.ins[first], instr, s.pos);
  const Operand b = tile_operand(s.ins[first + 1], instr, s.pos);
  const TileShape &cs = c.type.tile, &as = a.type.tile, &bs = b.type.tile;
  // The cube reads L0A in its profile's layout: boxes in row order on a2a3, column order on A5.
  const chip::Chip on = core_.context().tile.chip;
  const tile::BLayout left_order = chip::left_boxes_col_major(on) ? tile::BLayout::ColMajor : tile::BLayout::RowMajor;
  if (as.loc != tile::TileType::Left || as.blayout != left_order || as.slayout != tile::SLayout::RowMajor) {
    fail(2, s.pos, std::string("TMATMUL's a operand is a left tile (") +
                       (left_order == tile::BLayout::ColMajor ? "col_major" : "row_major") + ", slayout row_major on " +
                       chip::chip_name(on) + "): " + a.name + " is not");
  }
  if (bs.loc != tile::TileType::Right || bs.blayout != tile::BLayout::RowMajor || bs.slayout != tile::SLayout::ColMajor) {
    fail(2, s.pos, "TMATMUL's b operand is a right tile (row_major, slayout col_major): " + b.name + " is not");
  }
  if (cs.loc != tile::TileType::Acc || cs.blayout != tile::BLayout::ColMajor || cs.slayout != tile::SLayout::RowMajor ||
      cs.fractal != 1024) {
    fail(2, s.pos, "TMATMUL's result is an acc tile (col_major, slayout row_major, fractal 1024): " + c.name + " is not");
  }
  if (!desc::matmul_types_ok(c.type.dtype, a.type.dtype, b.type.dtype)) fail(2, s.pos, "TMATMUL's (c, a, b) element types are not a supported triple");
  if (bs.v_row != as.v_col || cs.v_row != as.v_row || cs.v_col != bs.v_col) fail(2, s.pos, "TMATMUL: the valid regions disagree");
  desc::MatmulDesc d{};
  d.kind = acc_form ? desc::MatmulKind::accumulate
                    : info.family == OpFamily::matmul_bias ? desc::MatmulKind::bias : desc::MatmulKind::matmul;
  d.a_type = a.type.dtype;
  d.b_type = b.type.dtype;
  d.c_type = c.type.dtype;
  d.a_offset = static_cast<uint32_t>(a.offset);
  d.b_offset = static_cast<uint32_t>(b.offset);
  d.c_offset = static_cast<uint32_t>(c.offset);
  d.a_rows = as.rows, d.a_cols = as.cols, d.b_rows = bs.rows, d.b_cols = bs.cols, d.c_rows = cs.rows, d.c_cols = cs.cols;
  d.m = as.v_row, d.k = as.v_col, d.n = bs.v_col;
  std::vector<::pto::detail::Access> acc{access_of(c, true), access_of(a, false), access_of(b, false)};
  if (d.kind == desc::MatmulKind::bias) {
    const Operand z = tile_operand(s.ins[2], instr, s.pos);
    if (z.type.tile.loc != tile::TileType::Bias || z.type.dtype != c.type.dtype || z.type.tile.v_col != bs.v_col) {
      fail(2, s.pos, "TMATMUL_BIAS's bias is a bias tile of the result's element type and n columns");
    }
    d.bias_offset = static_cast<uint32_t>(z.offset);
    acc.push_back(access_of(z, false));
  }
  issue(s, instr, acc, [d](tile::Core& core, const tile::Event* waits) {
    return tile::detail::run_matmul(core, d, waits, ::pto::kPipeSlots);
  });
}

}  // namespace tilefw::tools::pto_text
