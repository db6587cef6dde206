// Numbers in SG2260 model manifests (test/data/sg2260-mm0/manifest.json, docs/cli.md section 5):
// a JSON unsigned integer or a "0x..." hex string, nothing else (no decimal or octal strings:
// "010" would otherwise read as 8). Shared by `tilefw run` and `tilefw validate --manifest`.
// The manifest itself (read_manifest, sg2260_manifest.cpp): one reader and one set of rules
// for both commands (hostile input: mistyped manifest values, validate/run agreement): every key run reads is type- and range-checked and
// a failure names the key ("cores[1].core: 4294967296 is out of range 0..7").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/c2c_system.hpp"

namespace tilefw::tools {

/// The value of a manifest number; throws std::invalid_argument naming what was found.
inline uint64_t manifest_number(const nlohmann::json& j) {
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer() && j.get<int64_t>() >= 0) return static_cast<uint64_t>(j.get<int64_t>());
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s.size() > 2 && s.size() <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      uint64_t v = 0;
      bool ok = true;
      for (size_t i = 2; i < s.size() && ok; ++i) {
        const char c = s[i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        ok = d >= 0;
        v = (v << 4) | static_cast<uint64_t>(d < 0 ? 0 : d);
      }
      if (ok) return v;
    }
    throw std::invalid_argument("not a JSON integer or \"0x...\" hex string: \"" + s + "\"");
  }
  throw std::invalid_argument("not a JSON integer or \"0x...\" hex string: " + j.dump());
}

// The keys run does not use (role, init, shape, dtype, a stream's bytes and commands, the
// model's name and chip, weights, L2) are read when present with the right type and written
// back, so what `tilefw gen` writes reads back whole; they are never an error.
struct ManifestRegion {
  uint32_t tag = 0;
  uint64_t device_addr = 0;  // DMA address: tag in bits 44:40
  uint64_t bytes = 0;
  std::string init_file;     // resolved against the manifest's directory ("" = none)
  std::string role;          // what the region holds, for a reader ("" = not said)
  std::string init_note;     // "init": how it is filled, for a reader ("" = not said)
  uint32_t chip = 0;         // the chip whose DDR holds it (multi-chip manifests)
};
/// Where part of a tensor lives when it is spread over chips (a whole model on several chips):
/// bytes [offset, offset + bytes) of the tensor (and of its file, from file_offset) at
/// device_addr of chip `chip`.
struct ManifestPart {
  uint32_t chip = 0;
  uint64_t device_addr = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};
