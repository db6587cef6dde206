// Case runner for `tilefw conform` (docs/cli.md section 4, profile a2a3). The file is parsed
// completely (every defined key type-checked) before anything runs, so a malformed file is a
// file-level failure; keys the spec does not define are ignored at every level.
#include "conform/conform_case.hpp"

#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "a2a3/vector_unit.hpp"
#include "conform/conform_json.hpp"
#include "common/input_files.hpp"
#include "conform/conform_tile.hpp"
#include "machine.hpp"
#include "tilefw/base/dtype.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/issue/vector_issue.hpp"
#include "tilefw/plan/plan.hpp"
#include "tilefw/tile/run.hpp"

namespace tilefw::tools::conform {

namespace {

struct MemItem {
  chip::MemSpace space = chip::MemSpace::UB;
  std::string space_name;
  uint64_t offset = 0;
  DType dt = DType::f16;
  std::vector<Val> values;
};

// The space names are the same on both PTO profiles (only their sizes differ).
chip::MemSpace space_of(const std::string& s, const std::string& where) {
  for (const chip::MemoryRegion& r : chip::a2a3::kRegions) {
    if (s == r.name && (r.space == chip::MemSpace::GM || r.space == chip::MemSpace::UB || r.space == chip::MemSpace::L1 ||
                        r.space == chip::MemSpace::L0A || r.space == chip::MemSpace::L0B || r.space == chip::MemSpace::L0C)) {
      return r.space;
    }
  }
  bad(where + ": unknown space \"" + s + "\"");
}

// Elements all memory items of one case may give (memory and expect.memory together): a full
// 16 MiB GM of i8. Items are expanded to one value per element, so without this a
// 3 KB file of full-GM fills would hold gigabytes (hostile input: unbounded memory).
constexpr uint64_t kMaxCaseElements = uint64_t{1} << 24;

// The item's range [offset, offset + n * esize) inside its space on the case's profile `on`
// (overflow-safe: an offset near 2^64 is out of range, not wrapped), and `n` within the case's
// element budget.
void check_extent(const MemItem& m, uint64_t n, const std::string& where, uint64_t& budget, chip::Chip on) {
  const chip::MemoryRegion* r = chip::region_of(on, m.space);
  const uint64_t e = dtype_size(m.dt);
  if (m.offset > r->size || n > (r->size - m.offset) / e) bad(where + ": runs past the end of " + m.space_name);
  if (n > budget) bad(where + ": the case's memory items give more than " + std::to_string(kMaxCaseElements) + " elements");
  budget -= n;
}

MemItem mem_item(const json& j, const std::string& where, bool expect, uint64_t& budget, chip::Chip on) {
  if (!j.is_object()) bad(where + ": expected an object");
  MemItem m;
  m.space_name = str(req(j, "space", where), where + ".space");
  m.space = space_of(m.space_name, where + ".space");
  m.offset = uint_of(req(j, "offset", where), where + ".offset");
  m.dt = dtype_of_name(str(req(j, "dtype", where), where + ".dtype"), where + ".dtype");
  const json* values = opt(j, "values");
  const json* iota = opt(j, "iota");
  const json* fill = opt(j, "fill");
  if ((values != nullptr) + (iota != nullptr) + (fill != nullptr) != 1) bad(where + ": needs exactly one of values, iota, fill");
  if (values != nullptr) {
    if (!values->is_array()) bad(where + ".values: expected an array");
    check_extent(m, values->size(), where, budget, on);
    for (size_t i = 0; i < values->size(); ++i) {
      m.values.push_back(value_of((*values)[i], m.dt, where + ".values[" + std::to_string(i) + "]", expect));
    }
  } else if (iota != nullptr) {
    const std::string w = where + ".iota";
    if (!iota->is_object()) bad(w + ": expected an object");
    const json& st = req(*iota, "start", w);
    const json& sp = req(*iota, "step", w);
    if (!st.is_number() || !sp.is_number()) bad(w + ": start and step must be numbers");
    const uint64_t n = uint_of(req(*iota, "count", w), w + ".count");
    if (n > (1u << 26)) bad(w + ".count: too large");
    check_extent(m, n, where, budget, on);
    const double s0 = st.get<double>(), s1 = sp.get<double>();
    for (uint64_t i = 0; i < n; ++i) {
      Val v;
      v.raw = number_bits(s0 + static_cast<double>(i) * s1, m.dt, w);
      m.values.push_back(v);
    }
  } else {
    const std::string w = where + ".fill";
    if (!fill->is_object()) bad(w + ": expected an object");
    const Val v = value_of(req(*fill, "value", w), m.dt, w + ".value", expect);
    const uint64_t n = uint_of(req(*fill, "count", w), w + ".count");
    if (n > (1u << 26)) bad(w + ".count: too large");
    check_extent(m, n, where, budget, on);
    m.values.assign(n, v);
  }
  return m;
}

// ---- program ---------------------------------------------------------------------------------
struct Step {
  enum Kind { set_mask, set_mask_count, set_mask_norm, bin, un, sc, red, tile } kind = set_mask;
  uint64_t hi = 0, lo = 0;
  DType dt = DType::f16;
  desc::BinIntrinsicDesc b{};
  desc::UnaryDesc u{};
  desc::ScalarDesc s{};
  desc::ReduceDesc r{};
  uint32_t repeat = 0;
  bool has_repeat = false;
  TileItem tile_item{};
  std::string where;  // "program[i]", for messages
};

desc::Operand operand(const json& o, const char* key, uint32_t& blk, uint32_t& rep, uint32_t def_rep,
                      bool has_blk, const std::string& where) {
  const std::string w = where + "." + key;
  const json& j = req(o, key, where);
  if (!j.is_object()) bad(w + ": expected an object");
  desc::Operand op{};
  op.offset = u32(j, "offset", 0, w);
  if (const json* sp = opt(j, "space")) op.space = space_of(str(*sp, w + ".space"), w + ".space");
  if (has_blk) blk = u32(j, "blk", 1, w);
  rep = u32(j, "rep", def_rep, w);
  return op;
}

template <class E>
bool find_op(const std::string& name, E& out, int n) {
  for (int i = 0; i < n; ++i) {
    if (name == desc::op_name(static_cast<E>(i))) {
      out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

Step issue_step(const json& j, const std::string& where) {
  if (!j.is_object()) bad(where + ": expected an object");
  Step st;
  const std::string op = str(req(j, "op", where), where + ".op");
  st.dt = dtype_of_name(str(req(j, "dtype", where), where + ".dtype"), where + ".dtype");
  if (const json* rp = opt(j, "repeat")) {
    const uint64_t v = uint_of(*rp, where + ".repeat");
    if (v > 0xFFFFFFFFu) bad(where + ".repeat: out of range");
    st.repeat = static_cast<uint32_t>(v);
    st.has_repeat = true;
  }
  desc::BinaryOp bo{};
  desc::UnaryOp uo{};
  desc::ScalarOp so{};
  desc::ReduceOp ro{};
  if (find_op(op, bo, 6)) {
    st.kind = Step::bin;
    st.b.op = bo;
    st.b.dst = operand(j, "dst", st.b.dst_block_stride, st.b.dst_repeat_stride, 8, true, where);
    st.b.src0 = operand(j, "src0", st.b.src0_block_stride, st.b.src0_repeat_stride, 8, true, where);
    st.b.src1 = operand(j, "src1", st.b.src1_block_stride, st.b.src1_repeat_stride, 8, true, where);
  } else if (find_op(op, uo, 7)) {
    st.kind = Step::un;
    st.u.op = uo;
    st.u.dst = operand(j, "dst", st.u.dst_block_stride, st.u.dst_repeat_stride, 8, true, where);
    st.u.src = operand(j, "src", st.u.src_block_stride, st.u.src_repeat_stride, 8, true, where);
  } else if (find_op(op, so, 4)) {
    st.kind = Step::sc;
    st.s.op = so;
    st.s.dst = operand(j, "dst", st.s.dst_block_stride, st.s.dst_repeat_stride, 8, true, where);
    st.s.src = operand(j, "src", st.s.src_block_stride, st.s.src_repeat_stride, 8, true, where);
    const Val v = value_of(req(j, "scalar", where), st.dt, where + ".scalar", false);
    st.s.scalar_bits = v.raw;
  } else if (find_op(op, ro, 5)) {
    st.kind = Step::red;
    st.r.op = ro;
    uint32_t unused = 0;
    st.r.dst = operand(j, "dst", unused, st.r.dst_repeat_stride, 1, false, where);
    st.r.src = operand(j, "src", st.r.src_block_stride, st.r.src_repeat_stride, 8, true, where);
    st.r.vcadd_mode = u32(j, "mode", 0, where);
    if (const json* f = opt(j, "fold")) {  // A5's register row reduction
      if (!f->is_boolean()) bad(where + ".fold: expected true or false");
      st.r.fold = f->get<bool>();
    }
    if (const json* o = opt(j, "order")) {
      const std::string on = str(*o, where + ".order");
      bool found = false;
      for (int i = 0; i < 4; ++i) {
        if (on == desc::order_name(static_cast<desc::ReduceOrder>(i))) {
          st.r.order = static_cast<desc::ReduceOrder>(i);
          found = true;
        }
      }
      if (!found) bad(where + ".order: unknown order \"" + on + "\"");
    }
  } else {
    bad(where + ".op: unknown op \"" + op + "\"");
  }
  return st;
}

struct Case {
  std::string name;
  chip::Chip chip = chip::Chip::a2a3;  // "profile"
  bool saturate = false;
  std::vector<MemItem> memory;
  std::vector<Step> program;
  std::string expect_status = "ok";
  std::vector<MemItem> expect_memory;
};

// `force`: the profile the case runs on whatever its "profile" says (--chip), or nullptr.
Case parse(const json& c, const std::string& path, const chip::Chip* force) {
  if (!c.is_object()) bad("the case must be a JSON object");
  Case k;
  uint64_t budget = kMaxCaseElements;
  k.name = path;
  if (const json* n = opt(c, "name")) k.name = str(*n, "name");
  if (const json* p = opt(c, "profile")) {
    const std::string prof = str(*p, "profile");
    if (prof != "a2a3" && prof != "a5") bad("profile: expected \"a2a3\" or \"a5\"");
    k.chip = prof == "a5" ? chip::Chip::a5 : chip::Chip::a2a3;
  }
  if (force != nullptr) k.chip = *force;  // memory items are checked against the run's sizes
  if (const json* ctrl = opt(c, "ctrl")) {
    if (!ctrl->is_object()) bad("ctrl: expected an object");
    if (const json* o = opt(*ctrl, "overflow")) {
      const std::string m = str(*o, "ctrl.overflow");
      if (m == "saturate") k.saturate = true;
      else if (m != "infnan") bad("ctrl.overflow: expected \"infnan\" or \"saturate\"");
    }
  }
  if (const json* mem = opt(c, "memory")) {
    if (!mem->is_array()) bad("memory: expected an array");
    for (size_t i = 0; i < mem->size(); ++i) {
      k.memory.push_back(mem_item((*mem)[i], "memory[" + std::to_string(i) + "]", false, budget, k.chip));
    }
  }
  // What makes a case: a program to run and an expectation to check it against (an empty
  // object would otherwise pass having checked nothing).
  {
    const json* prog = &req(c, "program", "case");
    if (!prog->is_array() || prog->empty()) bad("program: expected a non-empty array");
    for (size_t i = 0; i < prog->size(); ++i) {
      const json& it = (*prog)[i];
      const std::string w = "program[" + std::to_string(i) + "]";
      if (!it.is_object()) bad(w + ": expected an object");
      Step st;
      if (const json* sm = opt(it, "set_mask")) {
        if (!sm->is_object()) bad(w + ".set_mask: expected an object");
        st.kind = Step::set_mask;
        st.hi = uint_of(req(*sm, "hi", w + ".set_mask"), w + ".set_mask.hi", true);
        st.lo = uint_of(req(*sm, "lo", w + ".set_mask"), w + ".set_mask.lo", true);
      } else if (const json* mc = opt(it, "set_mask_count")) {
        st.kind = Step::set_mask_count;
        st.lo = uint_of(*mc, w + ".set_mask_count");
        if (st.lo > 0xFFFFFFFFu) bad(w + ".set_mask_count: must be <= 2^32-1");
      } else if (const json* mn = opt(it, "set_mask_norm")) {
        // The spec defines only `true`; false would read as "leave counter mode" anyway.
        if (!mn->is_boolean() || !mn->get<bool>()) bad(w + ".set_mask_norm: expected true");
        st.kind = Step::set_mask_norm;
      } else if (const json* is = opt(it, "issue")) {
        st = issue_step(*is, w + ".issue");
      } else if (const json* t = opt(it, "tile")) {
        st.kind = Step::tile;
        st.tile_item = parse_tile_item(*t, w + ".tile");
      } else {
        bad(w + ": no program item (set_mask, set_mask_count, set_mask_norm, issue, tile)");
      }
      st.where = w;
      k.program.push_back(st);
    }
  }
  {
    const json* e = &req(c, "expect", "case");
    if (!e->is_object()) bad("expect: expected an object");
    if (opt(*e, "status") == nullptr && opt(*e, "memory") == nullptr) bad("expect: needs \"status\" or \"memory\"");
    if (const json* s = opt(*e, "status")) {
      k.expect_status = str(*s, "expect.status");
      static const char* const kNames[] = {"ok", "misaligned", "out_of_bounds", "invalid_descriptor", "illegal_overlap"};
      bool known = false;
      for (const char* n : kNames) known = known || k.expect_status == n;
      if (!known) bad("expect.status: unknown status \"" + k.expect_status + "\"");
    }
    if (const json* mem = opt(*e, "memory")) {
      if (!mem->is_array()) bad("expect.memory: expected an array");
      for (size_t i = 0; i < mem->size(); ++i) {
        k.expect_memory.push_back(mem_item((*mem)[i], "expect.memory[" + std::to_string(i) + "]", true, budget, k.chip));
      }
    }
  }
  return k;
}

std::string hex(uint32_t v, DType t) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", static_cast<int>(dtype_size(t) * 2), v);
  return buf;
}

std::string show(uint32_t v, DType t) {
  char buf[48];
  switch (t) {
    case DType::f32: std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(std::bit_cast<float>(v))); break;
    case DType::f16: std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(to_float(half{static_cast<uint16_t>(v)}))); break;
    case DType::bf16: std::snprintf(buf, sizeof buf, "%.4g", static_cast<double>(to_float(bf16{static_cast<uint16_t>(v)}))); break;
    case DType::i8: std::snprintf(buf, sizeof buf, "%d", static_cast<int>(static_cast<int8_t>(v))); break;
    case DType::i16: std::snprintf(buf, sizeof buf, "%d", static_cast<int>(static_cast<int16_t>(v))); break;
    case DType::i32: std::snprintf(buf, sizeof buf, "%d", static_cast<int32_t>(v)); break;
    default: std::snprintf(buf, sizeof buf, "%u", v); break;
  }
  return hex(v, t) + " (" + buf + ")";
}

bool is_nan(uint32_t v, DType t) {
  switch (t) {
    case DType::f32: return (v & 0x7FFFFFFFu) > 0x7F800000u;
    case DType::f16: return (v & 0x7FFFu) > 0x7C00u;
    case DType::bf16: return (v & 0x7FFFu) > 0x7F80u;
    default: return false;
  }
}

// Runs the program's items in order on `vu`, stopping at the first whose status is not ok.
Status run_program(const Case& k, issue::VectorUnit& vu, port::host::timing::PipeTimer& timer, chip::Chip on) {
  Status status = Status::ok;
  plan::Plan scratch;  // tile items: the caller-owned plan tile::run fills
  for (const Step& st : k.program) {
    switch (st.kind) {
      case Step::set_mask: issue::set_mask(vu, st.hi, st.lo); break;
      case Step::set_mask_count: status = issue::set_mask_count(vu, st.lo); break;
      case Step::set_mask_norm: issue::set_mask_norm(vu); break;
      // The path the Tile<> types take: plan and validate the whole sequence, then replay it.
      case Step::tile:
        timer.set_label(st.tile_item.op);
        {
          plan::Request q = st.tile_item.request;
          q.chip = on;  // where a2a3 and A5 differ (the row reductions' checks), the run's chip
          status = tile::run(vu, q, scratch);
        }
        break;
      default: {
        timer.set_label("issue");
        // The item is issued under the live CTRL/MASK as they are (docs/cli.md section 4.2, the "issue" item):
        // issue_live takes the mode from CTRL[56] and the count from MASK[31:0] and never
        // rewrites MASK, so a sticky MASK survives counter-mode issues.
        const uint32_t rep = st.has_repeat ? st.repeat : (vu.counter_mode() ? 0u : 1u);
        if (st.kind == Step::bin) {
          desc::BinIntrinsicDesc d = st.b;
          d.repeat = rep;
          status = issue::issue_live(vu, d, st.dt);
        } else if (st.kind == Step::un) {
          desc::UnaryDesc d = st.u;
          d.repeat = rep;
          status = issue::issue_live(vu, d, st.dt);
        } else if (st.kind == Step::sc) {
          desc::ScalarDesc d = st.s;
          d.repeat = rep;
          status = issue::issue_live(vu, d, st.dt);
        } else {
          desc::ReduceDesc d = st.r;
          d.repeat = rep;
          status = issue::issue_live(vu, d, st.dt);
        }
      }
    }
    if (status != Status::ok) break;
  }
  return status;
}

std::string run(const Case& k, port::host::timing::PipeTimer& timer, chip::Chip on) {
  port::host::Machine m(on == chip::Chip::a5 ? port::host::kProfileA5 : port::host::kProfileA2a3);
  port::host::ScopedMachine scope(m);
  port::host::A2a3VectorUnit unit(m);
  unit.set_timer(&timer);
  issue::VectorUnit vu{};
  vu.chip = on;  // "issue" items are validated against the profile's UB
  issue::reset(vu, k.saturate ? issue::OverflowMode::saturate : issue::OverflowMode::infnan);
  auto host = [&](chip::MemSpace sp, uint64_t off, uint64_t bytes) {
    return *m.translate(chip::region_of(on, sp)->device_base + off, bytes);
  };
  for (const MemItem& it : k.memory) {
    const uint32_t e = dtype_size(it.dt);
    uint8_t* p = host(it.space, it.offset, it.values.size() * e + (it.values.empty() ? 1 : 0));
    for (size_t i = 0; i < it.values.size(); ++i) std::memcpy(p + i * e, &it.values[i].raw, e);  // little endian
  }
  // "keep": the bytes before the program ran.
  std::vector<std::vector<uint8_t>> before;
  for (const MemItem& it : k.expect_memory) {
    const size_t n = it.values.size() * dtype_size(it.dt);
    const uint8_t* p = host(it.space, it.offset, n == 0 ? 1 : n);
    before.emplace_back(p, p + n);
  }
  // A tile op this runner does not implement fails the case whatever runs before it.
  for (const Step& st : k.program) {
    if (st.kind == Step::tile && !st.tile_item.implemented) {
      return st.where + ".tile.op: \"" + st.tile_item.op + "\" is not implemented";
    }
  }
  const Status status = run_program(k, vu, timer, on);
  const std::string got = status_class_name(status_class(status));
  const std::string got_full = status == Status::ok ? got : got + " (" + status_name(status) + ")";
  if (got != k.expect_status) return "status: expected " + k.expect_status + ", got " + got_full;
  for (size_t i = 0; i < k.expect_memory.size(); ++i) {
    const MemItem& it = k.expect_memory[i];
    const uint32_t e = dtype_size(it.dt);
    const uint8_t* p = host(it.space, it.offset, it.values.size() * e + (it.values.empty() ? 1 : 0));
    for (size_t j = 0; j < it.values.size(); ++j) {
      uint32_t actual = 0;
      std::memcpy(&actual, p + j * e, e);
      const Val& v = it.values[j];
      uint32_t want = v.raw;
      if (v.kind == Val::keep) std::memcpy(&want, before[i].data() + j * e, e);
      const bool ok = v.kind == Val::any_nan ? is_nan(actual, it.dt) : actual == want;
      if (!ok) {
        return "memory " + it.space_name + "+" + std::to_string(it.offset + j * e) + " (" + dtype_name(it.dt) +
               " element " + std::to_string(j) + " of expect.memory[" + std::to_string(i) + "]): expected " +
               (v.kind == Val::any_nan ? std::string("nan") : show(want, it.dt)) + (v.kind == Val::keep ? " (keep)" : "") +
               ", got " + show(actual, it.dt);
      }
    }
  }
  return "";
}

}  // namespace

Outcome run_case_file(const std::string& path, port::host::timing::PipeTimer* trace, const chip::Chip* force) {
  Outcome o;
  o.name = path;
  std::vector<uint8_t> bytes;
  std::string error;
  if (!read_whole_file(path, kMaxCaseFileBytes, bytes, error)) {
    o.kind = Outcome::file_error;
    o.reason = error.substr(error.find(": ") == std::string::npos ? 0 : error.find(": ") + 2);
    return o;
  }
  Case k;
  try {
    const json j = json::parse(bytes.begin(), bytes.end());
    k = parse(j, path, force);
  } catch (const json::exception& e) {
    o.kind = Outcome::file_error;
    o.reason = std::string("invalid JSON: ") + e.what();
    return o;
  } catch (const std::exception& e) {
    o.kind = Outcome::file_error;
    o.reason = e.what();
    return o;
  }
  o.name = k.name;
  port::host::timing::PipeTimer own;
  port::host::timing::PipeTimer& timer = trace != nullptr ? *trace : own;
  o.reason = run(k, timer, k.chip);
  o.cycles = timer.total();
  for (unsigned p = 0; p < port::host::timing::kPipes; ++p) o.busy[p] = timer.busy(p);
  o.kind = o.reason.empty() ? Outcome::pass : Outcome::fail;
  return o;
}

}  // namespace tilefw::tools::conform
