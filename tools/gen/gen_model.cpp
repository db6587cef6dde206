// `tilefw gen --model` (docs/whole-model.md): a Hugging Face config.json -> the whole model's
// steps on one chip (embedding, every decoder layer, head), their streams, the tensor files and
// a manifest whose "model" object lists the steps in run order. Output written like the
// one-layer gen: a temporary sibling of --out renamed at the end.
#include "gen/gen_model.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "commands.hpp"
#include "common/signal_cleanup.hpp"
#include "formats/sg2260_manifest.hpp"
#include "gen/gen_data.hpp"
#include "gen/gen_output.hpp"
#include "gen/model_plan.hpp"
#include "run/moe_phases.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
using gen::TensorId;
using gen::TensorInfo;
using gen::TensorRole;

const char* const kStreamExt[3] = {"BD", "GDMA", "SDMA"};

// Each step's data is drawn from its own seed, so layers differ (a layer order mistake shows).
uint64_t step_seed(uint64_t seed, const ModelStep& s) {
  const uint64_t k = s.kind == gen::Program::embed ? 0 : s.kind == gen::Program::head ? 1 : 2 + uint64_t{s.layer};
  return seed ^ (0x9E3779B97F4A7C15ull * (k + 1));
}

uint64_t ddr_capacity_bytes(const GenCli& cli) { return uint64_t{cli.ddr_capacity_gib} << 30; }

// Deliver: memory is finite. Weights, caches, activations and the streams must fit the chip's DDR.
std::optional<Failure> check_capacity(const GenCli& cli, const ModelPlan& mp, uint64_t stream_bytes) {
  const uint64_t need = mp.coeff_bytes + mp.neuron_bytes + stream_bytes, have = ddr_capacity_bytes(cli);
  if (need <= have) return std::nullopt;
  const uint64_t chips = (need + have - 1) / have;
  char msg[512];
  std::snprintf(msg, sizeof msg,
                "chip 0: DDR %.3f GB needed (weights %.3f GB, caches %.3f GB, activations and scratch %.3f GB, streams "
                "%.3f GB) > %.3f GB capacity, short by %.3f GB; the weights and caches spread over at least %" PRIu64
                " chips would fit",
                need / 1e9, mp.weight_bytes / 1e9, mp.cache_bytes / 1e9,
                (mp.neuron_bytes - std::min(mp.neuron_bytes, mp.cache_bytes)) / 1e9, stream_bytes / 1e9, have / 1e9,
                (need - have) / 1e9, chips);
  return Failure{1, msg};
}

struct StepSizes {
  uint64_t bytes[gen::kMaxCores][3] = {};
  uint32_t commands[gen::kMaxCores][3] = {};
};

std::optional<Failure> size_step(const ModelStep& s, StepSizes& out) {
  for (uint32_t c = 0; c < s.plan.parallel.cores; ++c) {
    if (!s.two_phase) {
      for (uint32_t e = 0; e < 3; ++e) {
        out.bytes[c][e] = s.plan.stream_bytes[c][e];
        out.commands[c][e] = s.plan.stream_commands[c][e];
      }
      continue;
    }
    gen::PhaseRequest req;
    req.phase = 1;
    gen::GenError ge;
    if (gen::size_phase(s.plan, c, req, out.bytes[c], out.commands[c], ge) != Status::ok) {
      return Failure{1, s.name + ": " + status_name(ge.status) + ": " + ge.what};
    }
  }
  return std::nullopt;
}

// One step's streams, core by core, into `dir`; its manifest entry.
std::optional<Failure> write_step(const ModelStep& s, const StepSizes& z, const fs::path& dir, ManifestStep& out) {
  out.name = s.name;
  out.kind = s.kind == gen::Program::embed ? "embed" : s.kind == gen::Program::head ? "head" : "layer";
  out.layer = s.layer;
  out.two_phase = s.two_phase;
  for (uint32_t c = 0; c < s.plan.parallel.cores; ++c) {
    std::vector<uint8_t> streams[3];
    gen::StreamBuffers buffers;
    for (uint32_t e = 0; e < 3; ++e) {
      streams[e].resize(z.bytes[c][e]);
      buffers.stream[c][e] = ByteSpan(streams[e].data(), streams[e].size());
    }
    gen::GenError ge;
    gen::PhaseRequest req;
    req.phase = s.two_phase ? 1 : 0;
    uint64_t used[3] = {};
    const Status st = req.phase == 0 ? gen::emit_core(s.plan, c, buffers, ge) : gen::emit_phase(s.plan, c, req, buffers, used, ge);
    if (st != Status::ok) return Failure{1, s.name + ": " + status_name(ge.status) + ": " + ge.what};
    ManifestCore core;
    core.core = c;
    core.sized = true;
    for (uint32_t e = 0; e < 3; ++e) {
      const std::string f = s.name + "." + kStreamExt[e] + "." + std::to_string(c);
      if (!write_bytes(dir / f, streams[e].data(), streams[e].size())) return Failure{2, "cannot write " + f};
      core.file[e] = f;
      core.bytes[e] = z.bytes[c][e];
      core.commands[e] = z.commands[c][e];
    }
    out.cores.push_back(core);
  }
  return std::nullopt;
}

