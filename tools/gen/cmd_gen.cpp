// `tilefw gen` (docs/generator.md section 2): a Hugging Face config.json -> one decoder
// layer's 8-core SG2260 streams, tensor files and manifest.json in the sg2260-mm0 format.
// Exit 0 on success; 2 on a bad config / option / weights file (the message names the key,
// option or tensor); 1 when the layer cannot be mapped (e.g. a tile does not fit LMEM).
// Everything is written to a temporary directory next to --out and renamed at the end, so a
// failure leaves no partial output.
#include <fcntl.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

#include "commands.hpp"
#include "formats/gen_config.hpp"
#include "gen/gen_request.hpp"
#include "run/moe_phases.hpp"
#include "gen/gen_data.hpp"
#include "formats/op_labels.hpp"
#include "common/signal_cleanup.hpp"
#include "tilefw/gen/generator.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
using gen::TensorId;
using gen::TensorInfo;
using gen::TensorRole;

const char* json_dtype(DType d) { return d == DType::bf16 ? "bf16" : d == DType::f16 ? "f16" : "f32"; }

// --out as a directory path: "DIR/" and "DIR/." name DIR (the temporary sibling must sit next
// to DIR, not inside it, or replacing DIR would delete it); "", ".", ".." and a root are refused,
// since replacing them would delete the current directory, its parent or the file system.
std::optional<Failure> out_path(const std::string& arg, fs::path& out) {
  out = fs::path(arg).lexically_normal();
  if (!out.empty() && !out.has_filename()) out = out.parent_path();  // "DIR/" -> "DIR"
  const fs::path name = out.filename();
  if (arg.empty() || out.empty() || name.empty() || name == "." || name == ".." || out == out.root_path()) {
    return Failure{2, "--out '" + arg + "': name a directory to create or replace (not '.', '..' or a root)"};
  }
  return std::nullopt;
}

// Checks --out without touching the file system (before any generation work).
std::optional<Failure> check_out(const GenCli& cli, const fs::path& out) {
  std::error_code ec;
  // A link at --out would be renamed aside and replaced by a directory: refused like every
  // output target that is not an ordinary file or directory (output_target.hpp).
  if (fs::is_symlink(fs::symlink_status(out, ec))) {
    return Failure{2, "--out " + cli.out + " is a symbolic link (tilefw neither replaces one nor writes through it)"};
  }
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) return Failure{2, "--out " + cli.out + " exists and is not a directory"};
    if (!fs::is_empty(out, ec) && !cli.force) {
      return Failure{2, "--out " + cli.out + " is not empty (use --force to replace it)"};
    }
  }
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) return Failure{2, "--out: parent directory " + parent.string() + " does not exist"};
  return std::nullopt;
}

// The hidden sibling `.NAME.<what>-PID` of --out.
fs::path sibling(const fs::path& out, const char* what) {
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  return parent / ("." + out.filename().string() + "." + what + "-" + std::to_string(::getpid()));
}

// `slot`: the temporary's signal_cleanup registration (made before it exists).
std::optional<Failure> prepare_out(const GenCli& cli, const fs::path& out, fs::path& tmp, int& slot) {
  if (auto f = check_out(cli, out)) return f;
  std::error_code ec;
  tmp = sibling(out, "tmp");
  fs::remove_all(tmp, ec);
  slot = signal_cleanup::add_dir(tmp.string());
  if (!fs::create_directory(tmp, ec)) return Failure{2, "--out: cannot create " + tmp.string() + ": " + ec.message()};
  return std::nullopt;
}

