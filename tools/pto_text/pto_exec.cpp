// The `.pto` runner (see pto_exec.hpp). Tiles are placed as the PTO context places them: an
// `alloc_tile addr = %c` or `pto.tassign` before the first use is a manual placement (checked
// against the space and against Auto tiles), anything else is Auto-placed at its first use,
// destination first. Every instruction waits for what Auto sync says it depends on, then runs
// through the tile runtime's non-template entry points (the ones the typed instructions call).
#include "pto_text/pto_exec.hpp"

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <map>

#include <pto/host.hpp>

#include "pto_text/pto_exec_ops.hpp"
#include "tilefw/desc/validate_matmul.hpp"
#include "tilefw/tile/instr.hpp"

namespace tilefw::tools::pto_text {

namespace {

std::string failure_text(const ::pto::Failure& f) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  if (mem == nullptr) return tilefw::status_name(f.status);
  ::pto::host::print_failure(mem, f);
  std::fclose(mem);
  std::string s(buf, len);
  std::free(buf);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace

uint64_t pointer_bytes(const Module& m, int arg) {
  uint64_t most = 0;
  for (const Stmt& s : m.func.body) {
    if (s.kind != StmtKind::make_tensor_view || s.ins[0] != arg) continue;
    const Type& t = s.out_types[0];
    // Any span above the GM window is refused later; cap it so that nothing wraps.
    constexpr uint64_t kCap = uint64_t{1} << 40;
    const uint64_t stride = std::strtoull(constant_of(m.func, s.ins[3]).c_str(), nullptr, 10);
    uint64_t span = 0;
    const bool over = stride > 0xFFFFFFFFu || __builtin_mul_overflow(uint64_t{t.rows} - 1, stride, &span) ||
                      __builtin_add_overflow(span, uint64_t{t.cols}, &span) ||
                      __builtin_mul_overflow(span, uint64_t{dtype_size(t.dtype)}, &span);
    const uint64_t capped = over || span > kCap ? kCap : span;
    if (capped > most) most = capped;
  }
  return most;
}

const std::string& constant_of(const Function& f, int value) {
  static const std::string kNone = "0";
  for (const Stmt& s : f.body) {
    if (s.kind == StmtKind::constant && s.result == value) return s.literal;
  }
  return kNone;
}

Runner::Runner(const Module& m, chip::Chip chip) : m_(m), f_(m.func), core_(chip) { core_.set_checked(true); }

void Runner::fail(int code, Pos p, const std::string& msg) const { throw RunError{code, p, msg}; }

void Runner::setup_pointers(const RunRequest& req) {
  const uintptr_t base = core_.context().gm_base;
  for (const auto& in : req.inputs) {
    bool known = false;
    for (int a : f_.args) known = known || f_.values[a].name == in.first;
    if (!known) fail(2, Pos{0, 0}, "--in " + in.first + ": the kernel has no pointer argument %" + in.first);
  }
  for (int a : f_.args) {
    const std::string& name = f_.values[a].name;
    const uint64_t bytes = pointer_bytes(m_, a);
    uint8_t* p = bytes != 0 ? core_.gm<uint8_t>(bytes) : nullptr;
    if (bytes != 0 && p == nullptr) {
      fail(2, Pos{0, 0}, "%" + name + ": its tensor view takes " + std::to_string(bytes) + " bytes, more than the GM window has left");
    }
    gm_[a] = Gm{p, p != nullptr ? static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p) - base) : 0, bytes, false};
    for (const auto& in : req.inputs) {
      if (in.first != name) continue;
      if (in.second.size() != bytes) {
        fail(2, Pos{0, 0}, "--in " + name + ": " + std::to_string(in.second.size()) + " bytes, the tensor view of %" + name +
                           " takes " + std::to_string(bytes));
      }
      for (uint64_t i = 0; i < bytes; ++i) p[i] = in.second[i];
    }
  }
}

void Runner::view(const Stmt& s) {
  const Type& t = s.out_types[0];
  View v;
  v.rows = t.rows;
  v.cols = t.cols;
  v.dtype = t.dtype;
  const uint64_t eb = dtype_size(t.dtype);
  if (s.kind == StmtKind::make_tensor_view) {
    const uint64_t stride = std::strtoull(constant_of(f_, s.ins[3]).c_str(), nullptr, 10);
    if (stride > 0xFFFFFFFFu) fail(2, s.pos, "make_tensor_view: the row stride is too large");
    v.ptr = s.ins[0];
    v.stride = static_cast<uint32_t>(stride);
    v.offset = gm_[v.ptr].offset;
  } else {
    const View& src = views_.at(s.ins[0]);
    v = View{src.ptr, src.offset, t.rows, t.cols, src.stride, t.dtype};
    const uint64_t r0 = std::strtoull(constant_of(f_, s.ins[1]).c_str(), nullptr, 10);
    const uint64_t c0 = std::strtoull(constant_of(f_, s.ins[2]).c_str(), nullptr, 10);
    v.offset += (r0 * src.stride + c0) * eb;  // r0 + rows <= the view's rows: inside its span
  }
  views_[s.result] = v;
}

