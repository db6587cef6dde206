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
#include <map>
#include <memory>

#include "commands.hpp"
#include "common/signal_cleanup.hpp"
#include "formats/sg2260_manifest.hpp"
#include "gen/gen_data.hpp"
#include "gen/gen_output.hpp"
#include "gen/model_plan.hpp"
#include "gen/model_transfers.hpp"
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

}  // namespace

// Everything a step's streams follow: the step, its plan's config, passes, parallel config and
// every tensor's address and size. Two steps with the same key emit the same bytes (the
// emission is a function of the plan and the core), so the second reuses the first's files.
std::string plan_key(const ModelStep& s, const gen::SizedLayer& p) {
  std::string k = s.name + "|" + std::to_string(static_cast<int>(s.kind)) + "|" + std::to_string(s.layer) + "|" +
                  std::to_string(static_cast<int>(s.part)) + (s.two_phase ? "|2" : "|1");
  const gen::ModelConfig& m = p.model;
  const gen::ParallelConfig& q = p.parallel;
  for (uint64_t v : {uint64_t{m.heads}, uint64_t{m.kv_heads}, uint64_t{m.intermediate}, uint64_t{m.moe_layer},
                     uint64_t{p.inference.batch}, uint64_t{p.inference.seq}, uint64_t{p.inference.kv_len},
                     uint64_t{p.chunk_tokens}, uint64_t{p.chunk_batch}, uint64_t{p.chunks}, uint64_t{p.capacity},
                     uint64_t{q.cores}, uint64_t{q.tp}, uint64_t{q.ep}, uint64_t{static_cast<uint8_t>(q.part)},
                     uint64_t{q.residual}, uint64_t{q.vocab_rank}, uint64_t{q.vocab_ranks}, uint64_t{q.expert_first},
                     uint64_t{q.expert_count}}) {
    k += "," + std::to_string(v);
  }
  for (const TensorInfo& t : p.memory.tensors) {
    if (t.present) k += ";" + std::to_string(t.device_addr) + ":" + std::to_string(t.bytes);
  }
  return k;
}

std::string step_key(const ModelStep& s, const gen::SizedLayer& plan) {
  if (!s.two_phase) return plan_key(s, plan);
  gen::SizedLayer any = plan;  // the routing phase runs no expert: which experts the chip holds does not show
  any.parallel.expert_first = 0;
  return plan_key(s, any);
}

namespace {

// One step's streams for one chip and micro-batch, core by core, into the output directory.
std::optional<Failure> write_step(Writer& w, const ModelStep& s, uint32_t chip, uint32_t mb, uint32_t slot) {
  const StepSizes& z = w.sizes.at(&s);
  const gen::SizedLayer plan = microbatch_plan(s, mb);
  const std::string key = step_key(s, plan);
  ManifestStep out;
  const std::string prefix = w.many() ? "c" + std::to_string(chip) + ".m" + std::to_string(mb) + "." : "";
  out.name = prefix + s.name;
  const bool head = s.kind == gen::Program::head || s.kind == gen::Program::head_merge;
  out.kind = s.kind == gen::Program::embed ? "embed" : head ? "head" : "layer";
  out.layer = s.layer;
  out.two_phase = s.two_phase;
  out.slot = slot;
  out.microbatch = mb;
  if (auto seen = w.written.find(key); seen != w.written.end()) {
    for (ManifestCore core : seen->second) {
      core.chip = chip;
      for (uint32_t e = 0; e < 3; ++e) {
        w.commands += core.commands[e];
        w.stream_bytes += core.bytes[e];
      }
      out.cores.push_back(core);
    }
    w.m.steps.push_back(std::move(out));
    return std::nullopt;
  }
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
  w.written.emplace(key, out.cores);
  w.m.steps.push_back(std::move(out));
  return std::nullopt;
}

}  // namespace