// Moves the finished `tmp` to `out`. Without --force the rename never replaces anything:
// an --out that became non-empty (or a link) while this run worked, a second gen to the same
// --out among them, is refused, not replaced (renameat2 RENAME_NOREPLACE decides atomically).
// With --force an existing `out` is first moved aside and deleted only once the new one is in
// place, so a failed rename leaves the old directory as it was.
std::optional<Failure> commit_out(const GenCli& cli, const fs::path& tmp, const fs::path& out) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(out, ec))) {
    return Failure{2, "--out " + out.string() + " became a symbolic link while generating; not replaced"};
  }
  fs::path old;
  if (fs::exists(out, ec)) {
    if (!cli.force) {
      // Still empty: remove it (fails when something arrived meanwhile) and take its place.
      if (::rmdir(out.c_str()) != 0) {
        return Failure{2, "--out " + out.string() + " is no longer empty (written while generating; use --force to replace it)"};
      }
    } else {
      old = sibling(out, "old");
      fs::remove_all(old, ec);
      fs::rename(out, old, ec);
      if (ec) return Failure{2, "--out: cannot move the existing " + out.string() + " aside: " + ec.message()};
    }
  }
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, out.c_str(), RENAME_NOREPLACE) != 0) {
    const int err = errno;
    if (!old.empty()) fs::rename(old, out, ec);
    if (err == EEXIST || err == ENOTEMPTY) {
      return Failure{2, "--out " + out.string() + " appeared while generating (another run?); not replaced"};
    }
    return Failure{2, "--out: cannot rename the output into " + out.string() + ": " + std::strerror(err)};
  }
  if (!old.empty()) fs::remove_all(old, ec);
  return std::nullopt;
}

bool write_bytes(const fs::path& p, const uint8_t* data, size_t n) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
  return static_cast<bool>(f);
}

ManifestTensor tensor_entry(const TensorInfo& t, const std::string& name, const std::string& file, uint64_t offset,
                            bool with_file) {
  ManifestTensor m;
  m.name = name;
  m.shape.assign(t.shape, t.shape + t.rank);
  m.dtype = json_dtype(t.dtype);
  m.device_addr = t.device_addr;
  m.bytes = t.bytes;
  if (with_file) {
    m.file = file;
    m.file_offset = offset;
  }
  return m;
}

nlohmann::json report(const gen::SizedLayer& p, const GenCli& cli, const HfConfig& cfg) {
  nlohmann::json r;
  r["model_type"] = cfg.model_type;
  r["layer"] = cli.layer;
  r["phase"] = cli.phase;
  r["batch"] = p.inference.batch;
  r["seq"] = p.inference.seq;
  r["kv_len"] = p.inference.kv_len;
  r["cores"] = p.parallel.cores;
  r["tp"] = p.parallel.tp;
  r["ep"] = p.model.moe_layer ? p.parallel.ep : (cli.ep == 0 ? p.parallel.cores : cli.ep);
  if (p.model.moe_layer) {
    r["experts"] = p.model.moe.experts;
    r["top_k"] = p.model.moe.top_k;
    // Token slots per expert over the whole request (Rule: capacity; passes share them, numbered
    // in token order): every token without --capacity-factor.
    r["capacity"] = p.capacity;
  }
  r["chunk_tokens"] = p.chunk_tokens;
  r["chunk_batch"] = p.chunk_batch;
  r["chunks"] = p.chunks;
  r["dtype"] = json_dtype(p.model.dtype);
  nlohmann::json cmds = nlohmann::json::array();
  for (uint32_t c = 0; c < p.parallel.cores; ++c) {
    cmds.push_back({{"tiu", p.stream_commands[c][0]}, {"gdma", p.stream_commands[c][1]}, {"sdma", p.stream_commands[c][2]}});
  }
  r["commands"] = cmds;
  r["flops"] = p.flops;
  r["bytes_ddr"] = p.bytes_ddr;
  r["lmem_bytes_per_lane"] = p.memory.lmem_bytes_per_lane;
  return r;
}

// The DDR image of tag 1 (weights + constants at their device offsets).
std::vector<uint8_t> coeff_image(const gen::SizedLayer& p, const LayerData& data) {
  std::vector<uint8_t> img(p.memory.coeff_bytes, 0);
  for (const TensorInfo& t : p.memory.tensors) {
    if (!t.present || (t.role != TensorRole::weight && t.role != TensorRole::constant)) continue;
    const std::vector<uint8_t>& b = data.bytes[static_cast<uint32_t>(t.id)];
    std::copy(b.begin(), b.end(), img.begin() + static_cast<long>(sg::dma_offset(t.device_addr)));
  }
  return img;
}

const char* const kStreamExt[3] = {"BD", "GDMA", "SDMA"};

std::string stream_file(uint32_t core, uint32_t engine) {
  return std::string("layer.") + kStreamExt[engine] + "." + std::to_string(core);
}

