// `tilefw gen --model` (docs/whole-model.md): a Hugging Face config.json -> the whole model's
// steps on one chip (embedding, every decoder layer, head), their streams, the tensor files and
// a manifest whose "model" object lists the steps in run order. Output written like the
// one-layer gen: a temporary sibling of --out renamed at the end.
#include "gen/gen_model.hpp"
#include "gen/model_writer.hpp"

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
#include "tilefw/cmd/cdma.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
using gen::TensorId;
using gen::TensorInfo;
using gen::TensorRole;

const char* const kStreamExt[3] = {"BD", "GDMA", "SDMA"};


}  // namespace

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

namespace {

// One step's streams for one chip and micro-batch, core by core, into the output directory.
std::optional<Failure> write_step(Writer& w, const ModelStep& s, uint32_t chip, uint32_t mb, uint32_t slot) {
  const StepSizes& z = w.sizes.at(&s);
  const gen::SizedLayer plan = microbatch_plan(s, mb);
  ManifestStep out;
  const std::string prefix = w.many() ? "c" + std::to_string(chip) + ".m" + std::to_string(mb) + "." : "";
  out.name = prefix + s.name;
  out.kind = s.kind == gen::Program::embed ? "embed" : s.kind == gen::Program::head ? "head" : "layer";
  out.layer = s.layer;
  out.two_phase = s.two_phase;
  out.slot = slot;
  out.microbatch = mb;
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
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
    const Status st = req.phase == 0 ? gen::emit_core(plan, c, buffers, ge) : gen::emit_phase(plan, c, req, buffers, used, ge);
    if (st != Status::ok) return Failure{1, out.name + ": " + status_name(ge.status) + ": " + ge.what};
    ManifestCore core;
    core.core = c;
    core.chip = chip;
    core.sized = true;
    for (uint32_t e = 0; e < 3; ++e) {
      const std::string f = out.name + "." + kStreamExt[e] + "." + std::to_string(c);
      if (!write_bytes(w.dir / f, streams[e].data(), streams[e].size())) return Failure{2, "cannot write " + f};
      core.file[e] = f;
      core.bytes[e] = z.bytes[c][e];
      core.commands[e] = z.commands[c][e];
      w.commands += z.commands[c][e];
      w.stream_bytes += z.bytes[c][e];
    }
    out.cores.push_back(core);
  }
  w.m.steps.push_back(std::move(out));
  return std::nullopt;
}

// One CDMA stream (a send or a recv of micro-batch hidden states, then the end) into a file.
std::optional<Failure> write_cdma(Writer& w, const std::string& name, uint32_t chip, uint32_t peer, bool send,
                                  uint64_t addr, uint32_t rows, uint32_t hidden, ManifestStep& step) {
  std::vector<uint8_t> buf(1024);
  cmd::CommandBuilder b(cmd::Engine::cdma, ByteSpan(buf.data(), buf.size()));
  cmd::CdmaTensor t;
  t.addr = addr;
  t.format = cmd::kCdmaFormatFp32;
  t.c = rows;
  t.w = hidden;
  t.cstride = hidden;
  t.hstride = hidden;
  t.nstride = rows * hidden;
  const Status s = send ? cmd::cdma_send(b, t, false) : cmd::cdma_recv(b, t, cmd::kCdmaReduceNone);
  if (s != Status::ok || b.end() != Status::ok) return Failure{1, name + ": " + status_name(s) + ": the hidden states' transfer"};
  if (!write_bytes(w.dir / name, buf.data(), b.size())) return Failure{2, "cannot write " + name};
  ManifestCdma c;
  c.chip = chip;
  c.peer = peer;
  c.file = name;
  c.sized = true;
  c.bytes = b.size();
  c.commands = 2;
  step.cdma.push_back(c);
  w.chip_streams[chip] += b.size();
  return std::nullopt;
}

// The pipeline's stage boundaries of slot t: stage p sends micro-batch t - p to stage p + 1.
std::optional<Failure> write_transfers(Writer& w, uint32_t t) {
  const ModelLayout& l = w.layout;
  ManifestStep step;
  step.name = "xfer." + std::to_string(t);
  step.kind = "xfer";
  step.slot = 2 * t + 1;
  const uint32_t rows = l.rows() * w.stages[0].inference.seq, H = w.stages[0].cfg.model.hidden;
  for (uint32_t d = 0; d < l.replicas; ++d) {
    for (uint32_t p = 0; p + 1 < l.stages; ++p) {
      if (t < p || t - p >= l.microbatches) continue;
      const uint32_t a = l.chip(d, p), b = a + 1;
      const std::string base = step.name + ".c" + std::to_string(a) + "-c" + std::to_string(b);
      if (auto f = write_cdma(w, base + ".send.CDMA", a, b, true, w.stages[p].hidden_out, rows, H, step)) return f;
      if (auto f = write_cdma(w, base + ".recv.CDMA", b, a, false, w.stages[p + 1].hidden_in, rows, H, step)) return f;
    }
  }
  if (!step.cdma.empty()) w.m.steps.push_back(std::move(step));
  return std::nullopt;
}

}  // namespace

