// The runner's state (pto_exec.cpp: pointers, views, placement, issue) and its per-instruction
// half (pto_exec_ops.cpp: operands to plan requests, move and matmul descriptors). Host-only.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <pto/host.hpp>

#include "pto_text/pto_exec.hpp"
#include "tilefw/base/result.hpp"
#include "tilefw/tile/event.hpp"

namespace tilefw::tools::pto_text {

struct RunError {
  int code = 2;
  Pos pos{0, 0};  // line 0: not tied to a statement
  std::string message;
};

/// The literal of the arith.constant defining `value` ("0" when none).
const std::string& constant_of(const Function& f, int value);

struct TileState {
  bool placed = false;
  bool used = false;
  uint64_t offset = 0;
};

/// A tile operand as an instruction sees it.
struct Operand {
  Type type{};
  uint64_t offset = 0;
  std::string name;
};

class Runner {
 public:
  Runner(const Module& m, chip::Chip chip);
  RunOutcome run(const RunRequest& req);

 private:
  struct Gm {
    uint8_t* host = nullptr;
    uint64_t offset = 0;
    uint64_t bytes = 0;
    bool stored = false;
  };
  struct View {
    int ptr = -1;
    uint64_t offset = 0;
    uint32_t rows = 0;
    uint32_t cols = 0;
    uint32_t stride = 0;
    DType dtype = DType::f32;
  };
  using Call = std::function<Result<tile::Event>(tile::Core&, const tile::Event*)>;

  [[noreturn]] void fail(int code, Pos p, const std::string& msg) const;
  void setup_pointers(const RunRequest& req);
  void view(const Stmt& s);
  void place_manual(int value, uint64_t addr, Pos pos);
  Operand tile_operand(int value, const char* instr, Pos pos);
  Operand operand_of(TileState& st, const Type& t, const std::string& name, const char* instr, Pos pos);
  void issue(const Stmt& s, const char* instr, std::vector<::pto::detail::Access> acc, const Call& call);

  // pto_exec_ops.cpp
  void instruction(const Stmt& s, int index);
  void vector_op(const Stmt& s, const OpInfo& info, const char* instr, std::vector<Operand>& ops, const Operand& dst);
  void move_op(const Stmt& s, const OpInfo& info, const char* instr);
  void matmul_op(const Stmt& s, const OpInfo& info, const char* instr);
  uint32_t scalar_bits(const Stmt& s, int value, DType dt, bool negate);
  uint32_t minus_one_bits(const Stmt& s, DType dt);

  const Module& m_;
  const Function& f_;
  ::pto::host::Core core_;
  std::map<int, Gm> gm_;
  std::map<int, View> views_;
  std::map<int, TileState> tiles_;
  std::map<int, TileState> implicit_;  // the assembly form's tmp tiles, by statement
  std::string instr_name_;             // the running instruction's name (TROWSUM ...)
};

}  // namespace tilefw::tools::pto_text