// Whether the layer is written as two phases (phase 1 here, phase 2 generated by run).
bool two_phases(const gen::SizedLayer& p, const GenCli& cli) { return p.model.moe_layer && !cli.static_experts; }

// The streams gen writes for core `c`: the whole layer, or phase 1 of a MoE layer.
struct CoreSizes {
  uint64_t bytes[3] = {};
  uint32_t commands[3] = {};
};
std::optional<Failure> core_sizes(const gen::SizedLayer& p, const GenCli& cli, uint32_t c, CoreSizes& out) {
  if (!two_phases(p, cli)) {
    for (uint32_t e = 0; e < 3; ++e) {
      out.bytes[e] = p.stream_bytes[c][e];
      out.commands[e] = p.stream_commands[c][e];
    }
    return std::nullopt;
  }
  gen::PhaseRequest req;
  req.phase = 1;
  gen::GenError ge;
  if (gen::size_phase(p, c, req, out.bytes, out.commands, ge) != Status::ok) {
    return Failure{1, std::string(status_name(ge.status)) + ": " + ge.what};
  }
  return std::nullopt;
}

// Pass 2 one core at a time, each core's streams written to `dir` before the next is emitted:
// the memory held is one core's streams (a DeepSeek-V3 prefill layer's are 1 GB in all).
std::optional<Failure> write_streams(const gen::SizedLayer& p, const GenCli& cli, const fs::path& dir, OpLabels& ops,
                                     std::vector<CoreSizes>& sizes) {
  sizes.assign(p.parallel.cores, CoreSizes{});
  for (uint32_t c = 0; c < p.parallel.cores; ++c) {
    if (auto f = core_sizes(p, cli, c, sizes[c])) return f;
    std::vector<uint8_t> streams[3];
    gen::StreamBuffers buffers;
    for (uint32_t e = 0; e < 3; ++e) {
      streams[e].resize(sizes[c].bytes[e]);
      buffers.stream[c][e] = ByteSpan(streams[e].data(), streams[e].size());
    }
    gen::GenError ge;
    gen::PhaseRequest req;
    req.phase = two_phases(p, cli) ? 1 : 0;
    uint64_t used[3] = {};
    const Status s = req.phase == 0 ? gen::emit_core(p, c, buffers, ge, ops.sink())
                                    : gen::emit_phase(p, c, req, buffers, used, ge, ops.sink());
    if (s != Status::ok) return Failure{1, std::string(status_name(ge.status)) + ": " + ge.what};
    for (uint32_t e = 0; e < 3; ++e) {
      const fs::path f = dir / stream_file(c, e);
      if (!write_bytes(f, streams[e].data(), streams[e].size())) return Failure{2, "cannot write " + f.string()};
    }
  }
  return std::nullopt;
}