void Runner::place_manual(int value, uint64_t addr, Pos pos) {
  TileState& st = tiles_[value];
  const Type& t = f_.values[value].type;
  const std::string name = "%" + f_.values[value].name;
  if (st.used) fail(2, pos, "tile " + name + " is placed after its first use");
  const chip::MemSpace space = tile::space_of(t.tile.loc);
  const uint64_t bytes = tile_bytes(t);
  const chip::Chip on = core_.context().tile.chip;
  const Status s = plan::check_placement(space, addr, bytes, on);
  if (s != Status::ok) {
    char where[64];
    std::snprintf(where, sizeof where, "%llu bytes at 0x%llx", static_cast<unsigned long long>(bytes),
                  static_cast<unsigned long long>(addr));
    fail(2, pos, "tile " + name + " (" + where + ") does not lie inside " + chip::mem_space_name(space) + " (" +
                     std::to_string(chip::region_size(on, space)) + " bytes, " + chip::chip_name(on) + "): " + status_name(s));
  }
  if (!::pto::detail::note_manual(core_.context(), space, addr, bytes)) {
    fail(2, pos, "tile " + name + " overlaps an Auto-placed tile: illegal_overlap");
  }
  st.placed = true;
  st.offset = addr;
}

Operand Runner::tile_operand(int value, const char* instr, Pos pos) {
  TileState& st = tiles_[value];
  return operand_of(st, f_.values[value].type, "%" + f_.values[value].name, instr, pos);
}

Operand Runner::operand_of(TileState& st, const Type& t, const std::string& name, const char* instr, Pos pos) {
  if (!st.placed) {
    const chip::MemSpace space = tile::space_of(t.tile.loc);
    ::pto::Context& c = core_.context();
    if (!::pto::detail::place_auto(c, instr, name.c_str(), space, tile_bytes(t), chip::region_alignment(c.tile.chip, space),
                                   st.offset)) {
      const std::string why = failure_text(c.failure);
      ::pto::clear_status();
      fail(2, pos, "tile " + name + " does not fit: " + why);
    }
    st.placed = true;
  }
  st.used = true;
  return Operand{t, st.offset, name};
}

void Runner::issue(const Stmt& s, const char* instr, std::vector<::pto::detail::Access> acc, const Call& call) {
  ::pto::Context& c = core_.context();
  c.tile.last_report = desc::DescReport{};
  tile::Event deps[::pto::kPipeSlots]{};
  ::pto::detail::auto_waits(c, acc.data(), acc.size(), deps);
  const Result<tile::Event> r = call(c.tile, deps);
  if (!r.ok()) {
    ::pto::Failure f{};
    f.status = r.status();
    f.instr = instr;
    f.report = c.tile.last_report.status == r.status() ? c.tile.last_report : desc::DescReport{};
    f.report.status = r.status();
    fail(1, s.pos, failure_text(f));
  }
  ::pto::detail::record_access(c, acc.data(), acc.size(), r.value());
}

RunOutcome Runner::run(const RunRequest& req) {
  RunOutcome out;
  try {
    setup_pointers(req);
    for (size_t i = 0; i < f_.body.size(); ++i) {
      const Stmt& s = f_.body[i];
      switch (s.kind) {
        case StmtKind::constant: break;
        case StmtKind::make_tensor_view:
        case StmtKind::partition_view: view(s); break;
        case StmtKind::alloc_tile:
          tiles_[s.result] = TileState{};
          if (s.addr_value >= 0) place_manual(s.result, s.addr, s.pos);
          break;
        case StmtKind::tassign: place_manual(s.ins[0], s.addr, s.pos); break;
        case StmtKind::instr: instruction(s, static_cast<int>(i)); break;
      }
    }
    tile::pipe_barrier(core_.context().tile);
  } catch (const RunError& e) {
    out.exit_code = e.code;
    out.positional = e.pos.line != 0;
    out.message = e.pos.line == 0 ? e.message
                                  : std::to_string(e.pos.line) + ":" + std::to_string(e.pos.column) + ": " + e.message;
    return out;
  }
  out.hazards = core_.hazard_count();
  for (int a : f_.args) {
    const Gm& g = gm_[a];
    if (!g.stored) continue;
    out.outputs.emplace_back(f_.values[a].name, std::vector<uint8_t>(g.host, g.host + g.bytes));
  }
  return out;
}

RunOutcome run_module(const Module& m, const RunRequest& req) {
  Runner r(m, req.chip);
  return r.run(req);
}

}  // namespace tilefw::tools::pto_text