std::optional<Failure> size_schedule(Writer& w) {
  w.chip_streams.assign(w.layout.chips, 0);
  for (uint32_t p = 0; p < w.layout.stages; ++p) {
    for (const ModelStep& s : w.stages[p].steps) {
      StepSizes z;
      if (auto f = size_step(s, z)) return f;
      uint64_t bytes = 0;
      for (uint32_t c = 0; c < gen::kMaxCores; ++c) bytes += z.bytes[c][0] + z.bytes[c][1] + z.bytes[c][2];
      for (uint32_t d = 0; d < w.layout.replicas; ++d) w.chip_streams[w.layout.chip(d, p)] += bytes * w.layout.microbatches;
      w.sizes.emplace(&s, z);
    }
  }
  return std::nullopt;
}

// Every slot of the schedule (docs/whole-model.md): slot 2t computes, on stage p's chips,
// micro-batch t - p through the stage's steps; slot 2t + 1 moves the stage boundaries.
std::optional<Failure> write_schedule(Writer& w) {
  const ModelLayout& l = w.layout;
  for (uint32_t t = 0; t + 1 < l.microbatches + l.stages; ++t) {
    for (uint32_t d = 0; d < l.replicas; ++d) {
      for (uint32_t p = 0; p < l.stages; ++p) {
        if (t < p || t - p >= l.microbatches) continue;
        for (const ModelStep& s : w.stages[p].steps) {
          if (auto f = write_step(w, s, l.chip(d, p), t - p, 2 * t)) return f;
        }
      }
    }
    if (auto f = write_transfers(w, t)) return f;
  }
  return std::nullopt;
}

namespace {
int fail(const Failure& f) {
  std::fprintf(stderr, "tilefw gen: %s\n", f.message.c_str());
  return f.code;
}

// Plans every stage, then writes the schedule's streams, the data and the manifest.
std::optional<Failure> write_model(Writer& w) {
  if (auto f = model_layout_checked(w)) return f;
  if (auto f = size_schedule(w)) return f;
  if (auto f = check_capacity(w)) return f;  // before any stream is written
  if (auto f = write_schedule(w)) return f;
  if (auto f = write_data(w)) return f;
  return write_manifest_file(w);
}
}  // namespace

int run_gen_model(const GenCli& cli) {
  fs::path out;
  if (auto f = out_path(cli.out, out)) return fail(*f);
  if (auto f = check_out(cli, out)) return fail(*f);
  fs::path tmp;
  auto w = std::make_unique<Writer>(cli, tmp);
  if (auto f = plan_stages(*w)) return fail(*f);  // before the output exists: a bad request leaves nothing
  int slot = -1;
  const auto f_prepare = prepare_out(cli, out, tmp, slot);
  const signal_cleanup::Registered registered(slot);
  if (f_prepare) return fail(*f_prepare);
  std::optional<Failure> f;
  try {
    f = write_model(*w);
    if (!f) f = commit_out(cli, tmp, out);
  } catch (const std::exception& e) {
    f = Failure{2, std::string("writing ") + out.string() + ": " + e.what()};
  }
  if (f) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    return fail(*f);
  }
  const ModelPlan& mp = w->stages.front();
  uint64_t ddr = 0;
  for (uint32_t c = 0; c < w->layout.chips; ++c) ddr = std::max(ddr, chip_ddr_bytes(*w, c));
  std::printf("%s whole model %s: %u layers, batch %u seq %u kv_len %u on %u chip%s (pp %u, dp %u, %u micro-batches), "
              "%u cores each: %zu steps, %" PRIu64 " commands, %" PRIu64 " bytes of streams, DDR %.3f GB on the fullest "
              "chip -> %s\n",
              mp.cfg.model_type.c_str(), cli.phase.c_str(), mp.cfg.model.num_layers, w->layout.batch, mp.inference.seq,
              mp.inference.kv_len, w->layout.chips, w->layout.chips > 1 ? "s" : "", w->layout.stages, w->layout.replicas,
              w->layout.microbatches, cli.cores, w->m.steps.size(), w->commands, w->stream_bytes, ddr / 1e9,
              cli.out.c_str());
  return 0;
}

}  // namespace tilefw::tools