std::optional<Failure> write_outputs(const gen::SizedLayer& p, const GenCli& cli, const HfConfig& cfg,
                                     const LayerData& data, const fs::path& dir, const std::vector<CoreSizes>& sizes) {
  const bool files = !cli.timing_only;
  Manifest m;  // written by the manifest module's one writer
  m.name = "tilefw-gen " + cfg.model_type + " layer " + std::to_string(cli.layer);
  m.chip = "BM1690";
  m.chip_aliases = {"SG2260"};
  m.core_num = p.parallel.cores;
  for (uint32_t c = 0; c < p.parallel.cores; ++c) {
    ManifestCore core;
    core.core = c;
    core.sized = true;
    for (uint32_t e = 0; e < 3; ++e) {  // the files: write_streams
      core.file[e] = stream_file(c, e);
      core.bytes[e] = sizes[c].bytes[e];
      core.commands[e] = sizes[c].commands[e];
    }
    m.cores.push_back(core);
  }
  ManifestRegion coeff{1, sg::make_dma_address(1, 0), p.memory.coeff_bytes, "",
                       "coeff: layer weights (checkpoint layout) and generator constants", ""};
  if (files) {
    const std::vector<uint8_t> img = coeff_image(p, data);
    if (!write_bytes(dir / "weights.bin", img.data(), img.size())) return Failure{2, "cannot write weights.bin"};
    coeff.init_file = "weights.bin";
  }
  const ManifestRegion neuron{2, sg::make_dma_address(2, 0), p.memory.neuron_bytes, "", "neuron: inputs and outputs",
                              "zero-fill, then copy each input file to its device_addr"};
  m.regions = {coeff, neuron};
  m.l2 = ManifestL2{true, p.memory.l2_offset, p.memory.l2_bytes, p.memory.lmem_bytes_per_lane};
  for (const TensorInfo& t : p.memory.tensors) {
    if (!t.present) continue;
    if (t.role == TensorRole::weight) {
      const uint32_t parts = weight_parts(t);
      for (uint32_t e = 0; e < parts; ++e) {  // experts: one entry per checkpoint tensor
        TensorInfo one = t;
        const std::vector<uint64_t> shape = part_shape(t);
        one.rank = static_cast<uint8_t>(shape.size());
        for (size_t i = 0; i < shape.size(); ++i) one.shape[i] = static_cast<uint32_t>(shape[i]);
        one.bytes = t.bytes / parts;
        one.device_addr = t.device_addr + e * one.bytes;
        m.weights.push_back(tensor_entry(one, weight_name(cli.layer, t, e), "weights.bin", sg::dma_offset(one.device_addr), files));
      }
    } else if (t.role == TensorRole::input) {
      const std::string f = std::string(t.name) + ".bin";
      const std::vector<uint8_t>& b = data.bytes[static_cast<uint32_t>(t.id)];
      if (files && !write_bytes(dir / f, b.data(), b.size())) return Failure{2, "cannot write " + f};
      m.inputs.push_back(tensor_entry(t, t.name, f, 0, files));
    } else if (t.role == TensorRole::output) {
      m.outputs.push_back(tensor_entry(t, t.name, std::string(t.name) + ".dat", 0, false));
    }
  }
  m.report = report(p, cli, cfg);
  if (two_phases(p, cli)) {  // the control core's part: the request, and the config it plans from
    std::vector<uint8_t> raw;
    if (!read_file(cli.config, raw) || !write_bytes(dir / "config.json", raw.data(), raw.size())) {
      return Failure{2, "cannot copy the config into the output"};
    }
    m.moe_phases = moe_phases_entry(cli, "config.json");
  }
  std::string error;
  if (!write_manifest((dir / "manifest.json").string(), m, error)) return Failure{2, "cannot write manifest.json"};
  return std::nullopt;
}

int fail(const Failure& f) {
  std::fprintf(stderr, "tilefw gen: %s\n", f.message.c_str());
  return f.code;
}

int run_gen(const GenCli& cli) {
  fs::path out;
  if (auto f = out_path(cli.out, out)) return fail(*f);
  if (auto f = check_out(cli, out)) return fail(*f);  // before the work; checked again below
  gen::SizedLayer plan;  // ~3 KB: fine on the host stack
  HfConfig cfg;
  if (auto f = generate(cli, plan, cfg)) return fail(*f);
  LayerData data;
  std::string error;
  if (!cli.timing_only) {
    if (!load_weights(plan, cli.layer, cli.weights, cli.seed, data, error)) return fail({2, "--weights: " + error});
    make_inputs(plan, cfg, cli.seed, data);
  } else if (!cli.weights.empty() && !check_weights(plan, cli.layer, cli.weights, error)) {
    return fail({2, "--weights: " + error});  // not read, but never silently ignored
  }
  fs::path tmp;
  int slot = -1;
  const auto f_prepare = prepare_out(cli, out, tmp, slot);
  const signal_cleanup::Registered registered(slot);  // released once renamed or removed below
  if (f_prepare) return fail(*f_prepare);
  // From here on the temporary directory exists: every failure, thrown ones included, removes it.
  std::optional<Failure> f;
  OpLabels ops;  // which layer op each command belongs to: ops.json, read by run's traces
  try {
    std::vector<CoreSizes> sizes;
    f = write_streams(plan, cli, tmp, ops, sizes);
    if (!f) f = write_outputs(plan, cli, cfg, data, tmp, sizes);
    std::string ops_error;
    if (!f && !ops.write_json((tmp / "ops.json").string(), ops_error)) f = Failure{2, ops_error};
    if (!f) f = commit_out(cli, tmp, out);
  } catch (const std::exception& e) {
    f = Failure{2, std::string("writing ") + out.string() + ": " + e.what()};
  }
  if (f) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    return fail(*f);
  }
  uint64_t cmds = 0, bytes = 0;
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
    for (uint32_t e = 0; e < 3; ++e) {
      cmds += plan.stream_commands[c][e];
      bytes += plan.stream_bytes[c][e];
    }
  }
  const std::string chunked =
      plan.chunks <= 1 ? ""
      : plan.row_passes() ? " in " + std::to_string(plan.chunks) + " passes of " + std::to_string(plan.chunk_batch) + " rows"
                       : " in " + std::to_string(plan.chunks) + " chunks of " + std::to_string(plan.chunk_tokens);
  std::printf("%s layer %u %s: batch %u seq %u%s kv_len %u, %u cores, tp %u: %" PRIu64 " commands, %" PRIu64
              " bytes of streams, LMEM %u B/lane -> %s\n",
              cfg.model_type.c_str(), cli.layer, cli.phase.c_str(), plan.inference.batch, plan.inference.seq,
              chunked.c_str(), plan.inference.kv_len, plan.parallel.cores, plan.parallel.tp, cmds, bytes,
              plan.memory.lmem_bytes_per_lane, cli.out.c_str());
  return 0;
}

}  // namespace

