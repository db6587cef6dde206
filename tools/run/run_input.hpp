// What `tilefw run` runs, in memory: the DDR regions with where their first bytes come from, the
// command streams of every core, the input and output tensors and the op labels. Built from a
// manifest (run_input.cpp, over the reader of sg2260_manifest.hpp) or from a .bmodel
// (run_bmodel.cpp, straight from the parsed file: nothing is written to disk on the way).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "formats/op_labels.hpp"
#include "formats/sg2260_manifest.hpp"
#include "tilefw/base/span.hpp"

namespace tilefw::tools {

/// Where the first bytes of a region or an input come from.
struct ByteSource {
  enum class Kind : uint8_t {
    none,       // zeros (simulated DDR starts zeroed)
    file,       // `file` from `file_offset`, at most the range's bytes
    memory,     // `bytes`, held by the RunInput, placed `at` bytes into the region
    drawn_f16,  // f16 weights drawn from [-0.5, 0.5) by RunInput::fill_seed's generator
  };
  Kind kind = Kind::none;
  std::string file;
  uint64_t file_offset = 0;
  ConstByteSpan bytes{};
  uint64_t at = 0;
};

struct RunRegion {
  uint32_t tag = 0;
  uint64_t device_addr = 0;  // DMA address: tag in bits 44:40
  uint64_t bytes = 0;
  ByteSource init;
};

struct RunTensor {
  std::string name;  // outputs: a plain file name (<--out>/<name>.dat)
  uint64_t device_addr = 0;
  uint64_t bytes = 0;
  ByteSource init;  // inputs only
  std::vector<uint64_t> shape;  // as the model says it (empty: not said)
};

/// A region or tensor with no bytes placed yet (field by field: GCC 12 at -O3 takes a braced
/// ByteSource{} inside an aggregate for uninitialised strings).
inline RunRegion run_region(uint32_t tag, uint64_t device_addr, uint64_t bytes) {
  RunRegion r;
  r.tag = tag;
  r.device_addr = device_addr;
  r.bytes = bytes;
  return r;
}
inline RunTensor run_tensor(std::string name, uint64_t device_addr, uint64_t bytes, std::vector<uint64_t> shape) {
  RunTensor t;
  t.name = std::move(name);
  t.device_addr = device_addr;
  t.bytes = bytes;
  t.shape = std::move(shape);
  return t;
}

/// One engine's stream: a file to read (manifest) or bytes held in memory (.bmodel).
struct RunStream {
  bool given = false;  // named by the model, even when empty (an empty stream is refused)
  std::string file;    // "" when in memory
  ConstByteSpan bytes{};
  std::string shown;   // how messages name the stream: its file, or "MODEL.bmodel: core0.gdma.bin"
};

struct RunCore {
  uint32_t core = 0;
  RunStream stream[kManifestEngines];  // by kManifestEngineNames: tiu, gdma, sdma, hau
};

struct RunInput {
  std::string source;  // the manifest or .bmodel the user named: messages start with it
  bool from_bmodel = false;
  std::vector<RunRegion> regions;
  std::vector<RunTensor> inputs, outputs;
  std::vector<RunCore> cores;
  nlohmann::json report;      // the manifest's "report" figures (null when absent)
  nlohmann::json moe_phases;  // a MoE layer in two phases (null otherwise), and its config
  std::string moe_config;
  /// Op labels: a manifest's ops.json (`ops_file`, read only when a view names ops) or, for a
  /// .bmodel, the tpu-mlir op of every command, filled when asked for.
  std::string ops_file;
  OpLabels ops;
  /// The generator of the ByteSource::drawn_f16 regions: one stream of draws over them in order.
  uint64_t fill_seed = 0;
  /// The .bmodel's bytes: the memory sources and streams point into them.
  std::vector<uint8_t> held;

  /// Sum of the regions' bytes (the memory a functional run may touch in DDR).
  uint64_t ddr_bytes() const noexcept;
  /// Frees `held` once its bytes are placed, and forgets the spans into it.
  void release_bytes() noexcept;
};

/// A checked manifest (read_manifest) as a run input: regions with their init files, inputs
/// with theirs, streams as files, ops.json next to the manifest at `path`.
void run_input_from_manifest(Manifest&& m, const std::string& path, RunInput& out);

/// Fills `n` bytes at `dst` with f16 weights drawn uniformly from [-0.5, 0.5): four per 64-bit
/// draw of `rng` (each 16 bits pick (k + 0.5) / 65536 - 0.5 rounded to f16), the bytes of a
/// last partial draw left as they are. One generator carried across the regions in order gives
/// the same weights for a seed in every run.
void draw_f16_weights(std::mt19937_64& rng, uint8_t* dst, uint64_t n);

}  // namespace tilefw::tools