std::optional<Failure> size_schedule(Writer& w) {
  const ModelLayout& l = w.layout;
  w.chip_streams.assign(l.chips, 0);
  std::map<std::string, StepSizes> sized;  // by step_key: equal plans have equal sizes
  for (uint32_t p = 0; p < l.stages; ++p) {
    for (uint32_t r = 0; r < l.tp; ++r) {
      for (const ModelStep& s : w.stages[p * l.tp + r].steps) {
        const std::string key = step_key(s, s.plan);
        auto seen = sized.find(key);
        if (seen == sized.end()) {
          StepSizes z;
          if (auto f = size_step(s, z)) return f;
          seen = sized.emplace(key, z).first;
        }
        const StepSizes& z = seen->second;
        uint64_t bytes = 0;
        for (uint32_t c = 0; c < gen::kMaxCores; ++c) bytes += z.bytes[c][0] + z.bytes[c][1] + z.bytes[c][2];
        for (uint32_t d = 0; d < l.replicas; ++d) w.chip_streams[l.chip(d, p, r)] += bytes * l.microbatches;
        w.sizes.emplace(&s, z);
      }
    }
  }
  return std::nullopt;
}

namespace {

// A MoE part's top-k ids of micro-batch mb (moe_choice is per request: one block a micro-batch).
uint64_t choices_at(const ModelStep& s, uint32_t mb) {
  const TensorInfo& t = s.plan.memory[TensorId::moe_choice];
  return t.device_addr + uint64_t{mb} * t.bytes;
}

// The steps of a plan in segments: a segment ends after each layer part (an all-reduce of the
// tensor-parallel group follows it); without tp, one segment of every step.
// With tp, the embedding (on the group's first chip) is a segment of its own, broadcast to the
// others; they have an empty segment there.
std::vector<std::vector<const ModelStep*>> segments(const ModelPlan& mp) {
  std::vector<std::vector<const ModelStep*>> out(1);
  if (mp.layout.tp > 1 && mp.stage == 0 && mp.rank > 0) out.emplace_back();
  for (const ModelStep& s : mp.steps) {
    out.back().push_back(&s);
    const bool group_end = s.kind == gen::Program::embed || s.kind == gen::Program::head;  // a broadcast or a gather follows
    if (s.collective != Collective::none || (mp.layout.tp > 1 && group_end)) out.emplace_back();
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

}  // namespace

// Every slot of the schedule (docs/whole-model.md): in time step t, stage p's chips compute
// micro-batch t - p through the stage's steps, in segments separated by the tensor-parallel
// groups' all-reduces (each a slot of its own); then one slot moves the stage boundaries.
std::optional<Failure> write_schedule(Writer& w) {
  const ModelLayout& l = w.layout;
  uint32_t slot = 0;
  const bool cast_caches = l.expert_group && !l.dp_attention && !w.cli.timing_only &&
                           w.stages[0].inference.phase == gen::Phase::decode && any_cast_cache(w);
  if (cast_caches) {
    if (auto f = write_cache_cast(w, slot++)) return f;
  }
  for (uint32_t t = 0; t + 1 < l.microbatches + l.stages; ++t) {
    std::vector<std::vector<std::vector<const ModelStep*>>> seg(w.stages.size());
    size_t most = 0;
    for (size_t i = 0; i < w.stages.size(); ++i) {
      seg[i] = segments(w.stages[i]);
      most = std::max(most, seg[i].size());
    }
    for (size_t k = 0; k < most; ++k) {
      std::vector<AllReduce> reduces;
      std::vector<std::pair<uint32_t, uint32_t>> casts;  // the embedding's output: (first chip, stage)
      std::vector<std::pair<uint32_t, uint32_t>> gathers;  // the head's results: (first chip, micro-batch)
      for (uint32_t d = 0; d < l.replicas; ++d) {
        for (uint32_t p = 0; p < l.stages; ++p) {
          if (t < p || t - p >= l.microbatches) continue;
          for (uint32_t r = 0; r < l.tp; ++r) {
            const auto& sg = seg[p * l.tp + r];
            if (k >= sg.size() || sg[k].empty()) continue;
            for (const ModelStep* s : sg[k]) {
              if (auto f = write_step(w, *s, l.chip(d, p, r), t - p, slot)) return f;
            }
            const ModelStep& last = *sg[k].back();
            if (last.kind == gen::Program::embed && l.tp > 1) casts.push_back({l.chip(d, p, 0), p});
            if (last.kind == gen::Program::head && l.tp > 1 && r == 0) gathers.push_back({l.chip(d, p, 0), t - p});
            if (last.collective == Collective::none) continue;
            if (r == 0) reduces.push_back({l.chip(d, p, 0), {}, last.collective, {}, last.layer, t - p});
            reduces.back().addr.push_back(last.group_buffer);
            if (last.collective == Collective::a2a_combine) reduces.back().choices.push_back(choices_at(last, t - p));
          }
        }
      }
      ++slot;
      if (!reduces.empty() || !casts.empty() || !gathers.empty()) {
        if (auto f = write_collectives(w, reduces, casts, gathers, slot++)) return f;
      }
    }
    if (auto f = write_transfers(w, t, slot++)) return f;
    if (l.tp > 1 && l.stages > 1) {  // the stage inputs that arrived, to the rest of each group
      std::vector<std::pair<uint32_t, uint32_t>> casts;
      for (uint32_t d = 0; d < l.replicas; ++d) {
        for (uint32_t p = 0; p + 1 < l.stages; ++p) {
          if (t >= p && t - p < l.microbatches) casts.push_back({l.chip(d, p + 1, 0), p + 1});
        }
      }
      if (!casts.empty()) {
        if (auto f = write_collectives(w, {}, casts, {}, slot++)) return f;
      }
    }
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

// The manifest's size when more than `run` and `validate` read (kMaxManifestBytes), else 0.
uint64_t manifest_over(const Writer& w) {
  std::error_code ec;
  const uint64_t n = fs::file_size(w.dir / "manifest.json", ec);
  return !ec && n > kMaxManifestBytes ? n : 0;
}

// The model written; tensor-parallel attention chosen by the rule whose manifest is more than
// `run` reads (it lists a step per layer part and chip: DeepSeek-V3 on 64 chips) is written
// again with the attention replicated (recorded in model.generator.attention).
std::optional<Failure> write_model_fitting(std::unique_ptr<Writer>& w, GenCli& again, const fs::path& tmp) {
  if (auto f = write_model(*w)) return f;
  if (manifest_over(*w) != 0 && w->layout.tp_attention && w->cli.tp == 0) {
    std::fprintf(stderr, "tilefw gen: manifest.json with tensor-parallel attention: %" PRIu64 " bytes, more than run reads "
                 "(%" PRIu64 "); the attention stays replicated\n", manifest_over(*w), kMaxManifestBytes);
    for (const auto& e : fs::directory_iterator(tmp)) fs::remove_all(e.path());
    again = w->cli;
    again.replicated_attention = true;
    w = std::make_unique<Writer>(again, tmp);
    if (auto f = plan_stages(*w)) return f;
    if (auto f = write_model(*w)) return f;
  }
  if (const uint64_t n = manifest_over(*w)) {
    return Failure{1, "manifest.json: " + std::to_string(n) + " bytes, more than run and validate read (" +
                          std::to_string(kMaxManifestBytes) + "): fewer chips or steps" +
                          (w->layout.tp_attention ? " (--tp splits every MoE layer into two steps a chip)" : "")};
  }
  return std::nullopt;
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
  GenCli again;  // a second attempt's request (write_model_fitting)
  try {
    f = write_model_fitting(w, again, tmp);
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
  std::printf("%s whole model %s: %u layers, batch %u seq %u kv_len %u on %u chip%s (pp %u, dp %u, tp %u, %u micro-batches), "
              "%u cores each: %zu steps, %" PRIu64 " commands, %" PRIu64 " bytes of streams, DDR %.3f GB on the fullest "
              "chip -> %s\n",
              mp.cfg.model_type.c_str(), cli.phase.c_str(), mp.cfg.model.num_layers, w->layout.batch, mp.inference.seq,
              mp.inference.kv_len, w->layout.chips, w->layout.chips > 1 ? "s" : "", w->layout.stages, w->layout.replicas,
              w->layout.tp, w->layout.microbatches, cli.cores, w->m.steps.size(), w->commands, w->stream_bytes, ddr / 1e9,
              cli.out.c_str());
  return 0;
}

}  // namespace tilefw::tools