void register_gen(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("gen", "Generate one decoder layer's SG2260 streams from a Hugging Face config.json");
  static GenCli o;  // CLI11 binds by reference: must outlive parse()
  sub->add_option("--config", o.config, "Hugging Face config.json")->required();
  sub->add_option("--out", o.out, "output directory (must not exist or be empty; --force replaces it)")->required();
  sub->add_option("--layer", o.layer, "decoder layer index (default 0)");
  sub->add_option("--phase", o.phase, "prefill or decode (default prefill)")->check(CLI::IsMember({"prefill", "decode"}));
  sub->add_option("--batch", o.batch, "batch rows (default 1)");
  sub->add_option("--seq", o.seq, "new tokens per batch row (default 128 in prefill, 1 in decode)");
  sub->add_option("--kv-len", o.kv_len, "cached positions before them (default 0; decode needs >= 1)");
  sub->add_option("--prefill-chunk", o.chunk,
                  "prefill in chunks of N tokens (batch 1, N divides --seq; default: one pass when it fits "
                  "LMEM and L2, else the largest power of two <= 1024 that does)");
  sub->add_option("--decode-chunk", o.decode_chunk,
                  "decode in passes of N batch rows (N divides --batch; default: one pass when it fits LMEM, "
                  "else the fewest passes of equal rows that do)");
  sub->add_option("--cores", o.cores, "cores (default 8)");
  sub->add_option("--tp", o.tp, "tensor-parallel degree (default: the largest T <= cores dividing the attention heads that fits the kv heads; docs/generator.md section 3)")
      ->check(CLI::Range(1u, 1000000u));  // an explicit 0 is not "default"
  sub->add_option("--ep", o.ep, "expert-parallel degree (MoE; default = cores)")->check(CLI::Range(1u, 1000000u));
  sub->add_option("--dtype", o.dtype, "f16 or bf16 (overrides torch_dtype / quantization_config)")
      ->check(CLI::IsMember({"f16", "bf16"}));
  sub->add_option("--weights", o.weights, ".safetensors file holding model.layers.N's tensors");
  sub->add_option("--seed", o.seed, "seed of the drawn weights and inputs (default 0)");
  sub->add_option("--capacity-factor", o.capacity_factor, "MoE expert capacity factor");
  sub->add_flag("--timing-only", o.timing_only, "streams and manifest only, no tensor data");
  sub->add_flag("--force", o.force, "replace a non-empty --out");
  sub->add_flag("--static-experts", o.static_experts,
                "MoE: one static program, every expert on its capacity slots (default: two phases, the experts' "
                "one generated by run after routing, only for experts with tokens)");
  sub->callback([&exit_code] {
    try {
      exit_code = run_gen(o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tilefw gen: %s\n", e.what());
      exit_code = 2;
    }
  });
}

}  // namespace tilefw::tools