ManifestTensor entry(const TensorInfo& t, const std::string& name, const std::string& file, uint64_t offset) {
  ManifestTensor m;
  m.name = name;
  m.shape.assign(t.shape, t.shape + t.rank);
  m.dtype = json_dtype(t.dtype);
  m.device_addr = t.device_addr;
  m.bytes = t.bytes;
  m.file = file;
  m.file_offset = offset;
  return m;
}

// Token ids drawn uniformly from the vocabulary.
std::vector<uint8_t> draw_ids(const ModelPlan& mp, uint64_t seed) {
  const uint64_t T = uint64_t{mp.inference.batch} * mp.inference.seq;
  std::vector<uint8_t> b(T * 4);
  uint64_t x = seed ^ 0x5851F42D4C957F2Dull;
  for (uint64_t i = 0; i < T; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t id = static_cast<uint32_t>((x >> 33) % mp.cfg.model.vocab);
    std::memcpy(b.data() + i * 4, &id, 4);
  }
  return b;
}

// Weights, constants and inputs of every step; the coeff image; the manifest's tensor lists.
std::optional<Failure> write_data(const GenCli& cli, const ModelPlan& mp, const fs::path& dir, Manifest& m) {
  const bool files = !cli.timing_only;
  std::vector<uint8_t> coeff;
  if (files) coeff.assign(mp.coeff_bytes, 0);
  bool shared_written[gen::kTensorCount] = {};
  for (const ModelStep& s : mp.steps) {
    LayerData data;
    std::string error;
    const uint64_t seed = step_seed(cli.seed, s);
    if (files) {
      if (!load_weights(s.plan, s.layer, cli.weights, seed, data, error)) return Failure{2, "--weights: " + error};
      if (s.kind == gen::Program::layer) make_inputs(s.plan, mp.cfg, seed, data);
    } else if (!cli.weights.empty() && !check_weights(s.plan, s.layer, cli.weights, error)) {
      return Failure{2, "--weights: " + error};
    }
    for (const TensorInfo& t : s.plan.memory.tensors) {
      if (!t.present) continue;
      const uint32_t id = static_cast<uint32_t>(t.id);
      if (t.role == TensorRole::constant && files) {
        data.bytes[id].assign(t.bytes, 0);
        (void)gen::fill_constant(s.plan, t.id, ByteSpan(data.bytes[id].data(), t.bytes));
      }
      const bool tied_again = s.kind == gen::Program::head && t.id == TensorId::embed_tokens;
      if ((t.role == TensorRole::weight || t.role == TensorRole::constant) && !tied_again) {
        if (files) std::copy(data.bytes[id].begin(), data.bytes[id].end(), coeff.begin() + static_cast<long>(sg::dma_offset(t.device_addr)));
        if (t.role == TensorRole::constant) continue;
        const uint32_t parts = weight_parts(t);
        for (uint32_t e = 0; e < parts; ++e) {
          TensorInfo one = t;
          const std::vector<uint64_t> shape = part_shape(t);
          one.rank = static_cast<uint8_t>(shape.size());
          for (size_t i = 0; i < shape.size(); ++i) one.shape[i] = static_cast<uint32_t>(shape[i]);
          one.bytes = t.bytes / parts;
          one.device_addr = t.device_addr + e * one.bytes;
          m.weights.push_back(entry(one, step_weight_name(s, t, e), files ? "weights.bin" : "", sg::dma_offset(one.device_addr)));
        }
      } else if (t.role == TensorRole::input && t.id != TensorId::hidden_states) {
        const bool shared = t.id == TensorId::rope_cos || t.id == TensorId::rope_sin || t.id == TensorId::attn_mask;
        if (shared && shared_written[id]) continue;
        shared_written[id] = true;
        const std::string name = model_tensor_name(s, t), f = name + ".bin";
        if (files) {
          const std::vector<uint8_t> b = t.id == TensorId::input_ids ? draw_ids(mp, cli.seed) : data.bytes[id];
          if (!write_bytes(dir / f, b.data(), b.size())) return Failure{2, "cannot write " + f};
        }
        m.inputs.push_back(entry(t, name, files ? f : "", 0));
      } else if (t.role == TensorRole::output && t.id != TensorId::hidden_states_out) {
        m.outputs.push_back(entry(t, model_tensor_name(s, t), "", 0));
        m.outputs.back().file.clear();
      }
    }
  }
  ManifestRegion c{1, sg::make_dma_address(1, 0), mp.coeff_bytes, "", "coeff: every weight (checkpoint layout) and constant", ""};
  if (files) {
    if (!write_bytes(dir / "weights.bin", coeff.data(), coeff.size())) return Failure{2, "cannot write weights.bin"};
    c.init_file = "weights.bin";
  }
  const ManifestRegion n{2, sg::make_dma_address(2, 0), mp.neuron_bytes, "", "neuron: inputs, outputs, caches, scratch",
                         "zero-fill, then copy each input file to its device_addr"};
  m.regions = {c, n};
  return std::nullopt;
}