struct ManifestTensor {
  std::string name;
  uint64_t device_addr = 0;
  uint64_t bytes = 0;
  std::string file;          // inputs (and weights) only ("" in a timing-only reading without one)
  uint64_t file_offset = 0;
  std::vector<uint64_t> shape;  // empty = not said
  std::string dtype;            // "" = not said
  uint32_t chip = 0;            // the chip whose memory holds it (multi-chip manifests)
  /// Spread over chips: the parts (together exactly [0, bytes), each inside a region of its
  /// chip); then chip and device_addr are part 0's.
  std::vector<ManifestPart> parts{};
};
/// The streams a manifest core may name, in the engine order of the chip's registers (and
/// cmd::Engine): tiu and gdma required, sdma and hau optional.
inline constexpr int kManifestEngines = 4;
inline const char* const kManifestEngineNames[kManifestEngines] = {"tiu", "gdma", "sdma", "hau"};
struct ManifestCore {
  uint32_t core = 0;
  std::string file[kManifestEngines];  // by kManifestEngineNames ("" = none)
  /// The streams' bytes and commands as their writer counted them (informative; `sized`
  /// when given for every stream the core names).
  bool sized = false;
  uint64_t bytes[kManifestEngines] = {};
  uint64_t commands[kManifestEngines] = {};
  uint32_t chip = 0;  // multi-chip manifests: the chip the core belongs to
};
/// A CDMA port stream: what chip `chip` runs on its port to chip `peer` (one stream per
/// (chip, peer); Rule: CDMA threads).
struct ManifestCdma {
  uint32_t chip = 0;
  uint32_t peer = 0;
  std::string file;
  uint64_t file_offset = 0;
  bool sized = false;  // bytes / commands as the writer counted them (informative)
  uint64_t bytes = 0, commands = 0;
};
/// One chip's buffers in an all-to-all generated at run time.
struct ManifestAlltoallChip {
  uint64_t rows = 0;     // device address of its [T, H] rows buffer (send source and recv target, row t at t)
  uint64_t choices = 0;  // device address of the group's top-k expert ids (the routing's [T, k])
  uint32_t format = 0;   // the rows' CDMA data format: cmd::kCdmaFormatFp32, kCdmaFormatBf16 or kCdmaFormatFp16
};
/// A transfer step whose CDMA streams the control cores generate at run time from the routing
/// (a transfer step's "alltoall" object; the step names no cdma[] streams): the dispatch of
/// token rows to the chips holding their experts, or the combine of the experts' outputs back to
/// the rows' owners, over the expert-parallel group of chips first_chip .. first_chip + chips - 1.
struct ManifestAlltoall {
  std::string direction;  // "combine" or "dispatch"
  uint32_t layer = 0, microbatch = 0;
  uint32_t first_chip = 0, chips = 0;
  std::vector<ManifestAlltoallChip> per_chip;  // the group's chips in order ("per_chip")
};
/// One step of a whole model (tilefw gen --model): its per-core streams, run after the step
/// before it completed on every core.
struct ManifestStep {
  std::string name;  // "embed", "layer.3", "head" (several chips: "c1.m0.layer.3", "xfer.2")
  std::string kind;  // "embed", "layer", "head" or "xfer" (CDMA transfers between chips)
  uint32_t layer = 0;
  bool two_phase = false;  // a MoE layer: the streams are its routing phase
  /// Steps of one slot run at the same time on their chips (each chip's in list order); a slot
  /// starts when the one before it ended on every chip.
  uint32_t slot = 0;
  uint32_t microbatch = 0;
  std::vector<ManifestCore> cores{};
  std::vector<ManifestCdma> cdma{};  // xfer steps
  std::optional<ManifestAlltoall> alltoall{};  // an xfer step generated at run time (no cdma[])
};
/// The on-chip memory a generated layer plans with (informative).
struct ManifestL2 {
  bool given = false;
  uint64_t offset = 0, bytes = 0;
  uint64_t lmem_bytes_per_lane = 0;
};
struct Manifest {
  std::string name, chip;  // "" = not said
  std::vector<std::string> chip_aliases;
  uint64_t core_num = 0;   // 0 = not said
  std::vector<ManifestRegion> regions;
  ManifestL2 l2;
  std::vector<ManifestTensor> weights;  // the checkpoint tensors inside the regions (informative)
  std::vector<ManifestTensor> inputs, outputs;
  std::vector<ManifestCore> cores;
  /// The system of chips ("system"; not given: one chip) and the CDMA streams ("cdma").
  SystemSpec system;
  std::vector<ManifestCdma> cdma;
  nlohmann::json report;     // the "report" object (null when absent), its figures checked
  /// A MoE layer in two phases (moe_phases.hpp): the "moe_phases" object (null when absent),
  /// and its generator config resolved against the manifest's directory.
  nlohmann::json moe_phases;
  std::string moe_config;
  /// The whole model ("model": {"generator": {...request...}, "steps": [...]}; null when
  /// absent), its generator config resolved, and the steps in run order.
  nlohmann::json model;
  std::string model_config;
  std::vector<ManifestStep> steps;
  /// Sum of the regions' bytes (the memory a functional run may touch in DDR).
  uint64_t ddr_bytes() const noexcept;
};

