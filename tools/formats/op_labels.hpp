// Op labels of generated streams (traces a person reads, docs/generator.md section 6): which layer op each
// command belongs to, e.g. `q_proj m2 n0 k5`. `tilefw gen` records the generator's OpMarks
// and writes them as `ops.json` next to the streams; `tilefw run` reads that file (found next
// to the manifest) to name the commands in --trace / --svg and to sum time per op (--summary).
//
// ops.json: {"format": "tilefw-ops-1", "cores": [{"tiu": [[first_id, "label"], ...],
//            "gdma": [...], "sdma": [...]}, ...]}: per core and engine, the label of every
// command from `first_id` (1-based command id) up to the next entry. Host-only.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "tilefw/gen/generator.hpp"

namespace tilefw::tools {

class OpLabels {
 public:
  /// The sink to pass to gen::emit_layer; records into this object.
  gen::OpSink sink() noexcept;
  /// Labels command `first_id` onwards of (core, engine) with `label` (engine 0..2), up to the
  /// next label added; a label equal to the current one extends it (run --bmodel labels every
  /// command with its tpu-mlir op name).
  void add(uint32_t core, uint32_t engine, uint32_t first_id, const std::string& label);
  /// "q_proj m2 n0 k5", "expert.gate_proj e17 m0 n1 k0", "attention" (no tile indices).
  static std::string format(const gen::OpMark& mark);
  /// The op name without tile and expert indices ("q_proj").
  static std::string op_of(const std::string& label);

  [[nodiscard]] bool write_json(const std::string& path, std::string& error) const;
  /// Reads ops.json; false + `error` naming the file and what is wrong (never throws).
  [[nodiscard]] bool read_json(const std::string& path, std::string& error);

  /// The label of command `id` of (core, engine), or "" when unknown (always for engine 3,
  /// the HAU).
  const std::string& label(uint32_t core, uint32_t engine, uint32_t id) const noexcept;
  bool empty() const noexcept { return streams_.empty(); }

 private:
  struct Run {
    uint32_t first = 0;
    uint32_t label = 0;  // index into names_
  };
  std::vector<Run>& runs(uint32_t core, uint32_t engine);
  uint32_t intern(const std::string& s);

  std::vector<std::vector<Run>> streams_;  // core * 3 + engine
  std::vector<std::string> names_;
  // names_ by text: a DeepSeek-V3 layer has some 100,000 distinct labels (256 experts x tiles),
  // and a linear search made interning most of `tilefw gen`'s time.
  std::unordered_map<std::string, uint32_t> index_;
};

}  // namespace tilefw::tools