nlohmann::json model_report(const GenCli& cli, const ModelPlan& mp, uint64_t commands, uint64_t stream_bytes) {
  const gen::ModelConfig& md = mp.cfg.model;
  return {{"kind", "model"},
          {"model_type", mp.cfg.model_type},
          {"num_layers", md.num_layers},
          {"phase", cli.phase},
          {"batch", mp.inference.batch},
          {"seq", mp.inference.seq},
          {"kv_len", mp.inference.kv_len},
          {"cores", cli.cores},
          {"chips", 1},
          {"dtype", json_dtype(md.dtype)},
          {"vocab", md.vocab},
          {"tie_word_embeddings", md.tie_embeddings},
          {"steps", mp.steps.size()},
          {"commands", commands},
          {"stream_bytes", stream_bytes},
          {"flops", mp.flops},
          {"bytes_ddr", mp.bytes_ddr},
          {"weight_bytes", mp.weight_bytes},
          {"cache_bytes", mp.cache_bytes},
          {"ddr_bytes", {{"0", mp.coeff_bytes + mp.neuron_bytes + stream_bytes}}},
          {"ddr_capacity_bytes", ddr_capacity_bytes(cli)}};
}

std::optional<Failure> write_model(const GenCli& cli, const ModelPlan& mp, const fs::path& dir, uint64_t& commands,
                                   uint64_t& stream_bytes) {
  std::vector<StepSizes> sizes(mp.steps.size());
  commands = stream_bytes = 0;
  for (size_t i = 0; i < mp.steps.size(); ++i) {
    if (auto f = size_step(mp.steps[i], sizes[i])) return f;
    for (uint32_t c = 0; c < gen::kMaxCores; ++c) {
      for (uint32_t e = 0; e < 3; ++e) {
        commands += sizes[i].commands[c][e];
        stream_bytes += sizes[i].bytes[c][e];
      }
    }
  }
  if (auto f = check_capacity(cli, mp, stream_bytes)) return f;
  Manifest m;
  m.name = "tilefw-gen " + mp.cfg.model_type + " whole model";
  m.chip = "BM1690";
  m.chip_aliases = {"SG2260"};
  m.core_num = cli.cores;
  for (size_t i = 0; i < mp.steps.size(); ++i) {
    ManifestStep st;
    if (auto f = write_step(mp.steps[i], sizes[i], dir, st)) return f;
    m.steps.push_back(std::move(st));
  }
  if (auto f = write_data(cli, mp, dir, m)) return f;
  std::vector<uint8_t> raw;
  if (!read_file(cli.config, raw) || !write_bytes(dir / "config.json", raw.data(), raw.size())) {
    return Failure{2, "cannot copy the config into the output"};
  }
  nlohmann::json g = moe_phases_entry(cli, "config.json").at("generator");
  g.erase("layer");
  g["seed"] = cli.seed;
  g["static_experts"] = cli.static_experts;
  m.model = {{"generator", g}};
  m.report = model_report(cli, mp, commands, stream_bytes);
  std::string error;
  if (!write_manifest((dir / "manifest.json").string(), m, error)) return Failure{2, error};
  return std::nullopt;
}

int fail(const Failure& f) {
  std::fprintf(stderr, "tilefw gen: %s\n", f.message.c_str());
  return f.code;
}

}  // namespace

int run_gen_model(const GenCli& cli) {
  fs::path out;
  if (auto f = out_path(cli.out, out)) return fail(*f);
  if (auto f = check_out(cli, out)) return fail(*f);
  auto mp = std::make_unique<ModelPlan>();
  if (auto f = plan_model(cli, *mp)) return fail(*f);
  fs::path tmp;
  int slot = -1;
  const auto f_prepare = prepare_out(cli, out, tmp, slot);
  const signal_cleanup::Registered registered(slot);
  if (f_prepare) return fail(*f_prepare);
  std::optional<Failure> f;
  uint64_t commands = 0, bytes = 0;
  try {
    f = write_model(cli, *mp, tmp, commands, bytes);
    if (!f) f = commit_out(cli, tmp, out);
  } catch (const std::exception& e) {
    f = Failure{2, std::string("writing ") + out.string() + ": " + e.what()};
  }
  if (f) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    return fail(*f);
  }
  std::printf("%s whole model %s: %u layers, batch %u seq %u kv_len %u, %u cores: %zu steps, %" PRIu64
              " commands, %" PRIu64 " bytes of streams, DDR %.3f GB -> %s\n",
              mp->cfg.model_type.c_str(), cli.phase.c_str(), mp->cfg.model.num_layers, mp->inference.batch,
              mp->inference.seq, mp->inference.kv_len, cli.cores, mp->steps.size(), commands, bytes,
              (mp->coeff_bytes + mp->neuron_bytes + bytes) / 1e9, cli.out.c_str());
  return 0;
}

}  // namespace tilefw::tools