/// Largest manifest file read (a manifest is a small JSON text).
/// 32 MiB: a generated DeepSeek-V3 whole model's is 9.2 MB (its weights[] names each of the
/// 47,000 checkpoint tensors), on 64 expert-parallel chips 23.6 MB (4030 steps of 8 cores), and
/// the parsed tree (~40x the text) stays below the tools' 2 GiB (64 MiB took run to 2.4 GiB).
inline constexpr uint64_t kMaxManifestBytes = uint64_t{32} << 20;
/// Most DDR regions, and most inputs (and outputs), of one manifest: the checks compare each
/// region with the others and each tensor with the regions.
inline constexpr size_t kMaxManifestRegions = 1024;
inline constexpr size_t kMaxManifestTensors = 4096;
/// Largest command stream file: 2^20 - 1 commands (the 20-bit command ids) of 128 bytes.
inline constexpr uint64_t kMaxStreamBytes = uint64_t{128} << 20;

/// An output name that is a plain file name (not empty, no '/', not "." or "..", no NUL): an
/// output is written to <--out>/<name>.dat.
bool plain_file_name(const std::string& name);

/// Reads and checks the manifest at `path` (a regular file of at most kMaxManifestBytes).
/// Rules: the top level is an object; `system` as parse_system() (absent: one chip); every
/// `chip` key (on cores, regions, inputs, outputs; default 0) below the system's chip count;
/// `cores` an array of objects, non-empty unless `cdma` names a stream, each (`chip`,
/// `core`) with `core` in 0..7 and not repeated; `cdma` entries with `chip` and `peer`
/// distinct chips of the system, a `file`, an optional `file_offset`, one per (chip, peer); each core's `tiu` and
/// `gdma` objects with a non-empty `file` string, `sdma` and `hau` optional; `memory.ddr_regions`, `inputs`, `outputs` arrays of objects when present; a
/// region's `tag` in 0..29 equal to its `device_addr`'s tag, `bytes` >= 1, ending inside the
/// tag's 2^40-byte space, not overlapping another of its chip; each input and output inside
/// one region of its chip;
/// output names plain file names (not empty, no '/', not "." or "..", no NUL) and distinct;
/// inputs need a `file` unless `timing_only`; numbers as manifest_number(). false with
/// `error` naming the key. No file the manifest names is read here.
bool read_manifest(const std::string& path, bool timing_only, Manifest& out, std::string& error);
/// The same rules on a parsed document; `dir` resolves the file names.
bool parse_manifest(const nlohmann::json& j, const std::string& dir, bool timing_only, Manifest& out,
                    std::string& error);

/// A transfer step's "alltoall" object at `key`: {"direction": "combine"|"dispatch", "layer",
/// "microbatch", "first_chip", "chips", "per_chip": [{"rows", "choices", "format"}]}, every key
/// required; numbers as manifest_number(); a group of 2 or more chips inside the system; one
/// per_chip entry per chip of the group, its rows and choices addresses inside a
/// memory.ddr_regions entry of that chip, its format "f32", "bf16" or "f16". Throws
/// std::runtime_error "key: what" naming the key (the reader reports it as its own errors).
ManifestAlltoall read_alltoall(const nlohmann::json& j, const std::string& key, const Manifest& m);
/// The "alltoall" object as read_alltoall reads it (addresses as "0x..." strings).
nlohmann::json alltoall_json(const ManifestAlltoall& a);
/// "f32", "bf16", "f16" for the CDMA data formats an all-to-all moves (else "").
const char* alltoall_format_name(uint32_t format);

/// The manifest as JSON: every key the reader reads, with file names as they are in `m`
/// (relative to the manifest's directory when written), addresses as "0x..." strings, and the
/// informative keys only when said. The one writer of manifests (tilefw gen uses it).
nlohmann::json manifest_json(const Manifest& m);
/// manifest_json(m) written to `path` (one-space indent, then a newline). false with `error`.
bool write_manifest(const std::string& path, const Manifest& m, std::string& error);

}  // namespace tilefw::tools
